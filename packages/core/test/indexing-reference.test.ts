/**
 * Property tests against a direct per-element reference (no NumPy needed):
 * reads (gather) and writes (scatter) through normalize -> project -> strided
 * copy over random chunkings, for widths 1-3 and string arrays, plus the exact
 * set of chunks touched and the `complete` flags.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { DataArray } from "../src/dtypes/types.js";
import { IndexError } from "../src/errors.js";
import {
  copyStrided,
  cStrides,
  normalizeSelection,
  projectChunks,
  resolveAxes,
} from "../src/indexing/index.js";
import { type Case, caseArb, type Item, toSelection } from "./indexing-helpers.js";

const prod = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);

/** Per array dimension: the selected indices, and whether the dimension is kept. */
type RefDim = { indices: number[]; kept: boolean };

/** Direct evaluation of a selection, independent of the library code. */
function reference(c: Case): RefDim[] | "error" {
  const nd = c.shape.length;
  let items: Item[] = c.bare && c.items.length === 1 && c.items[0].t === "null" ? [] : c.items;
  const ells = items.filter((i) => i.t === "ell").length;
  if (ells > 1 || items.length - ells > nd) return "error";
  if (ells === 1) {
    const at = items.findIndex((i) => i.t === "ell");
    const fill: Item[] = Array.from({ length: nd - (items.length - 1) }, () => ({ t: "null" }));
    items = [...items.slice(0, at), ...fill, ...items.slice(at + 1)];
  }
  const out: RefDim[] = [];
  for (let d = 0; d < nd; d++) {
    const len = c.shape[d];
    const all = Array.from({ length: len }, (_, i) => i);
    const it: Item = items[d] ?? { t: "null" };
    switch (it.t) {
      case "null":
        out.push({ indices: all, kept: true });
        break;
      case "int": {
        const i = it.v < 0 ? it.v + len : it.v;
        if (i < 0 || i >= len) return "error";
        out.push({ indices: [i], kept: false });
        break;
      }
      case "idx": {
        const w = it.v.map((v) => (v < 0 ? v + len : v));
        if (w.some((i) => i < 0 || i >= len)) return "error";
        out.push({ indices: w, kept: true });
        break;
      }
      case "bool":
        if (it.v.length !== len) return "error";
        out.push({ indices: all.filter((i) => it.v[i]), kept: true });
        break;
      case "slice": {
        // Python: range(len)[start:stop:step], element by element.
        const step = it.step ?? 1;
        if (step === 0) return "error";
        const sel: number[] = [];
        const norm = (v: number) => (v < 0 ? v + len : v);
        if (step > 0) {
          const lo = it.start === null ? 0 : Math.max(0, norm(it.start));
          const hi = it.stop === null ? len : Math.min(len, norm(it.stop));
          for (let i = lo; i < hi; i += step) sel.push(i);
        } else {
          const hi = it.start === null ? len - 1 : Math.min(len - 1, norm(it.start));
          const lo = it.stop === null ? -1 : Math.max(-1, norm(it.stop));
          for (let i = hi; i > lo; i += step) sel.push(i);
        }
        out.push({ indices: sel, kept: true });
        break;
      }
      case "ell":
        throw new Error("unreachable");
    }
  }
  return out;
}

/** Every (output flat index, array flat index) pair of the reference, output in C order. */
function pairs(dims: RefDim[], shape: number[]): [number, number][] {
  const strides = cStrides(shape);
  const res: [number, number][] = [];
  const total = prod(dims.map((d) => d.indices.length));
  const ctr = dims.map(() => 0);
  for (let k = 0; k < total; k++) {
    let flat = 0;
    for (let d = 0; d < dims.length; d++) flat += dims[d].indices[ctr[d]] * strides[d];
    res.push([k, flat]);
    for (let d = dims.length - 1; d >= 0; d--) {
      if (++ctr[d] < dims[d].indices.length) break;
      ctr[d] = 0;
    }
  }
  return res;
}

type Kind = {
  name: string;
  width: number;
  make: (n: number) => DataArray;
  val: (v: number, j: number) => unknown;
};

const KINDS: Kind[] = [
  { name: "int32", width: 1, make: (n) => new Int32Array(n), val: (v) => v },
  { name: "complex128", width: 2, make: (n) => new Float64Array(n), val: (v, j) => v * 4 + j },
  { name: "r24-like", width: 3, make: (n) => new Int32Array(n), val: (v, j) => v * 4 + j },
  { name: "string", width: 1, make: (n) => new Array<string>(n).fill(""), val: (v) => `s${v}` },
];

/** Chunk coordinates (C order) and local position of each in-bounds array element. */
function locate(flat: number, shape: number[], chunks: number[]): { key: string; local: number } {
  const nd = shape.length;
  const coords: number[] = new Array(nd);
  let local = 0;
  let lstride = 1;
  for (let d = nd - 1; d >= 0; d--) {
    const i = flat % shape[d];
    flat = Math.floor(flat / shape[d]);
    coords[d] = Math.floor(i / chunks[d]);
    local += (i % chunks[d]) * lstride;
    lstride *= chunks[d];
  }
  return { key: coords.join(","), local };
}

const caseWithKind = fc.tuple(caseArb(9), fc.constantFrom(...KINDS));

describe("indexing vs a per-element reference", () => {
  it("gathers, scatters, touches exactly the needed chunks and flags complete chunks exactly", () => {
    fc.assert(
      fc.property(caseWithKind, ([c, kind]) => {
        const ref = reference(c);
        if (ref === "error") {
          expect(() => normalizeSelection(toSelection(c), c.shape)).toThrow(IndexError);
          return;
        }
        const sel = normalizeSelection(toSelection(c), c.shape);
        const keptShape = ref.filter((d) => d.kept).map((d) => d.indices.length);
        expect(sel.shape).toEqual(keptShape);
        const w = kind.width;
        const cs = prod(c.chunks);
        const chunkStrides = cStrides(c.chunks);
        const outStrides = cStrides(sel.shape);
        const nOut = prod(sel.shape);
        const expectedPairs = pairs(ref, c.shape);

        // Which array elements are selected, and by which output position last.
        const lastWriter = new Map<number, number>();
        for (const [k, flat] of expectedPairs) lastWriter.set(flat, k);
        const byChunk = new Map<string, Map<number, number>>();
        for (const [flat, k] of lastWriter) {
          const { key, local } = locate(flat, c.shape, c.chunks);
          let m = byChunk.get(key);
          if (m === undefined) {
            m = new Map();
            byChunk.set(key, m);
          }
          m.set(local, k);
        }

        const projections = [...projectChunks(sel, c.shape, c.chunks)];
        // Exactly the chunks holding a selected element, each once, in C order.
        const keys = projections.map((p) => p.chunkCoords.join(","));
        expect(new Set(keys)).toEqual(new Set(byChunk.keys()));
        expect(keys.length).toBe(byChunk.size);
        for (let i = 1; i < projections.length; i++) {
          const a = projections[i - 1].chunkCoords;
          const b = projections[i].chunkCoords;
          const j = a.findIndex((v, d) => v !== b[d]);
          expect(j >= 0 && a[j] < b[j]).toBe(true);
        }

        // Gather: chunk element value = its array flat index.
        const out = kind.make(nOut * w);
        for (const p of projections) {
          const chunk = kind.make(cs * w) as unknown as unknown[];
          for (let e = 0; e < cs; e++) {
            // Recover the array flat index of chunk element e (or -1 outside).
            let rem = e;
            let flat = 0;
            let inside = true;
            const as = cStrides(c.shape);
            for (let d = c.shape.length - 1; d >= 0; d--) {
              const l = rem % c.chunks[d];
              rem = Math.floor(rem / c.chunks[d]);
              const g = p.chunkCoords[d] * c.chunks[d] + l;
              if (g >= c.shape[d]) inside = false;
              flat += g * as[d];
            }
            for (let j = 0; j < w; j++) chunk[e * w + j] = kind.val(inside ? flat : -1, j);
          }
          const r = resolveAxes(p.chunkSel, chunkStrides);
          copyStrided(
            chunk as unknown as DataArray,
            r.offset,
            r.axes,
            r.strides,
            out,
            0,
            p.outAxes,
            outStrides,
            w,
          );
        }
        const want = kind.make(nOut * w) as unknown as unknown[];
        for (const [k, flat] of expectedPairs)
          for (let j = 0; j < w; j++) want[k * w + j] = kind.val(flat, j);
        expect(Array.from(out as ArrayLike<unknown>)).toEqual(Array.from(want));

        // Scatter: output element k carries value 100000 + k into fresh chunks.
        const src = kind.make(nOut * w) as unknown as unknown[];
        for (let k = 0; k < nOut; k++)
          for (let j = 0; j < w; j++) src[k * w + j] = kind.val(100000 + k, j);
        for (const p of projections) {
          const chunk = kind.make(cs * w) as unknown as unknown[];
          for (let s = 0; s < cs * w; s++) chunk[s] = kind.val(-1, s % w);
          const r = resolveAxes(p.chunkSel, chunkStrides);
          copyStrided(
            src as unknown as DataArray,
            0,
            p.outAxes,
            outStrides,
            chunk as unknown as DataArray,
            r.offset,
            r.axes,
            r.strides,
            w,
          );
          const key = p.chunkCoords.join(",");
          const selected = byChunk.get(key)!;
          for (let e = 0; e < cs; e++) {
            const k = selected.get(e);
            for (let j = 0; j < w; j++) {
              expect(chunk[e * w + j]).toEqual(kind.val(k === undefined ? -1 : 100000 + k, j));
            }
          }
          // complete <=> every in-bounds element of the chunk is selected.
          let inBounds = 1;
          for (let d = 0; d < c.shape.length; d++) {
            inBounds *= Math.min(c.chunks[d], c.shape[d] - p.chunkCoords[d] * c.chunks[d]);
          }
          expect(p.complete).toBe(selected.size === inBounds);
        }
      }),
      { seed: 7, numRuns: 1200 },
    );
  });
});

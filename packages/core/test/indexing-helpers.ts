/**
 * Shared machinery of the indexing property tests: a JSON description of a
 * selection (so the same case can go to NumPy), its JS form, random cases, and
 * gather/scatter through a chunked copy of a C-order `arange` array.
 */
import fc from "fast-check";
import {
  type ChunkProjection,
  copyStrided,
  cStrides,
  type DimSelection,
  ELLIPSIS,
  type NormalizedSelection,
  normalizeSelection,
  projectChunks,
  resolveAxes,
  type Selection,
  Slice,
} from "../src/indexing/index.js";

/** One selection entry, JSON-serializable. */
export type Item =
  | { t: "int"; v: number }
  | { t: "slice"; start: number | null; stop: number | null; step: number | null }
  | { t: "ell" }
  | { t: "null" }
  | { t: "idx"; v: number[]; as: "array" | "int32" | "bigint" }
  | { t: "bool"; v: boolean[] };

export interface Case {
  shape: number[];
  chunks: number[];
  items: Item[];
  /** Pass the only item bare instead of as a one-element list. */
  bare: boolean;
}

const prod = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);

function itemToJs(it: Item): DimSelection | typeof ELLIPSIS {
  switch (it.t) {
    case "int":
      return it.v;
    case "slice":
      return new Slice(it.start, it.stop, it.step);
    case "ell":
      return ELLIPSIS;
    case "null":
      return null;
    case "idx":
      if (it.as === "int32") return Int32Array.from(it.v);
      if (it.as === "bigint") return BigInt64Array.from(it.v.map(BigInt));
      return it.v;
    case "bool":
      return it.v;
  }
}

/** The JS selection for a case (see the ambiguity rule of {@link Selection}). */
export function toSelection(c: Case): Selection {
  if (c.bare && c.items.length === 1) {
    const it = c.items[0];
    // A bare JS number[] would be a per-dimension list: use a typed array.
    if (it.t === "idx") return Int32Array.from(it.v);
    return itemToJs(it);
  }
  return c.items.map(itemToJs);
}

function itemArb(len: number): fc.Arbitrary<Item> {
  const bound = fc.option(fc.integer({ min: -len - 3, max: len + 3 }), { nil: null, freq: 3 });
  const step = fc.option(
    fc.oneof(
      { weight: 20, arbitrary: fc.integer({ min: -4, max: 4 }).filter((s) => s !== 0) },
      { weight: 1, arbitrary: fc.constant(0) },
    ),
    { nil: null, freq: 3 },
  );
  const idx = fc.record({
    t: fc.constant("idx" as const),
    v: fc.array(fc.integer({ min: -len - 1, max: len }), { maxLength: 5 }),
    as: fc.constantFrom("array" as const, "int32" as const, "bigint" as const),
  });
  const boolLen = fc.oneof(
    { weight: 8, arbitrary: fc.constant(len) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: len + 1 }) },
  );
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        t: fc.constant("int" as const),
        v: fc.integer({ min: -len - 1, max: len }),
      }),
    },
    {
      weight: 5,
      arbitrary: fc.record({ t: fc.constant("slice" as const), start: bound, stop: bound, step }),
    },
    { weight: 1, arbitrary: fc.constant({ t: "null" as const }) },
    { weight: 3, arbitrary: idx },
    {
      weight: len === 0 ? 0 : 2,
      arbitrary: boolLen.chain((n) =>
        fc.record({
          t: fc.constant("bool" as const),
          v: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
        }),
      ),
    },
  );
}

/** Random shapes (0-4 dims, zero-length dims included), chunk shapes and selections. */
export function caseArb(maxLen = 6): fc.Arbitrary<Case> {
  return fc.array(fc.integer({ min: 0, max: maxLen }), { maxLength: 4 }).chain((shape) => {
    const ndim = shape.length;
    const chunks = fc.tuple(...shape.map((n) => fc.integer({ min: 1, max: n + 2 })));
    const layout = fc.record({
      // Occasionally one entry too many.
      explicit: fc.integer({ min: 0, max: ndim + 1 }).map((k) => (k > ndim ? ndim + 1 : k)),
      ellipsis: fc.integer({ min: 0, max: 12 }),
      bare: fc.boolean(),
    });
    return fc.tuple(fc.constant(shape), chunks, layout).chain(([shape, chunks, layout]) => {
      const k = layout.explicit;
      // Ellipsis: none (most), at a position, or twice (invalid).
      const ell = layout.ellipsis < 8 ? -1 : layout.ellipsis % (k + 1);
      const twice = layout.ellipsis === 12;
      const dimOf = (j: number) => (ell < 0 || j < ell ? j : ndim - (k - j));
      const arbs = Array.from({ length: k }, (_, j) => itemArb(shape[dimOf(j)] ?? 3));
      return fc.tuple(...arbs).map((explicit) => {
        const items: Item[] = [...explicit];
        if (ell >= 0) items.splice(ell, 0, { t: "ell" });
        if (twice) items.push({ t: "ell" });
        return { shape, chunks: [...chunks], items, bare: layout.bare };
      });
    });
  });
}

/** Chunk `coords` of a C-order arange over `shape`; out-of-bounds padding is -1. */
export function arangeChunk(
  shape: readonly number[],
  chunks: readonly number[],
  coords: readonly number[],
): Int32Array {
  const n = prod(chunks);
  const data = new Int32Array(n);
  const strides = cStrides(shape);
  const nd = shape.length;
  for (let e = 0; e < n; e++) {
    let rem = e;
    let flat = 0;
    let inside = true;
    for (let d = nd - 1; d >= 0; d--) {
      const local = rem % chunks[d];
      rem = Math.floor(rem / chunks[d]);
      const g = coords[d] * chunks[d] + local;
      if (g >= shape[d]) inside = false;
      flat += g * strides[d];
    }
    data[e] = inside ? flat : -1;
  }
  return data;
}

export interface Gathered {
  shape: number[];
  data: Int32Array;
  projections: ChunkProjection[];
}

/** Reads the selection out of a chunked arange array: normalize, project, copy. */
export function gather(c: Case): Gathered {
  const sel: NormalizedSelection = normalizeSelection(toSelection(c), c.shape, "a");
  const out = new Int32Array(prod(sel.shape)).fill(-2);
  const outStrides = cStrides(sel.shape);
  const chunkStrides = cStrides(c.chunks);
  const projections = [...projectChunks(sel, c.shape, c.chunks)];
  for (const p of projections) {
    const chunk = arangeChunk(c.shape, c.chunks, p.chunkCoords);
    const r = resolveAxes(p.chunkSel, chunkStrides);
    copyStrided(chunk, r.offset, r.axes, r.strides, out, 0, p.outAxes, outStrides, 1);
  }
  return { shape: [...sel.shape], data: out, projections };
}

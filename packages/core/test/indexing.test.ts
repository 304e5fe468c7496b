import { describe, expect, it } from "vitest";
import { IndexError } from "../src/errors.js";
import {
  type Axis,
  type ChunkProjection,
  copyStrided,
  cStrides,
  ELLIPSIS,
  fillStrided,
  normalizeSelection,
  parseSelection,
  projectChunks,
  resolveAxes,
  type Selection,
  Slice,
  slice,
} from "../src/indexing/index.js";

const prod = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);

/** Reads `selection` from a C-order arange of `shape` stored in chunks of `chunks`. */
function read(shape: number[], chunks: number[], selection: Selection) {
  const sel = normalizeSelection(selection, shape);
  const out = new Float64Array(prod(sel.shape)).fill(Number.NaN);
  const as = cStrides(shape);
  const cs = cStrides(chunks);
  for (const p of projectChunks(sel, shape, chunks)) {
    const chunk = new Float64Array(prod(chunks));
    for (let e = 0; e < chunk.length; e++) {
      let flat = 0;
      for (let d = 0; d < shape.length; d++) {
        const g = p.chunkCoords[d] * chunks[d] + (Math.floor(e / cs[d]) % chunks[d]);
        flat += g * as[d];
      }
      chunk[e] = flat;
    }
    const r = resolveAxes(p.chunkSel, cs);
    copyStrided(chunk, r.offset, r.axes, r.strides, out, 0, p.outAxes, cStrides(sel.shape), 1);
  }
  return { shape: sel.shape, data: Array.from(out) };
}

const axis = (start: number, step: number, count: number): Axis => ({ start, step, count });

describe("slice()", () => {
  it("builds Python slices", () => {
    expect(slice(5)).toEqual(new Slice(null, 5, null));
    expect(slice(1, null, -1)).toEqual(new Slice(1, null, -1));
    expect(String(slice(null, null, -2))).toBe("::-2");
    expect(String(slice(2, 7))).toBe("2:7");
  });
});

describe("normalizeSelection", () => {
  it("wraps negative integers and drops integer dims from the output", () => {
    const s = normalizeSelection([-1, null, 2], [4, 5, 6]);
    expect(s.dims[0]).toEqual({ kind: "int", index: 3 });
    expect(s.dims[2]).toEqual({ kind: "int", index: 2 });
    expect(s.shape).toEqual([5]);
  });

  it("names the dimension, value and length of an out-of-bounds integer", () => {
    expect(() => normalizeSelection([0, 7], [4, 7], "x/y")).toThrow(
      'array "x/y": index 7 is out of bounds for dimension 1 of length 7',
    );
    expect(() => normalizeSelection(-5, [4])).toThrow(
      /index -5 is out of bounds for dimension 0 of length 4/,
    );
    const e = (() => {
      try {
        normalizeSelection(9, [4], "p");
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(IndexError);
    expect((e as IndexError).path).toBe("p");
  });

  it("follows Python slice semantics, including negative steps and clipping", () => {
    const n = (s: Slice, len: number) => normalizeSelection([s], [len]).dims[0];
    expect(n(slice(null, null, -1), 5)).toEqual({ kind: "slice", start: 4, step: -1, count: 5 });
    expect(n(slice(-2, null), 5)).toEqual({ kind: "slice", start: 3, step: 1, count: 2 });
    expect(n(slice(-100, 100, 3), 10)).toEqual({ kind: "slice", start: 0, step: 3, count: 4 });
    expect(n(slice(100, -100, -3), 10)).toEqual({ kind: "slice", start: 9, step: -3, count: 4 });
    expect(n(slice(3, 3), 10)).toEqual({ kind: "slice", start: 0, step: 1, count: 0 });
    expect(n(slice(2, 5, -1), 10)).toEqual({ kind: "slice", start: 0, step: -1, count: 0 });
    expect(n(slice(null, null, -1), 0)).toEqual({ kind: "slice", start: 0, step: -1, count: 0 });
    expect(n(slice(0, Number.POSITIVE_INFINITY), 4)).toEqual({
      kind: "slice",
      start: 0,
      step: 1,
      count: 4,
    });
  });

  it("rejects a zero step, non-integers and unknown entries", () => {
    expect(() => normalizeSelection(slice(0, 4, 0), [4])).toThrow(/step cannot be zero/);
    expect(() => normalizeSelection(1.5, [4])).toThrow(IndexError);
    expect(() => normalizeSelection(slice(0.5, 2), [4])).toThrow(/slice start 0.5/);
    expect(() => normalizeSelection(["x" as never], [4])).toThrow(/entry 0 is not/);
    expect(() => normalizeSelection([[1, true] as never], [4])).toThrow(/mixes types/);
    expect(() => normalizeSelection([[Number.NaN]], [4])).toThrow(IndexError);
  });

  it("expands one ellipsis and rejects two or too many entries", () => {
    const s = normalizeSelection([0, ELLIPSIS, 1], [2, 3, 4, 5]);
    expect(s.shape).toEqual([3, 4]);
    expect(normalizeSelection([ELLIPSIS, 0, 0, 0, 0], [2, 3, 4, 5]).shape).toEqual([]);
    expect(() => normalizeSelection([ELLIPSIS, 0, ELLIPSIS], [2, 3])).toThrow(/only one ellipsis/);
    expect(() => normalizeSelection([0, 0, 0], [2, 3])).toThrow(
      "too many indices: the selection has 3 entries but the array has 2 dimensions",
    );
  });

  it("fills missing trailing dims and applies a single entry to dim 0", () => {
    expect(normalizeSelection(1, [3, 4]).shape).toEqual([4]);
    expect(normalizeSelection(slice(1), [3, 4]).shape).toEqual([1, 4]);
    expect(normalizeSelection([], [3, 4]).shape).toEqual([3, 4]);
    expect(normalizeSelection(undefined, [3, 4]).shape).toEqual([3, 4]);
    expect(normalizeSelection(ELLIPSIS, [3, 4]).shape).toEqual([3, 4]);
  });

  it("reads a top-level number[] as per-dim integers; [[...]] and typed arrays as index arrays", () => {
    expect(normalizeSelection([1, 2], [3, 4]).shape).toEqual([]);
    expect(normalizeSelection([[1, 2]], [3, 4]).shape).toEqual([2, 4]);
    expect(normalizeSelection(Int32Array.of(0, 0, 2), [3, 4]).shape).toEqual([3, 4]);
    expect(normalizeSelection([true, false, true], [3, 4]).shape).toEqual([2, 4]);
  });

  it("hints at wrapping when a number list was meant as an index array", () => {
    expect(() => normalizeSelection([0, 2, 3], [5])).toThrow(
      /wrap an index array: \[\[i, j, \.\.\.\]\]/,
    );
  });

  it("accepts plain {start, stop, step} objects as slices", () => {
    expect(normalizeSelection([{ start: null, stop: 2, step: null } as Slice], [5]).shape).toEqual([
      2,
    ]);
    expect(() => normalizeSelection([{ start: 0 } as never], [5])).toThrow(/entry 0 is not/);
  });

  it("accepts integer index arrays (negative, repeated, unordered, bigint) and checks bounds", () => {
    const d = normalizeSelection([null, [3, -1, 0, 0]], [2, 4]).dims[1];
    expect(d).toEqual({ kind: "points", indices: Int32Array.of(3, 3, 0, 0) });
    const b = normalizeSelection([BigInt64Array.of(-1n, 1n)], [3]).dims[0];
    expect(b).toEqual({ kind: "points", indices: Int32Array.of(2, 1) });
    expect(() => normalizeSelection([Uint32Array.of(3)], [3])).toThrow(
      /index array entry 3 is out of bounds for dimension 0 of length 3/,
    );
    expect(() => normalizeSelection([BigInt64Array.of(-(2n ** 62n))], [3])).toThrow(IndexError);
  });

  it("turns boolean masks into positions and rejects a wrong length", () => {
    const d = normalizeSelection([[false, true, true, false]], [4]).dims[0];
    expect(d).toEqual({ kind: "points", indices: Int32Array.of(1, 2) });
    expect(() => normalizeSelection([[true, false]], [4])).toThrow(
      "boolean mask of length 2 does not match dimension 0 of length 4",
    );
  });

  it("handles 0-d arrays and zero-length dims", () => {
    for (const s of [undefined, null, ELLIPSIS, []] as Selection[]) {
      expect(normalizeSelection(s, []).shape).toEqual([]);
    }
    expect(() => normalizeSelection(0, [])).toThrow(/too many indices/);
    expect(normalizeSelection(null, [0, 3]).shape).toEqual([0, 3]);
    expect(() => normalizeSelection([0], [0, 3])).toThrow(/length 0/);
    expect([...projectChunks(normalizeSelection(null, [0, 3]), [0, 3], [2, 2])]).toEqual([]);
  });
});

describe("projectChunks", () => {
  it("splits a negative-step slice arithmetically, chunks in C order", () => {
    const sel = normalizeSelection(slice(9, null, -4), [10]); // 9, 5, 1
    const ps = [...projectChunks(sel, [10], [4])];
    expect(ps.map((p) => p.chunkCoords)).toEqual([[0], [1], [2]]);
    expect(ps.map((p) => p.chunkSel[0])).toEqual([axis(1, -4, 1), axis(1, -4, 1), axis(1, -4, 1)]);
    expect(ps.map((p) => p.outAxes[0])).toEqual([axis(2, 1, 1), axis(1, 1, 1), axis(0, 1, 1)]);
    expect(read([10], [4], slice(9, null, -4)).data).toEqual([9, 5, 1]);
    expect(read([10], [3], slice(null, null, -1)).data).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
  });

  it("flags complete chunks exactly, including ragged edge chunks", () => {
    const flags = (shape: number[], chunks: number[], s: Selection) =>
      [...projectChunks(normalizeSelection(s, shape), shape, chunks)].map(
        (p) => `${p.chunkCoords.join(",")}:${p.complete ? "c" : "p"}`,
      );
    expect(flags([10], [4], null)).toEqual(["0:c", "1:c", "2:c"]);
    expect(flags([10], [4], slice(8, 10))).toEqual(["2:c"]);
    expect(flags([10], [4], slice(null, null, -1))).toEqual(["0:c", "1:c", "2:c"]);
    expect(flags([10], [4], slice(1, 10))).toEqual(["0:p", "1:c", "2:c"]);
    expect(flags([10], [4], slice(0, 10, 2))).toEqual(["0:p", "1:p", "2:p"]);
    expect(flags([9], [4], 8)).toEqual(["2:c"]); // one in-bounds element
    expect(flags([10], [4], 8)).toEqual(["2:p"]);
    // Duplicates do not count twice; order does not matter.
    expect(flags([4], [4], [[0, 0, 1, 1]])).toEqual(["0:p"]);
    expect(flags([4], [4], [[3, 1, 2, 0, 0]])).toEqual(["0:c"]);
    expect(flags([5, 5], [2, 5], [slice(0, 2), [4, 3, 2, 1, 0]])).toEqual(["0,0:c"]);
    expect(flags([5, 5], [2, 5], [slice(1, 3), null])).toEqual(["0,0:p", "1,0:p"]);
  });

  it("groups index arrays by chunk, keeping their order within a chunk", () => {
    const sel = normalizeSelection([[7, 1, 6, 0, 7]], [8]);
    const ps = [...projectChunks(sel, [8], [4])];
    expect(ps.map((p) => p.chunkCoords[0])).toEqual([0, 1]);
    expect(ps[0].chunkSel[0]).toEqual(axis(1, -1, 2));
    expect(ps[0].outAxes[0]).toEqual(axis(1, 2, 2));
    expect(ps[1].chunkSel[0]).toEqual({ indices: Int32Array.of(3, 2, 3) });
    expect(ps[1].outAxes[0]).toEqual(axis(0, 2, 3));
    expect(read([8], [4], [[7, 1, 6, 0, 7]]).data).toEqual([7, 1, 6, 0, 7]);
  });

  it("touches only the needed chunks of a huge sparse grid", () => {
    const shape = [1e9, 1e9];
    const chunks = [1000, 1000]; // 1e12 chunks
    const one = (s: Selection) => [...projectChunks(normalizeSelection(s, shape), shape, chunks)];
    const t0 = performance.now();
    const a = one([123_456_789, slice(5, 6)]);
    expect(a.map((p) => p.chunkCoords)).toEqual([[123_456, 0]]);
    expect(a[0].chunkSel).toEqual([789, axis(5, 1, 1)]);
    expect(one([slice(null, null, 1e8), -1]).map((p) => p.chunkCoords[0])).toEqual(
      Array.from({ length: 10 }, (_, i) => i * 1e5),
    );
    expect(one([[999_999_999, 0], [5]]).map((p) => p.chunkCoords)).toEqual([
      [0, 0],
      [999_999, 0],
    ]);
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it("rejects a chunk shape that does not fit", () => {
    const sel = normalizeSelection(null, [4]);
    expect(() => projectChunks(sel, [4], [0])).toThrow(IndexError);
    expect(() => projectChunks(sel, [4], [2, 2])).toThrow(IndexError);
  });

  it("round-trips a write (output -> chunks) and a read (chunks -> output)", () => {
    const shape = [7, 5, 6];
    const chunks = [3, 2, 4];
    const selection: Selection = [slice(6, 0, -2), [4, 0, 3], slice(1, null)];
    const sel = normalizeSelection(selection, shape);
    const cs = cStrides(chunks);
    const os = cStrides(sel.shape);
    const value = Float64Array.from({ length: prod(sel.shape) }, (_, i) => 1000 + i);
    const store = new Map<string, Float64Array>();
    const proj: ChunkProjection[] = [...projectChunks(sel, shape, chunks)];
    for (const p of proj) {
      const chunk = new Float64Array(prod(chunks)).fill(-1);
      const r = resolveAxes(p.chunkSel, cs);
      copyStrided(value, 0, p.outAxes, os, chunk, r.offset, r.axes, r.strides, 1);
      store.set(p.chunkCoords.join(","), chunk);
    }
    const back = new Float64Array(value.length);
    for (const p of proj) {
      const r = resolveAxes(p.chunkSel, cs);
      const chunk = store.get(p.chunkCoords.join(","))!;
      copyStrided(chunk, r.offset, r.axes, r.strides, back, 0, p.outAxes, os, 1);
    }
    expect(Array.from(back)).toEqual(Array.from(value));
    // Elements outside the selection were left alone.
    const written = [...store.values()].reduce((n, c) => n + c.filter((v) => v >= 1000).length, 0);
    expect(written).toBe(value.length);
  });
});

describe("copyStrided / fillStrided", () => {
  it("computes C-order strides and resolves integer dims into an offset", () => {
    expect(cStrides([2, 3, 4])).toEqual([12, 4, 1]);
    expect(cStrides([])).toEqual([]);
    expect(resolveAxes([1, axis(0, 1, 3), 2], [12, 4, 1])).toEqual({
      offset: 14,
      axes: [axis(0, 1, 3)],
      strides: [4],
    });
  });

  it("copies complex (width 2) elements with negative steps", () => {
    const src = Float64Array.from({ length: 12 }, (_, i) => i); // 6 complex numbers, 2x3
    const dst = new Float64Array(12);
    copyStrided(
      src,
      0,
      [axis(1, -1, 2), axis(2, -1, 3)],
      [3, 1],
      dst,
      0,
      [axis(0, 1, 2), axis(0, 1, 3)],
      [3, 1],
      2,
    );
    expect(Array.from(dst)).toEqual([10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1]);
  });

  it("copies r24 (width 3) elements through explicit positions", () => {
    const src = Uint8Array.from({ length: 15 }, (_, i) => i); // 5 elements
    const dst = new Uint8Array(9);
    copyStrided(
      src,
      0,
      [{ indices: Int32Array.of(4, 0, 2) }],
      [1],
      dst,
      0,
      [axis(0, 1, 3)],
      [1],
      3,
    );
    expect(Array.from(dst)).toEqual([12, 13, 14, 0, 1, 2, 6, 7, 8]);
  });

  it("copies string and bytes arrays", () => {
    const src = ["a", "b", "c", "d", "e", "f"];
    const dst = new Array<string>(4).fill("");
    copyStrided(
      src,
      0,
      [axis(0, 1, 2), axis(1, 1, 2)],
      [3, 1],
      dst,
      0,
      [axis(1, -1, 2), axis(0, 1, 2)],
      [2, 1],
      1,
    );
    expect(dst).toEqual(["e", "f", "b", "c"]);
    const bytes = [Uint8Array.of(1), Uint8Array.of(2)];
    const out: Uint8Array[] = [new Uint8Array(0), new Uint8Array(0)];
    copyStrided(bytes, 0, [{ indices: Int32Array.of(1, 0) }], [1], out, 0, [axis(0, 1, 2)], [1], 1);
    expect(out).toEqual([Uint8Array.of(2), Uint8Array.of(1)]);
  });

  it("merges contiguous dims into bulk runs and matches an element loop", () => {
    // Full 3-d block inside a larger buffer, with width 2: merges to one run per row of dim 0.
    const shape = [4, 8, 16];
    const src = Float32Array.from({ length: prod(shape) * 2 }, (_, i) => i);
    const dst = new Float32Array(2 * 8 * 16 * 2);
    copyStrided(
      src,
      0,
      [axis(1, 2, 2), axis(0, 1, 8), axis(0, 1, 16)],
      cStrides(shape),
      dst,
      0,
      [axis(0, 1, 2), axis(0, 1, 8), axis(0, 1, 16)],
      [128, 16, 1],
      2,
    );
    for (let i = 0; i < 2; i++) {
      for (let e = 0; e < 128 * 2; e++) expect(dst[i * 256 + e]).toBe((1 + 2 * i) * 256 + e);
    }
  });

  it("reads a Fortran-order source (any strides) into C order", () => {
    const f = Int32Array.of(0, 3, 1, 4, 2, 5); // 2x3 array [[0,1,2],[3,4,5]] in F order
    const c = new Int32Array(6);
    const all = [axis(0, 1, 2), axis(0, 1, 3)];
    copyStrided(f, 0, all, [1, 2], c, 0, all, [3, 1], 1);
    expect(Array.from(c)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("moves runs within one array like copyWithin", () => {
    const a = Int16Array.from({ length: 40 }, (_, i) => i);
    copyStrided(a, 0, [axis(0, 1, 20)], [1], a, 0, [axis(5, 1, 20)], [1], 1);
    expect(Array.from(a.subarray(5, 25))).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it("copies a single element and nothing for empty axes", () => {
    const dst = new Float64Array(2);
    copyStrided(Float64Array.of(1, 2, 3, 4), 1, [], [], dst, 0, [], [], 2);
    expect(Array.from(dst)).toEqual([3, 4]);
    copyStrided(Float64Array.of(9), 0, [axis(0, 1, 0)], [1], dst, 0, [axis(0, 1, 0)], [1], 1);
    expect(Array.from(dst)).toEqual([3, 4]);
  });

  it("rejects positions outside either array instead of writing there", () => {
    const run = (dstAxis: Axis, dstLen: number) => () =>
      copyStrided(
        new Int8Array(8),
        0,
        [axis(0, 1, 3)],
        [1],
        new Int8Array(dstLen),
        0,
        [dstAxis],
        [1],
        1,
      );
    expect(run(axis(1, 1, 3), 3)).toThrow(/outside/);
    expect(run(axis(1, -1, 3), 8)).toThrow(/outside/);
    expect(run({ indices: Int32Array.of(0, 9, 1) }, 8)).toThrow(/outside/);
    expect(() => fillStrided(["a"], 0, [axis(0, 1, 2)], [1], ["x"], 1)).toThrow(/outside/);
    expect(() => fillStrided(["a"], 0, [], [], ["x"], 0)).toThrow(/width 0/);
    expect(() => copyStrided(new Int8Array(4), 0, [], [], new Int8Array(3), 1, [], [], 3)).toThrow(
      /outside/,
    );
  });

  it("copies short rows (moved as 4-byte words or bytes) exactly, whatever the alignment and kind", () => {
    // A 2-d block of `rows` × `cols` elements from a wider source into a wider
    // destination, both views at some byte offset into their buffers: rows of
    // 1 to 80 bytes cover the word loop (whole words, aligned views), the byte
    // loop and `set`; NaN payloads and -0 must come through bit for bit.
    type Ctor = Float32ArrayConstructor | Uint8ArrayConstructor | Int16ArrayConstructor;
    const kinds: [Ctor, number][] = [
      [Float32Array, 1],
      [Float32Array, 2], // complex64
      [Uint8Array, 1],
      [Uint8Array, 4], // e.g. r32
      [Uint8Array, 3],
      [Int16Array, 2],
    ];
    const rows = 3;
    for (const [Kind, width] of kinds) {
      const size = Kind.BYTES_PER_ELEMENT;
      for (const cols of [1, 2, 3, 4, 5, 8, 13, 16, 20]) {
        for (const [srcPad, dstPad] of [
          [0, 0],
          [1, 0],
          [0, 1],
          [2, 3],
        ]) {
          for (const Memory of [ArrayBuffer, SharedArrayBuffer]) {
            const srcCols = cols + 3;
            const dstCols = cols + 5;
            const srcSlots = (rows + 1) * srcCols * width;
            const dstSlots = (rows + 2) * dstCols * width;
            const srcBytes = new Uint8Array(new Memory(srcPad * size + srcSlots * size + 8));
            for (let i = 0; i < srcBytes.length; i++) srcBytes[i] = (i * 151 + 7) & 255;
            if (Kind === Float32Array) {
              const f = new DataView(srcBytes.buffer);
              // Signalling and quiet NaNs with payloads, and -0, at slot 0.
              f.setUint32(srcPad * size, 0x7f800001, true);
              f.setUint32(srcPad * size + 4, 0xffc00123, true);
              f.setUint32(srcPad * size + 8, 0x80000000, true);
            }
            // (Typed-array constructors take either kind of memory; the union's types do not say so.)
            const src = new Kind(srcBytes.buffer as ArrayBuffer, srcPad * size, srcSlots);
            const dst = new Kind(
              new Memory(dstPad * size + dstSlots * size + 8) as ArrayBuffer,
              dstPad * size,
              dstSlots,
            );
            const expected = new Uint8Array(dst.buffer.byteLength);
            const srcStart = 1; // element offsets of the block's corner
            const dstStart = dstCols + 2;
            for (let r = 0; r < rows; r++) {
              for (let c = 0; c < cols * width * size; c++) {
                const from = srcPad * size + ((srcStart + r * srcCols) * width * size + c);
                const to = dstPad * size + ((dstStart + r * dstCols) * width * size + c);
                expected[to] = srcBytes[from];
              }
            }
            copyStrided(
              src,
              srcStart,
              [axis(0, 1, rows), axis(0, 1, cols)],
              [srcCols, 1],
              dst,
              dstStart,
              [axis(0, 1, rows), axis(0, 1, cols)],
              [dstCols, 1],
              width,
            );
            const got = new Uint8Array(dst.buffer);
            const label = `${Kind.name} width ${width}, ${cols} columns, pads ${srcPad}/${dstPad}, ${Memory.name}`;
            expect(Buffer.from(got).equals(Buffer.from(expected)), label).toBe(true);
          }
        }
      }
    }
  });

  it("rejects axes that select different counts", () => {
    expect(() =>
      copyStrided(
        new Int8Array(4),
        0,
        [axis(0, 1, 3)],
        [1],
        new Int8Array(4),
        0,
        [axis(0, 1, 2)],
        [1],
        1,
      ),
    ).toThrow(IndexError);
  });

  it("fills selected positions with one element, any width and kind", () => {
    const a = new Int32Array(12);
    fillStrided(a, 0, [axis(1, 1, 2), axis(0, 1, 4)], [4, 1], Int32Array.of(7), 1);
    expect(Array.from(a)).toEqual([0, 0, 0, 0, 7, 7, 7, 7, 7, 7, 7, 7]);
    const c = new Float32Array(8);
    fillStrided(c, 0, [{ indices: Int32Array.of(3, 0) }], [1], Float32Array.of(1, -1), 2);
    expect(Array.from(c)).toEqual([1, -1, 0, 0, 0, 0, 1, -1]);
    const s = new Array<string>(6).fill("");
    fillStrided(s, 1, [axis(0, 1, 2), axis(0, 1, 1)], [3, 1], ["x"], 1);
    expect(s).toEqual(["", "x", "", "", "x", ""]);
    const r = new Uint8Array(9);
    fillStrided(r, 1, [], [], Uint8Array.of(1, 2, 3), 3);
    expect(Array.from(r)).toEqual([0, 0, 0, 1, 2, 3, 0, 0, 0]);
    const big = new BigInt64Array(40);
    fillStrided(big, 0, [axis(0, 1, 2), axis(2, 1, 18)], [20, 1], BigInt64Array.of(5n), 1);
    expect(big.filter((v) => v === 5n).length).toBe(36);
  });
});

describe("parseSelection", () => {
  it("parses the CLI syntax", () => {
    expect(parseSelection("")).toEqual([]);
    expect(parseSelection("  ")).toEqual([]);
    expect(parseSelection(":")).toEqual([new Slice(null, null, null)]);
    expect(parseSelection("-1")).toEqual([-1]);
    expect(parseSelection("0:10,::-2,5,...")).toEqual([
      new Slice(0, 10, null),
      new Slice(null, null, -2),
      5,
      ELLIPSIS,
    ]);
    expect(parseSelection("...,0")).toEqual([ELLIPSIS, 0]);
    expect(parseSelection("[1,3,5]")).toEqual([[1, 3, 5]]);
    expect(parseSelection("[ -1 , 2 ], 1:")).toEqual([[-1, 2], new Slice(1, null, null)]);
    expect(parseSelection("[]")).toEqual([[]]);
    expect(parseSelection("[true, False]")).toEqual([[true, false]]);
    expect(parseSelection("1,")).toEqual([1]);
    expect(parseSelection("+2: -1 :")).toEqual([new Slice(2, -1, null)]);
  });

  it("feeds normalizeSelection directly", () => {
    expect(read([4, 5], [3, 2], parseSelection("[3,0], ::-2")).data).toEqual([19, 17, 15, 4, 2, 0]);
  });

  it("reports the offset of the problem", () => {
    const err = (t: string) => {
      try {
        parseSelection(t);
      } catch (e) {
        expect(e).toBeInstanceOf(IndexError);
        return (e as Error).message;
      }
      throw new Error(`accepted ${t}`);
    };
    expect(err("0:x")).toMatch(/at offset 2 \(found 'x'\)/);
    expect(err("1,,2")).toMatch(/at offset 2/);
    expect(err("::0")).toMatch(/at offset 2.*step cannot be zero/);
    expect(err("[1,2")).toMatch(/at offset 4 \(found the end of the selection\)/);
    expect(err("[1,true]")).toMatch(/cannot mix/);
    expect(err("1.5")).toMatch(/at offset 1/);
    expect(err("1 2")).toMatch(/at offset 2.*expected ','/);
    expect(err("-")).toMatch(/digits after the sign/);
    expect(err("99999999999999999999")).toMatch(/too large/);
    expect(err("1:2:3:4")).toMatch(/at offset 5/);
  });
});

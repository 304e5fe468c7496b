/**
 * The read/write fast paths of ZarrArray (no fill work for all-zero fill values,
 * per-metadata cached layout, the worker hook) must give exactly what a naive
 * element-by-element model gives, for random shapes, ragged edge chunks,
 * transposed chunks, negative steps and every element width.
 */
import {
  createArray,
  type DataArrayOf,
  type GetOptions,
  type JsonObject,
  MemoryStore,
  type NDArray,
  slice,
} from "@zarr/core";
import type { ChunkSpec } from "@zarr/core/codec";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

type Hook = Exclude<NonNullable<GetOptions["workers"]>, false>;

const DTYPES = [
  { name: "float32", width: 1, make: (k: number) => k * 0.5 - 3 },
  { name: "int16", width: 1, make: (k: number) => (k % 200) - 100 },
  { name: "uint8", width: 1, make: (k: number) => k % 251 },
  { name: "float64", width: 1, make: (k: number) => k / 7 },
  { name: "complex64", width: 2, make: (k: number) => k - 1.5 },
] as const;

/** Python-style slice bounds for one dimension. */
function sliceIndices(n: number, start: number, stop: number, step: number): number[] {
  const out: number[] = [];
  if (step > 0) for (let i = start; i < stop && i < n; i += step) out.push(i);
  else for (let i = start; i > stop && i >= 0; i += step) out.push(i);
  return out;
}

/** Reads `idx` (one index list per dimension) from a flat C-order model. */
function pick(model: number[], shape: number[], idx: number[][], width: number): number[] {
  const out: number[] = [];
  const strides = shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
  const rec = (d: number, off: number) => {
    if (d === shape.length) {
      for (let w = 0; w < width; w++) out.push(model[off * width + w]);
      return;
    }
    for (const i of idx[d]) rec(d + 1, off + i * strides[d]);
  };
  rec(0, 0);
  return out;
}

const caseArb = fc
  .record({
    dims: fc.integer({ min: 1, max: 3 }),
    dtype: fc.integer({ min: 0, max: DTYPES.length - 1 }),
    zeroFill: fc.boolean(),
    transpose: fc.boolean(),
    seed: fc.integer({ min: 0, max: 1 << 20 }),
  })
  .chain((c) =>
    fc.record({
      c: fc.constant(c),
      shape: fc.array(fc.integer({ min: 1, max: 9 }), { minLength: c.dims, maxLength: c.dims }),
      chunks: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: c.dims, maxLength: c.dims }),
    }),
  );

describe("array fast paths (results identical to an element-wise model)", () => {
  it("get after a partial set: missing chunks, ragged edges, transposes, negative steps", async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ c, shape, chunks }) => {
        const dt = DTYPES[c.dtype];
        const fillNum = c.zeroFill ? 0 : 7;
        const fillValue = dt.name === "complex64" ? [fillNum, fillNum] : fillNum;
        const store = new MemoryStore();
        const order = shape.map((_, i) => shape.length - 1 - i);
        const codecs: JsonObject[] = [
          ...(c.transpose ? [{ name: "transpose", configuration: { order } }] : []),
          { name: "bytes", configuration: { endian: "little" } },
        ];
        const a = await createArray(store, "a", {
          shape,
          dataType: dt.name,
          chunkShape: chunks,
          fillValue: fillValue as never,
          codecs,
        });
        const n = shape.reduce((x, y) => x * y, 1);
        const model = new Array<number>(n * dt.width).fill(fillNum);
        // Write a sub-box (leaves some chunks missing, some partially written).
        const lo = shape.map((s, d) => (c.seed >> d) % s);
        const hi = shape.map((s, d) => Math.min(s, lo[d] + 1 + ((c.seed >> (d + 3)) % s)));
        const boxShape = hi.map((h, d) => h - lo[d]);
        const boxN = boxShape.reduce((x, y) => x * y, 1);
        const value = a.dataType.allocate(boxN) as unknown as number[];
        for (let k = 0; k < boxN * dt.width; k++) value[k] = dt.make(k + c.seed);
        await a.set(
          lo.map((l, d) => slice(l, hi[d])),
          value as unknown as DataArrayOf<typeof dt.name>,
        );
        const mstrides = shape.map((_, d) => shape.slice(d + 1).reduce((x, y) => x * y, 1));
        const bstrides = boxShape.map((_, d) => boxShape.slice(d + 1).reduce((x, y) => x * y, 1));
        for (let k = 0; k < boxN; k++) {
          let off = 0;
          for (let d = 0; d < shape.length; d++) {
            off += (lo[d] + (Math.floor(k / bstrides[d]) % boxShape[d])) * mstrides[d];
          }
          for (let w = 0; w < dt.width; w++) model[off * dt.width + w] = value[k * dt.width + w];
        }
        // Whole array, then a reversed strided selection.
        const all = await a.get(null);
        const everyIdx = shape.map((s) => sliceIndices(s, 0, s, 1));
        expect(Array.from(all.data as ArrayLike<number>)).toEqual(
          pick(model, shape, everyIdx, dt.width),
        );
        const rev = await a.get(shape.map(() => slice(null, null, -2)));
        const revIdx = shape.map((s) => sliceIndices(s, s - 1, -1, -2));
        expect(Array.from(rev.data as ArrayLike<number>)).toEqual(
          pick(model, shape, revIdx, dt.width),
        );
      }),
      { seed: 42, numRuns: 120 },
    );
  });

  it("chunks equal to an all-zero fill value are not stored (v3 core: fill value; zarr-python write_empty_chunks)", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "z", {
      shape: [8, 8],
      dataType: "int32",
      chunkShape: [4, 4],
    });
    await a.set([slice(0, 4), slice(0, 4)], new Int32Array(16));
    await a.set([slice(4, 8), slice(4, 8)], 5);
    const keys = [];
    for await (const k of a.storedChunks()) keys.push(k.key);
    expect(keys).toEqual(["z/c/1/1"]);
    const { data } = await a.get([slice(2, 6), 5]);
    expect(Array.from(data as Int32Array)).toEqual([0, 0, 5, 5]);
  });
});

/** A hook that runs the codecs in-thread and records what it was given. */
function recordingHook(decline = false) {
  const calls = { decode: 0, encode: 0, transfers: [] as boolean[] };
  const hook: Hook = {
    decode(pipeline, bytes, _context, options) {
      calls.decode++;
      return decline ? undefined : pipeline.decode(bytes, options);
    },
    encode(pipeline, chunk, _context, options) {
      calls.encode++;
      calls.transfers.push(options?.transfer === true);
      return decline ? undefined : pipeline.encode(chunk, options);
    },
  };
  return { hook, calls };
}

describe("worker hook (GetOptions.workers)", () => {
  const make = async (store: MemoryStore) =>
    createArray(store, "w", {
      shape: [10, 7],
      dataType: "float32",
      chunkShape: [4, 3],
      fillValue: 1,
    });

  it("routes chunk decode/encode through the hook with identical results", async () => {
    const ref = await make(new MemoryStore());
    const viaHook = await make(new MemoryStore());
    const { hook, calls } = recordingHook();
    const value = new Float32Array(70).map((_, i) => i * 1.25);
    await ref.set(null, value);
    await viaHook.set(null, value, { workers: hook });
    // 3 × 3 complete chunks, each a fresh buffer the pool may take.
    expect(calls.encode).toBe(9);
    expect(calls.transfers).toEqual(new Array(9).fill(true));
    await viaHook.set([slice(1, 3), slice(2, 5)], 9, { workers: hook });
    await ref.set([slice(1, 3), slice(2, 5)], 9);
    // Read-modify-write chunks reuse decoded data: never offered for transfer.
    expect(calls.transfers.slice(9)).toEqual([false, false]);
    const a = await ref.get([slice(null, null, -1), slice(1, 6)]);
    const b = await viaHook.get([slice(null, null, -1), slice(1, 6)], { workers: hook });
    expect(Array.from(b.data as Float32Array)).toEqual(Array.from(a.data as Float32Array));
    expect(calls.decode).toBeGreaterThan(0);
  });

  it("a declining hook and workers: false leave the work on the calling thread", async () => {
    const store = new MemoryStore();
    const a = await make(store);
    const { hook, calls } = recordingHook(true);
    await a.set(null, 3, { workers: hook });
    // (A column: its bytes span most of the chunk, so the chunk is read whole.)
    const r = await a.get([slice(0, 3), 0], { workers: hook });
    expect(Array.from(r.data as Float32Array)).toEqual([3, 3, 3]);
    expect(calls.decode).toBe(1);
    const before = calls.decode;
    await a.get(null, { workers: false });
    expect(calls.decode).toBe(before);
  });

  it("setChunk never offers the caller's buffer for transfer", async () => {
    const a = await make(new MemoryStore());
    const { hook, calls } = recordingHook();
    const spec: ChunkSpec = a.chunkSpec;
    const data = new Float32Array(spec.shape[0] * spec.shape[1]).fill(2);
    await a.setChunk([0, 0], { data }, { workers: hook });
    expect(calls.transfers).toEqual([false]);
    const chunk = (await a.getChunk([0, 0], { workers: hook })) as NDArray;
    expect(Array.from(chunk.data as Float32Array)).toEqual(Array.from(data));
  });
});

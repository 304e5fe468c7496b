/**
 * Gather writes (`WritableStore.setFrom`): whole chunks stored as their memory
 * (v3 core, "bytes" codec in host order, no other codec) go from the value's
 * memory to a store that writes views, without a chunk buffer. What such a
 * store ends up holding must be, key for key and byte for byte, what a store
 * without `setFrom` holds after the same writes: ragged edge chunks, partial
 * selections, strided (transposed) values, fill-value chunks and every codec
 * chain that is not stored as memory take the buffered path.
 */
import {
  createArray,
  IndexError,
  type JsonObject,
  MemoryStore,
  type Selection,
  type StoreOptions,
  slice,
} from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

/** A MemoryStore with a gathering `setFrom`, counting the views it was given. */
class GatheringStore extends MemoryStore {
  calls = 0;
  views = 0;
  async setFrom(key: string, from: readonly Uint8Array[], options?: StoreOptions) {
    this.calls++;
    this.views += from.length;
    const joined = new Uint8Array(from.reduce((n, v) => n + v.length, 0));
    let at = 0;
    for (const view of from) {
      joined.set(view, at);
      at += view.length;
    }
    await this.set(key, joined, options);
  }
}

function contents(store: MemoryStore): Record<string, number[]> {
  return Object.fromEntries([...store.map].sort().map(([k, v]) => [k, Array.from(v)]));
}

const DTYPES = ["float32", "float64", "int16", "uint8", "int64", "complex64"] as const;
const HOST_LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

const caseArb = fc
  .record({
    dims: fc.integer({ min: 1, max: 3 }),
    dtype: fc.constantFrom(...DTYPES),
    codecs: fc.constantFrom("host", "swapped", "transpose", "crc32c"),
    zeroFill: fc.boolean(),
    writeEmptyChunks: fc.boolean(),
    stridedValue: fc.boolean(),
    zeros: fc.boolean(),
    seed: fc.integer({ min: 0, max: 1 << 20 }),
  })
  .chain((c) =>
    fc.record({
      c: fc.constant(c),
      // Inner chunk dimensions of 64..300 elements: rows long enough to gather.
      chunks: fc.tuple(
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: c.dims - 1, maxLength: c.dims - 1 }),
        fc.integer({ min: 64, max: 300 }),
      ),
      grid: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: c.dims, maxLength: c.dims }),
      ragged: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: c.dims, maxLength: c.dims }),
    }),
  );

function codecChain(kind: string, dims: number): JsonObject[] {
  const host = HOST_LITTLE ? "little" : "big";
  const swapped = HOST_LITTLE ? "big" : "little";
  const order = Array.from({ length: dims }, (_, i) => dims - 1 - i);
  switch (kind) {
    case "swapped":
      return [{ name: "bytes", configuration: { endian: swapped } }];
    case "transpose":
      return [
        { name: "transpose", configuration: { order } },
        { name: "bytes", configuration: { endian: host } },
      ];
    case "crc32c":
      return [{ name: "bytes", configuration: { endian: host } }, { name: "crc32c" }];
    default:
      return [{ name: "bytes", configuration: { endian: host } }];
  }
}

describe("gather writes store exactly what buffered writes store", () => {
  it("random arrays, selections and codecs: same keys, same bytes (and gathering happens)", async () => {
    let gathered = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ c, chunks, grid, ragged }) => {
        const chunkShape = [...chunks[0], chunks[1]];
        // Some arrays end inside a chunk (ragged edges), some on a chunk boundary.
        const shape = chunkShape.map((s, d) => Math.max(1, s * grid[d] - ragged[d]));
        const fillNum = c.zeroFill ? 0 : 7;
        const fillValue = c.dtype === "complex64" ? [fillNum, fillNum] : fillNum;
        const stores = [new MemoryStore(), new GatheringStore()];
        const arrays = await Promise.all(
          stores.map((s) =>
            createArray(s, "a", {
              shape,
              dataType: c.dtype,
              chunkShape,
              fillValue: fillValue as never,
              codecs: codecChain(c.codecs, c.dims),
            }),
          ),
        );
        // Two writes: the whole array, then a box from a seeded corner.
        const lo = shape.map((s, d) => (c.seed >> (2 * d)) % s);
        const selections: (Selection | null)[] = [null, lo.map((l, d) => slice(l, shape[d]))];
        for (const sel of selections) {
          const boxShape = sel === null ? shape : shape.map((s, d) => s - lo[d]);
          const n = boxShape.reduce((x, y) => x * y, 1);
          const data = arrays[0].dataType.allocate(n) as unknown as ArrayLike<unknown> & {
            [k: number]: unknown;
            length: number;
          };
          for (let k = 0; k < data.length; k++) {
            const v = c.zeros ? 0 : (k * 7 + c.seed) % 97;
            data[k] = c.dtype === "int64" ? BigInt(v) : v;
          }
          // A strided value: the same elements through a transposed layout.
          let value: unknown = data;
          if (c.stridedValue && boxShape.length > 1) {
            const t = arrays[0].dataType.allocate(n) as unknown as typeof data;
            const width = data.length / n;
            const rev = [...boxShape].reverse();
            const cStr = boxShape.map((_, d) => boxShape.slice(d + 1).reduce((x, y) => x * y, 1));
            const tStr = rev.map((_, d) => rev.slice(d + 1).reduce((x, y) => x * y, 1)).reverse();
            for (let k = 0; k < n; k++) {
              let to = 0;
              for (let d = 0; d < boxShape.length; d++) {
                to += (Math.floor(k / cStr[d]) % boxShape[d]) * tStr[d];
              }
              for (let w = 0; w < width; w++) t[to * width + w] = data[k * width + w];
            }
            value = { data: t, shape: boxShape, stride: tStr };
          }
          for (const a of arrays) {
            await a.set(sel, value as never, { writeEmptyChunks: c.writeEmptyChunks });
          }
        }
        expect(contents(stores[1])).toEqual(contents(stores[0]));
        gathered += (stores[1] as GatheringStore).calls;
      }),
      { seed: 7, numRuns: 150 },
    );
    // The property would hold vacuously if nothing ever gathered.
    expect(gathered).toBeGreaterThan(20);
  });

  it("whole chunks gather one view per row; edge chunks, compressed and swapped chunks do not", async () => {
    const store = new GatheringStore();
    // 2 x 3 chunks of 4 x 256 float32 (1 KiB rows); the last chunk column is ragged.
    const a = await createArray(store, "a", {
      shape: [8, 700],
      dataType: "float32",
      chunkShape: [4, 256],
    });
    const data = new Float32Array(8 * 700).map((_, k) => k + 1);
    await a.set(null, data);
    expect(store.calls).toBe(4);
    expect(store.views).toBe(16);
    expect(Array.from((await a.get(null)).data)).toEqual(Array.from(data));
    for (const codecs of [codecChain("crc32c", 2), codecChain("swapped", 2)]) {
      const other = new GatheringStore();
      const b = await createArray(other, "b", {
        shape: [8, 512],
        dataType: "float32",
        chunkShape: [4, 256],
        codecs,
      });
      await b.set(null, new Float32Array(8 * 512).fill(3));
      expect(other.calls, JSON.stringify(codecs)).toBe(0);
    }
  });

  it("a chunk of fill values gathered from the value is erased, unless writeEmptyChunks", async () => {
    for (const writeEmptyChunks of [false, true]) {
      const store = new GatheringStore();
      const a = await createArray(store, "a", {
        shape: [2, 512],
        dataType: "int32",
        chunkShape: [2, 256],
        fillValue: 5,
      });
      await a.set(null, 1);
      const value = new Int32Array(2 * 512).fill(5);
      value[1000] = 6;
      await a.set(null, value, { writeEmptyChunks });
      const keys = [...store.map.keys()].filter((k) => k.startsWith("a/c/")).sort();
      expect(keys).toEqual(writeEmptyChunks ? ["a/c/0/0", "a/c/0/1"] : ["a/c/0/1"]);
      expect(Array.from((await a.get(null)).data)).toEqual(Array.from(value));
    }
  });

  it("strides that reach outside the value's data, or are not integers, are an IndexError on every path; nothing is written", async () => {
    const big = new Float32Array(20000).map((_, k) => k + 1);
    const bad = [
      { data: big.subarray(0, 4096), stride: [1000, 1] }, // rows past the data's end
      { data: big.subarray(8000, 12096), stride: [-512, 1] }, // rows before its start
      { data: big.subarray(0, 4096), stride: [Number.NaN, 1] },
      { data: big.subarray(0, 4096), stride: [512.5, 1] },
      { data: big.subarray(0, 4096), stride: ["512", 1] },
      { data: big.subarray(0, 4096), stride: [512] },
      { data: big.subarray(0, 4096), stride: "512,1" },
    ];
    for (const store of [new GatheringStore(), new MemoryStore()]) {
      const a = await createArray(store, "a", {
        shape: [8, 512],
        dataType: "float32",
        chunkShape: [4, 256],
      });
      for (const { data, stride } of bad) {
        const error = await a
          .set(null, { data, shape: [8, 512], stride } as never)
          .catch((e: unknown) => e);
        expect(error, JSON.stringify(stride)).toBeInstanceOf(IndexError);
        expect((error as Error).message).toContain("value strides");
      }
      expect([...store.map.keys()].filter((k) => k.startsWith("a/c/"))).toEqual([]);
      // In bounds: padded rows and a zero stride (one row broadcast) are fine.
      await a.set(null, {
        data: big.subarray(0, 7 * 600 + 512),
        shape: [8, 512],
        stride: [600, 1],
      });
      const { data } = await a.get(null);
      expect(data[7 * 512 + 511]).toBe(big[7 * 600 + 511]);
      await a.set(null, { data: big.subarray(0, 4096), shape: [8, 512], stride: [0, 1] });
      expect((await a.get(null)).data[7 * 512 + 5]).toBe(6);
    }
  });

  it("values that are views into a larger buffer, or in shared memory, gather from their own bytes", async () => {
    for (const backing of [new ArrayBuffer(4 * 2048 + 12), new SharedArrayBuffer(4 * 2048 + 12)]) {
      const store = new GatheringStore();
      const a = await createArray(store, "a", {
        shape: [4, 512],
        dataType: "float32",
        chunkShape: [4, 256],
      });
      const whole = new Float32Array(backing).map((_, k) => k);
      const value = whole.subarray(3, 3 + 2048);
      await a.set(null, value);
      expect(store.calls).toBe(2);
      expect(Array.from((await a.get(null)).data)).toEqual(Array.from(value));
    }
  });
});

describe("Store.setFrom (core's fallback for stores without it)", () => {
  it("joins the views and calls set; rejects what is not a Uint8Array, writing nothing", async () => {
    const inner = new MemoryStore();
    const store = resolveStore(inner);
    expect(store.gathersOnSet).toBe(false);
    expect(resolveStore(new GatheringStore()).gathersOnSet).toBe(true);
    const bytes = new Uint8Array([1, 2, 3, 4, 5, 6]);
    await store.setFrom("k", [bytes.subarray(0, 2), new Uint8Array(0), bytes.subarray(2)]);
    expect(Array.from(inner.map.get("k") ?? [])).toEqual([1, 2, 3, 4, 5, 6]);
    bytes.fill(0);
    expect(Array.from(inner.map.get("k") ?? [])).toEqual([1, 2, 3, 4, 5, 6]);
    await store.setFrom("empty", []);
    expect(inner.map.get("empty")?.length).toBe(0);
    for (const bad of [[new Uint16Array(2)], ["x"], "x", null]) {
      await expect(store.setFrom("bad", bad as never)).rejects.toThrow(/Uint8Array/);
    }
    expect(inner.map.has("bad")).toBe(false);
    await expect(store.setFrom("../x", [bytes])).rejects.toThrow();
    // One view instead of a list: rejected, never stored as an empty value.
    await expect(store.setFrom("one", bytes as never)).rejects.toThrow(/array of Uint8Array/);
    expect(inner.map.has("one")).toBe(false);
  });
});

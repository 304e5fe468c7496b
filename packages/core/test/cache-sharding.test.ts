/**
 * ChunkCache with sharded arrays (v3 "sharding_indexed") and worker pools.
 * Sharded arrays cache decoded inner chunks, not whole shards: a viewer
 * reads regions, and a region needs a few inner chunks of a shard; caching
 * them lets overlapping regions share entries, and a region whose inner
 * chunks are all cached makes no request (not even for the shard index).
 */
import {
  ChunkCache,
  CountingStore,
  createArray,
  MemoryStore,
  openArray,
  slice,
  type ZarrArray,
} from "@zarr/core";
import type { CodecPipeline } from "@zarr/core/codec";
import { describe, expect, it } from "vitest";

async function sharded(store: CountingStore | MemoryStore) {
  const a = await createArray(store, "s", {
    shape: [32, 32],
    dataType: "uint16",
    chunkShape: [16, 16],
    codecs: [
      {
        name: "sharding_indexed",
        configuration: {
          chunk_shape: [4, 4],
          codecs: [{ name: "bytes", configuration: { endian: "big" } }],
          index_codecs: [
            { name: "bytes", configuration: { endian: "little" } },
            { name: "crc32c" },
          ],
        },
      },
    ],
  });
  await a.set(
    null,
    Uint16Array.from({ length: 32 * 32 }, (_, i) => i),
  );
  return a;
}

const values = (r: { data: unknown }) => Array.from(r.data as ArrayLike<number>);
const expected = (rows: [number, number], cols: [number, number]) => {
  const v: number[] = [];
  for (let y = rows[0]; y < rows[1]; y++)
    for (let x = cols[0]; x < cols[1]; x++) v.push(y * 32 + x);
  return v;
};

describe("ChunkCache: sharded arrays cache inner chunks", () => {
  it("a cached region makes no request; an overlapping one reads only the inner chunks it lacks", async () => {
    const counting = new CountingStore(new MemoryStore());
    const a = await sharded(counting);
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    counting.reset();
    const first = await a.get([slice(1, 7), slice(1, 7)], { chunkCache }); // 4 inner chunks of shard (0, 0)
    expect(values(first)).toEqual(expected([1, 7], [1, 7]));
    expect(chunkCache.size).toBe(4);
    counting.reset();
    const again = await a.get([slice(0, 8), slice(0, 8)], { chunkCache });
    expect(values(again)).toEqual(expected([0, 8], [0, 8]));
    expect(counting.counts.reads).toBe(0);
    counting.reset();
    const panned = await a.get([slice(0, 8), slice(4, 12)], { chunkCache }); // 2 of 4 cached
    expect(values(panned)).toEqual(expected([0, 8], [4, 12]));
    // The index, then the two missing inner chunks (adjacent: one merged range).
    expect(counting.counts.reads).toBe(2);
    expect(chunkCache.size).toBe(6);
    // A whole shard (the read covers it) is assembled from inner chunks too.
    counting.reset();
    const whole = await a.get([slice(0, 16), slice(0, 16)], { chunkCache });
    expect(values(whole)).toEqual(expected([0, 16], [0, 16]));
    expect(chunkCache.size).toBe(16);
    counting.reset();
    expect(values(await a.get(null, { chunkCache }))).toEqual(expected([0, 32], [0, 32]));
    expect(chunkCache.size).toBe(64);
    counting.reset();
    expect(values(await a.get(null, { chunkCache }))).toEqual(expected([0, 32], [0, 32]));
    expect(counting.counts.reads).toBe(0);
  });

  it("missing shards and missing inner chunks read as the fill value, and are remembered", async () => {
    const counting = new CountingStore(new MemoryStore());
    const a = await sharded(counting);
    await a.set([slice(16, 32), null], 0); // shards (1, *) erased
    await a.set([slice(0, 4), slice(0, 4)], 0); // inner chunk (0, 0) of shard (0, 0) left out
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    const want = expected([0, 32], [0, 32]).map((v, i) =>
      i >= 16 * 32 || (i < 4 * 32 && i % 32 < 4) ? 0 : v,
    );
    expect(values(await a.get(null, { chunkCache }))).toEqual(want);
    counting.reset();
    expect(values(await a.get(null, { chunkCache }))).toEqual(want);
    expect(counting.counts.reads).toBe(0);
  });

  it("a write to a shard through another handle drops that shard's inner chunks", async () => {
    const store = new MemoryStore();
    const reader = await sharded(store);
    const writer = await openArray(store, "s");
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    await reader.get(null, { chunkCache });
    expect(chunkCache.size).toBe(64);
    await writer.set([5, 5], 9999);
    expect(chunkCache.size).toBe(48); // the 16 inner chunks of shard (0, 0)
    const want = expected([0, 32], [0, 32]);
    want[5 * 32 + 5] = 9999;
    expect(values(await reader.get(null, { chunkCache }))).toEqual(want);
  });

  it("concurrent reads of one inner chunk decode it once", async () => {
    const counting = new CountingStore(new MemoryStore());
    const a = await sharded(counting);
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    counting.reset();
    const rs = await Promise.all(
      Array.from({ length: 6 }, () => a.get([slice(2, 3), slice(2, 3)], { chunkCache })),
    );
    for (const r of rs) expect(values(r)).toEqual([2 * 32 + 2]);
    expect(chunkCache.stats.misses).toBe(1);
    expect(chunkCache.stats.hits).toBe(5);
    expect(counting.counts.reads).toBe(2); // index + inner chunk, once
  });
});

/**
 * A pool that runs codecs in-thread and, like a real pool, takes (detaches)
 * the chunks it may transfer to its workers and hands back fresh buffers.
 */
function detachingPool() {
  const calls = { decode: 0, encode: 0 };
  const detach = (data: ArrayBufferView) =>
    structuredClone(data.buffer, { transfer: [data.buffer as ArrayBuffer] });
  const pool = {
    async decode(pipeline: CodecPipeline, bytes: Uint8Array, _c: unknown, options?: object) {
      calls.decode++;
      const chunk = await pipeline.decode(bytes, options);
      return { ...chunk, data: (chunk.data as Uint16Array).slice() };
    },
    async encode(
      pipeline: CodecPipeline,
      chunk: { data: unknown },
      _c: unknown,
      options?: { transfer?: boolean; signal?: AbortSignal },
    ) {
      calls.encode++;
      const bytes = (await pipeline.encode(chunk as never, options)).slice();
      if (options?.transfer) detach(chunk.data as Uint16Array);
      return bytes;
    },
  };
  return { pool, calls };
}

describe("ChunkCache with a worker pool", () => {
  for (const kind of ["plain", "sharded"] as const) {
    it(`${kind}: chunks decoded in the pool are cached; writes that transfer buffers leave the cache intact`, async () => {
      const store = new MemoryStore();
      const a =
        kind === "sharded"
          ? await sharded(store)
          : await createArray(store, "s", {
              shape: [32, 32],
              dataType: "uint16",
              chunkShape: [8, 8],
            });
      if (kind === "plain")
        await a.set(
          null,
          Uint16Array.from({ length: 1024 }, (_, i) => i),
        );
      const { pool, calls } = detachingPool();
      const workers = pool as unknown as NonNullable<typeof ZarrArray.defaultWorkers>;
      const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
      expect(values(await a.get(null, { chunkCache, workers }))).toEqual(
        expected([0, 32], [0, 32]),
      );
      const decoded = calls.decode;
      expect(decoded).toBeGreaterThan(0);
      expect(values(await a.get(null, { chunkCache, workers }))).toEqual(
        expected([0, 32], [0, 32]),
      );
      expect(calls.decode).toBe(decoded);
      // Whole chunks written through the pool: fresh buffers, which it takes.
      await a.set([slice(0, 16), slice(0, 16)], 1, { workers });
      expect(calls.encode).toBeGreaterThan(0);
      const want = expected([0, 32], [0, 32]).map((v, i) => (i < 16 * 32 && i % 32 < 16 ? 1 : v));
      expect(values(await a.get(null, { chunkCache, workers }))).toEqual(want);
      expect(values(await a.get(null, { chunkCache }))).toEqual(want);
    });
  }
});

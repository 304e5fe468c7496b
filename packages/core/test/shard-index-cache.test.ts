/**
 * ShardIndexCache: repeated partial reads of a shard skip the index request
 * (v3 sharding_indexed: the index is read before the inner chunks); writes
 * through the same cache drop the index of the shard they replace; stores
 * with the same keys never share entries; the cache is bounded.
 */
import { CountingStore, createArray, MemoryStore, slice } from "@zarr/core";
import { ShardIndexCache } from "@zarr/core/builtin-codecs";
import { describe, expect, it } from "vitest";

async function shardedArray(store: CountingStore | MemoryStore, name = "s") {
  const a = await createArray(store, name, {
    shape: [32, 32],
    dataType: "uint16",
    chunkShape: [16, 16],
    codecs: [
      {
        name: "sharding_indexed",
        configuration: {
          chunk_shape: [4, 4],
          codecs: [{ name: "bytes", configuration: { endian: "little" } }],
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

const region = [slice(1, 3), slice(5, 7)]; // one inner chunk of shard (0, 0)
const want = [37, 38, 69, 70];

describe("ShardIndexCache", () => {
  it("a second read of the same shard makes one request instead of two", async () => {
    const counting = new CountingStore(new MemoryStore());
    const a = await shardedArray(counting);
    const shardIndexCache = new ShardIndexCache();
    counting.reset();
    const first = await a.get(region, { shardIndexCache });
    const coldReads = counting.counts.reads;
    counting.reset();
    const second = await a.get(region, { shardIndexCache });
    const warmReads = counting.counts.reads;
    expect(Array.from(first.data as Uint16Array)).toEqual(want);
    expect(Array.from(second.data as Uint16Array)).toEqual(want);
    expect(coldReads).toBe(2);
    expect(warmReads).toBe(1);
    expect(shardIndexCache.size).toBe(1);
    // Without the cache, every read loads the index.
    counting.reset();
    await a.get(region);
    expect(counting.counts.reads).toBe(2);
  });

  it("a write through the same cache drops the shard's index; reads see the new data", async () => {
    const store = new MemoryStore();
    const a = await shardedArray(store);
    const shardIndexCache = new ShardIndexCache();
    await a.get(region, { shardIndexCache });
    // Rewrite the shard so that its inner chunks move (one chunk becomes the fill value).
    await a.set([slice(0, 4), slice(0, 4)], 0, { shardIndexCache });
    await a.set(region, 7, { shardIndexCache });
    expect(Array.from((await a.get(region, { shardIndexCache })).data as Uint16Array)).toEqual([
      7, 7, 7, 7,
    ]);
    expect(
      Array.from((await a.get([0, slice(0, 2)], { shardIndexCache })).data as Uint16Array),
    ).toEqual([0, 0]);
  });

  it("stores with the same keys do not share entries; the cache is bounded", async () => {
    const one = await shardedArray(new MemoryStore());
    const two = await shardedArray(new MemoryStore());
    await two.set(region, 9);
    const shardIndexCache = new ShardIndexCache({ maxEntries: 2 });
    expect(Array.from((await one.get(region, { shardIndexCache })).data as Uint16Array)).toEqual(
      want,
    );
    expect(Array.from((await two.get(region, { shardIndexCache })).data as Uint16Array)).toEqual([
      9, 9, 9, 9,
    ]);
    expect(shardIndexCache.size).toBe(2);
    await one.get([slice(20, 22), slice(20, 22)], { shardIndexCache }); // shard (1, 1)
    expect(shardIndexCache.size).toBe(2);
    shardIndexCache.clear();
    expect(shardIndexCache.size).toBe(0);
    expect(() => new ShardIndexCache({ maxEntries: 0 })).toThrow(RangeError);
  });
});

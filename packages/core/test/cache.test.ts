/**
 * ChunkCache (decoded chunks kept across reads, `ReadOptions.chunkCache`):
 * hits skip the store, the cache stays within `maxBytes` (least recently used
 * out), writes through any handle on the same store drop what they replace,
 * big-endian data is cached decoded (host order) and never re-swapped,
 * concurrent reads of one chunk decode it once, and nothing a caller does to
 * a result changes what later reads get.
 */
import {
  ChunkCache,
  CodecError,
  CountingStore,
  createArray,
  MemoryStore,
  openArray,
  registerCodec,
  slice,
} from "@zarr/core";
import type { BytesToBytesCodec, CodecFactory } from "@zarr/core/codec";
import { beforeAll, describe, expect, it } from "vitest";

/** Decodes counted by codec name: an identity bytes -> bytes codec whose decode hands back its input. */
const decodes = new Map<string, number>();

function countingCodec(name: string): CodecFactory {
  return {
    kind: "bytes_to_bytes",
    fromConfig(): BytesToBytesCodec {
      return {
        kind: "bytes_to_bytes",
        name,
        toJSON: () => ({ name }),
        encode: (bytes) => bytes.slice(),
        async decode(bytes) {
          decodes.set(name, (decodes.get(name) ?? 0) + 1);
          await new Promise((resolve) => setTimeout(resolve, 1)); // let concurrent reads meet
          if (bytes[0] === 0xff && bytes[1] === 0xfe) throw new CodecError(`${name}: damaged`);
          return bytes; // a view of the stored value: the cache must copy it
        },
      };
    },
  };
}

beforeAll(() => {
  registerCodec("test.cache-count", countingCodec("test.cache-count"));
});

const CHUNK_BYTES = 16 * 16 * 4;
/**
 * What an entry of a stored chunk counts beside its values (ChunkCache's
 * TSDoc): 352 + 288 bytes plus 2 per character of its key, store id and
 * separators included (`<id>\0<key>\0`).
 */
const overhead = (key: string, storeIdDigits: number) => 640 + 2 * (storeIdDigits + key.length + 2);
/** The store id's digits of the entries in `cache`, from its bytes (one entry of `key`, values `values` bytes). */
function storeIdDigits(cache: ChunkCache, key: string, values: number): number {
  const digits = ((cache.bytes - values - 640) / 2 - key.length - 2) / cache.size;
  expect(Number.isInteger(digits) && digits >= 1 && digits <= 6).toBe(true);
  return digits;
}

/** A 64 × 64 float32 array in 16 × 16 chunks holding 0, 1, 2, ... in C order. */
async function grid(store: CountingStore | MemoryStore, path = "a") {
  const a = await createArray(store, path, {
    shape: [64, 64],
    dataType: "float32",
    chunkShape: [16, 16],
    codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "test.cache-count" }],
  });
  await a.set(
    null,
    Float32Array.from({ length: 64 * 64 }, (_, i) => i),
  );
  return a;
}

const values = (r: { data: unknown }) => Array.from(r.data as ArrayLike<number>);
const expected = (rows: [number, number], cols: [number, number]) => {
  const v: number[] = [];
  for (let y = rows[0]; y < rows[1]; y++)
    for (let x = cols[0]; x < cols[1]; x++) v.push(y * 64 + x);
  return v;
};

describe("ChunkCache: hits", () => {
  it("a repeated read makes no store request; an overlapping one reads only the new chunks", async () => {
    const counting = new CountingStore(new MemoryStore());
    const a = await grid(counting);
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    counting.reset();
    const first = await a.get([slice(8, 24), slice(8, 24)], { chunkCache }); // 4 chunks
    expect(counting.counts.reads).toBe(4);
    expect(values(first)).toEqual(expected([8, 24], [8, 24]));
    counting.reset();
    const again = await a.get([slice(8, 24), slice(8, 24)], { chunkCache });
    expect(counting.counts.reads).toBe(0);
    expect(values(again)).toEqual(expected([8, 24], [8, 24]));
    counting.reset();
    const panned = await a.get([slice(8, 24), slice(20, 40)], { chunkCache }); // 4 chunks, 2 cached
    expect(counting.counts.reads).toBe(2);
    expect(values(panned)).toEqual(expected([8, 24], [20, 40]));
    expect(chunkCache.size).toBe(6);
    const one = new ChunkCache({ maxBytes: 1 << 20 });
    await a.get([0, 0], { chunkCache: one });
    const digits = storeIdDigits(one, "a/c/0/0", CHUNK_BYTES);
    expect(chunkCache.bytes).toBe(6 * (CHUNK_BYTES + overhead("a/c/0/0", digits)));
    expect(chunkCache.stats).toEqual({ hits: 6, misses: 6, evictions: 0 });
    // Without the cache, every read goes to the store.
    counting.reset();
    await a.get([slice(8, 24), slice(8, 24)]);
    expect(counting.counts.reads).toBe(4);
  });

  it("chunks that are not stored are remembered too (fill value, no request)", async () => {
    const counting = new CountingStore(new MemoryStore());
    const a = await createArray(counting, "sparse", {
      shape: [32],
      dataType: "int32",
      chunkShape: [8],
      fillValue: -1,
    });
    await a.set([slice(0, 8)], 5);
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    counting.reset();
    const first = await a.get(null, { chunkCache });
    expect(counting.counts.reads).toBe(4);
    expect(counting.counts.misses).toBe(3);
    counting.reset();
    const second = await a.get(null, { chunkCache });
    expect(counting.counts.reads).toBe(0);
    expect(values(second)).toEqual(values(first));
    expect(values(second)).toEqual([...new Array(8).fill(5), ...new Array(24).fill(-1)]);
  });

  it("arrays in other stores with the same keys, or at other paths, never share entries", async () => {
    const one = await grid(new MemoryStore());
    const two = await grid(new MemoryStore());
    await two.set([slice(0, 16), slice(0, 16)], 7);
    const store = new MemoryStore();
    const b = await grid(store, "b");
    const c = await grid(store, "c");
    await c.set([0, 0], -3);
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    const sel = [slice(0, 2), slice(0, 2)];
    expect(values(await one.get(sel, { chunkCache }))).toEqual([0, 1, 64, 65]);
    expect(values(await two.get(sel, { chunkCache }))).toEqual([7, 7, 7, 7]);
    expect(values(await b.get(sel, { chunkCache }))).toEqual([0, 1, 64, 65]);
    expect(values(await c.get(sel, { chunkCache }))).toEqual([-3, 1, 64, 65]);
    expect(chunkCache.size).toBe(4);
  });
});

describe("ChunkCache: size bound", () => {
  // Every key here is "a/c/Y/X" (one digit each), on stores whose ids have the same digits.
  let entry = 0;
  beforeAll(async () => {
    const a = await grid(new MemoryStore());
    const one = new ChunkCache({ maxBytes: 1 << 20 });
    await a.get([0, 0], { chunkCache: one });
    entry = CHUNK_BYTES + overhead("a/c/0/0", storeIdDigits(one, "a/c/0/0", CHUNK_BYTES));
  });
  const chunk = (cy: number, cx: number) => [
    slice(cy * 16, cy * 16 + 1),
    slice(cx * 16, cx * 16 + 1),
  ];

  it("keeps at most maxBytes, dropping the least recently used chunk first", async () => {
    const counting = new CountingStore(new MemoryStore());
    const a = await grid(counting);
    const chunkCache = new ChunkCache({ maxBytes: 2 * entry + 100 });
    await a.get(chunk(0, 0), { chunkCache });
    await a.get(chunk(0, 1), { chunkCache });
    await a.get(chunk(0, 0), { chunkCache }); // now (0, 1) is the least recently used
    await a.get(chunk(0, 2), { chunkCache });
    expect(chunkCache.size).toBe(2);
    expect(chunkCache.bytes).toBe(2 * entry);
    expect(chunkCache.bytes).toBeLessThanOrEqual(chunkCache.maxBytes);
    expect(chunkCache.stats.evictions).toBe(1);
    counting.reset();
    expect(values(await a.get(chunk(0, 0), { chunkCache }))).toEqual([0]);
    expect(counting.counts.reads).toBe(0);
    expect(values(await a.get(chunk(0, 1), { chunkCache }))).toEqual([16]);
    expect(counting.counts.reads).toBe(1);
  });

  it("a read larger than the cache stays within maxBytes; a chunk larger than maxBytes is read but not kept", async () => {
    const counting = new CountingStore(new MemoryStore());
    const a = await grid(counting);
    const small = new ChunkCache({ maxBytes: 3 * entry });
    const all = await a.get(null, { chunkCache: small });
    expect(values(all)).toEqual(expected([0, 64], [0, 64]));
    expect(small.size).toBe(3);
    expect(small.bytes).toBeLessThanOrEqual(3 * entry);
    const tiny = new ChunkCache({ maxBytes: entry - 1 });
    counting.reset();
    expect(values(await a.get(chunk(1, 1), { chunkCache: tiny }))).toEqual([16 * 64 + 16]);
    expect(values(await a.get(chunk(1, 1), { chunkCache: tiny }))).toEqual([16 * 64 + 16]);
    expect(counting.counts.reads).toBe(2);
    expect(tiny.size).toBe(0);
    expect(tiny.bytes).toBe(0);
  });

  it("maxBytes must be a non-negative safe integer", () => {
    expect(() => new ChunkCache({ maxBytes: -1 })).toThrow(RangeError);
    expect(() => new ChunkCache({ maxBytes: 1.5 })).toThrow(RangeError);
    expect(() => new ChunkCache({ maxBytes: Number.NaN })).toThrow(RangeError);
    expect(new ChunkCache({ maxBytes: 0 }).maxBytes).toBe(0);
  });
});

describe("ChunkCache: invalidation", () => {
  it("set, setChunk and erasing through another handle on the same store drop the entries they replace", async () => {
    const counting = new CountingStore(new MemoryStore());
    const reader = await grid(counting);
    const writer = await openArray(counting, "a");
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    const sel = [slice(0, 32), slice(0, 32)];
    await reader.get(sel, { chunkCache });
    expect(chunkCache.size).toBe(4);
    await writer.set([3, 4], -1); // chunk (0, 0)
    expect(chunkCache.size).toBe(3);
    counting.reset();
    const after = await reader.get(sel, { chunkCache });
    expect(counting.counts.reads).toBe(1);
    const want = expected([0, 32], [0, 32]);
    want[3 * 32 + 4] = -1;
    expect(values(after)).toEqual(want);
    await writer.setChunk([1, 1], { data: new Float32Array(256).fill(2.5) });
    // A chunk of fill values is erased: the erase drops the entry as well.
    await writer.setChunk([0, 1], { data: new Float32Array(256) });
    const last = await reader.get([slice(16, 17), slice(16, 17)], { chunkCache });
    expect(values(last)).toEqual([2.5]);
    expect(values(await reader.get([0, slice(16, 18)], { chunkCache }))).toEqual([0, 0]);
  });

  it("resize through another handle: erased chunks read as the fill value, cleared edges as written", async () => {
    const store = new MemoryStore();
    const reader = await grid(store);
    const writer = await openArray(store, "a");
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    await reader.get(null, { chunkCache });
    expect(chunkCache.size).toBe(16);
    await writer.resize([24, 64], { clearEdges: true });
    await writer.resize([64, 64]);
    const fresh = await openArray(store, "a");
    const cached = await fresh.get([slice(20, 40), 0], { chunkCache });
    const direct = await fresh.get([slice(20, 40), 0]);
    expect(values(cached)).toEqual(values(direct));
    expect(values(cached)).toEqual([20 * 64, 21 * 64, 22 * 64, 23 * 64, ...new Array(16).fill(0)]);
  });

  it("an array re-created at the same path with another data type never gets the old entries", async () => {
    const store = new MemoryStore();
    const old = await grid(store);
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    await old.get(null, { chunkCache });
    // Written through another store object on the same memory: the cache cannot see it.
    const other = {
      get: store.get.bind(store),
      set: store.set.bind(store),
      erase: store.erase.bind(store),
      list: store.list.bind(store),
    };
    const again = await createArray(other, "a", {
      shape: [64, 64],
      dataType: "int32",
      chunkShape: [16, 16],
      overwrite: true,
      codecs: [
        { name: "bytes", configuration: { endian: "little" } },
        { name: "test.cache-count" },
      ],
    });
    await again.set(null, 9);
    const reopened = await openArray(store, "a");
    const r = await reopened.get([0, slice(0, 3)], { chunkCache });
    expect(r.data).toBeInstanceOf(Int32Array);
    expect(values(r)).toEqual([9, 9, 9]);
  });

  it("writes through another store object are not seen until invalidate(store, path) or clear()", async () => {
    const memory = new MemoryStore();
    const a = await grid(memory);
    const b = await grid(memory, "b");
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    await a.get([0, 0], { chunkCache });
    await b.get([0, 0], { chunkCache });
    const elsewhere = await openArray(new CountingStore(memory), "a");
    await elsewhere.set([0, 0], 42);
    await (await openArray(new CountingStore(memory), "b")).set([0, 0], 43);
    expect(values(await a.get([0, 0], { chunkCache }))).toEqual([0]); // bounded staleness
    chunkCache.invalidate(a.store, "a");
    expect(values(await a.get([0, 0], { chunkCache }))).toEqual([42]);
    expect(values(await b.get([0, 0], { chunkCache }))).toEqual([0]); // another path: kept
    chunkCache.invalidate(memory);
    expect(values(await b.get([0, 0], { chunkCache }))).toEqual([43]);
    chunkCache.clear();
    expect(chunkCache.size).toBe(0);
    expect(chunkCache.bytes).toBe(0);
  });

  it("a write landing while a read loads: the read's old value is not kept", async () => {
    const memory = new MemoryStore();
    await grid(memory);
    // A store whose reads of chunk (0, 0) fetch the value, then wait for the gate.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let fetched!: () => void;
    const wasFetched = new Promise<void>((resolve) => {
      fetched = resolve;
    });
    const gated = {
      async get(key: string, range?: Parameters<MemoryStore["get"]>[1]) {
        const value = await memory.get(key, range);
        if (key === "a/c/0/0") {
          fetched();
          await gate;
        }
        return value;
      },
      set: memory.set.bind(memory),
      erase: memory.erase.bind(memory),
    };
    const reader = await openArray(gated, "a");
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    const reading = reader.get([0, 0], { chunkCache });
    await wasFetched; // the old value is in hand
    await reader.setChunk([0, 0], { data: new Float32Array(256).fill(11) });
    open();
    expect(values(await reading)).toEqual([0]); // concurrent with the write: either value
    expect(chunkCache.size).toBe(0);
    expect(values(await reader.get([0, 0], { chunkCache }))).toEqual([11]);
    expect(values(await reader.get([0, 0], { chunkCache }))).toEqual([11]);
  });
});

describe("ChunkCache: values are the cache's own", () => {
  it("big-endian float64 (bytes codec, endian big) reads the same on every read", async () => {
    // zarrita #431: a cache of raw bytes decoded in place returned byte-swapped data every second read.
    const store = new MemoryStore();
    const a = await createArray(store, "be", {
      shape: [6, 6],
      dataType: "float64",
      chunkShape: [3, 3],
      codecs: [{ name: "bytes", configuration: { endian: "big" } }],
    });
    const want = Array.from({ length: 36 }, (_, i) => i * 1.5 - 7.25);
    await a.set(null, Float64Array.from(want));
    // Stored big-endian (v3 "bytes" codec, endian "big").
    const raw = await store.get("be/c/0/0");
    expect(new DataView(raw!.buffer, raw!.byteOffset).getFloat64(8, false)).toBe(want[1]);
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    for (let i = 0; i < 4; i++) {
      expect(values(await a.get(null, { chunkCache }))).toEqual(want);
      expect(values(await a.get([slice(1, 5), slice(2, 4)], { chunkCache }))).toEqual(
        [1, 2, 3, 4].flatMap((y) => [2, 3].map((x) => want[y * 6 + x])),
      );
    }
  });

  it("a caller changing a result (or its out array) does not change the next read", async () => {
    const store = new MemoryStore();
    const a = await grid(store);
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    const first = await a.get([slice(0, 16), slice(0, 16)], { chunkCache }); // one whole chunk
    (first.data as Float32Array).fill(-5);
    const out = new Float32Array(256);
    await a.get([slice(0, 16), slice(0, 16)], { chunkCache, out });
    expect(Array.from(out)).toEqual(expected([0, 16], [0, 16]));
    out.fill(-6);
    const third = await a.get([slice(0, 16), slice(0, 16)], { chunkCache });
    expect(values(third)).toEqual(expected([0, 16], [0, 16]));
    // The stored value is not the cached one either (the codec hands back a view of it).
    const stored = await store.get("a/c/0/0");
    stored!.fill(0);
    expect(values(await a.get([0, slice(0, 3)], { chunkCache }))).toEqual([0, 1, 2]);
  });

  it("strings are cached and copied out", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "s", { shape: [4], dataType: "string", chunkShape: [2] });
    await a.set(null, ["a", "bb", "ccc", "dddd"]);
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    const first = await a.get(null, { chunkCache });
    (first.data as string[])[0] = "changed";
    expect((await a.get(null, { chunkCache })).data).toEqual(["a", "bb", "ccc", "dddd"]);
    expect(chunkCache.size).toBe(2);
  });
});

describe("ChunkCache: concurrent reads", () => {
  it("concurrent reads of the same chunks read and decode each one once", async () => {
    const counting = new CountingStore(new MemoryStore());
    const a = await grid(counting);
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    counting.reset();
    const before = decodes.get("test.cache-count") ?? 0;
    const sel = [slice(10, 30), slice(10, 30)]; // 4 chunks
    const results = await Promise.all(Array.from({ length: 8 }, () => a.get(sel, { chunkCache })));
    expect((decodes.get("test.cache-count") ?? 0) - before).toBe(4);
    expect(counting.counts.reads).toBe(4);
    for (const r of results) expect(values(r)).toEqual(expected([10, 30], [10, 30]));
  });

  it("a reader that aborts does not end the load another reader shares", async () => {
    const store = new MemoryStore();
    const a = await grid(store);
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    const controller = new AbortController();
    const aborted = a.get([0, 0], { chunkCache, signal: controller.signal });
    const other = a.get([0, 0], { chunkCache });
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ name: "AbortError" });
    expect(values(await other)).toEqual([0]);
  });

  it("a chunk that fails to decode fails every reader waiting on it, and is not kept", async () => {
    const store = new MemoryStore();
    const a = await grid(store);
    const damaged = new Uint8Array(CHUNK_BYTES);
    damaged[0] = 0xff;
    damaged[1] = 0xfe;
    await store.set("a/c/0/0", damaged);
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    const reads = [a.get([0, 0], { chunkCache }), a.get([0, 1], { chunkCache })];
    for (const r of reads) await expect(r).rejects.toThrow(/chunk "a\/c\/0\/0".*damaged/);
    expect(chunkCache.size).toBe(0);
    await a.setChunk([0, 0], { data: new Float32Array(256).fill(1) });
    expect(values(await a.get([0, 0], { chunkCache }))).toEqual([1]);
  });
});

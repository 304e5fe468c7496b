/**
 * ChunkCache under concurrency and misuse: findings of the outside review
 * (attack 21, scripts a15, a17, a11, a05, a12, a07) — each test cites its finding.
 */
import { type AnyStore, ChunkCache, createArray, MemoryStore, openArray } from "@zarr/core";
import { describe, expect, it } from "vitest";

const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

/** A store over `mem` whose chunk writes wait for `hold` and whose chunk reads are logged (with their signal). */
function slowStore(mem = new MemoryStore()) {
  const state: {
    hold?: Promise<void>;
    readDelay: number;
    gets: AbortSignal[];
    aborted: number;
    /** Delayed chunk reads that ran to the end: [had a signal]. */
    completed: boolean[];
  } = { readDelay: 0, gets: [], aborted: 0, completed: [] };
  const isChunk = (k: string) => /\/c\//.test(k);
  const store = {
    async get(key: string, range?: unknown, options?: { signal?: AbortSignal }) {
      if (isChunk(key) && state.readDelay > 0) {
        const signal = options?.signal;
        if (signal) state.gets.push(signal);
        if (signal?.aborted) {
          state.aborted++;
          throw signal.reason;
        }
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(resolve, state.readDelay);
          signal?.addEventListener("abort", () => {
            clearTimeout(t);
            state.aborted++;
            reject(signal.reason);
          });
        });
        state.completed.push(signal !== undefined);
      }
      return mem.get(key, range as never, options as never);
    },
    async set(key: string, value: Uint8Array, options?: unknown) {
      if (isChunk(key) && state.hold) await state.hold;
      return mem.set(key, value, options as never);
    },
    erase: (key: string) => mem.erase(key),
    list: () => mem.list(),
    listPrefix: (p: string) => mem.listPrefix(p),
    listDir: (p: string) => mem.listDir(p),
  };
  return { store, state };
}

describe("ChunkCache: a write in flight when a store is first read through a cache (finding 1, a15)", () => {
  it("the read during the write is not kept: after the write, cached reads see the new value", async () => {
    const { store, state } = slowStore();
    const a = await createArray(store, "a", { shape: [4], dataType: "int32", chunkShape: [4] });
    await a.set(null, 1);
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    let release!: () => void;
    state.hold = new Promise((resolve) => {
      release = resolve;
    });
    const write = a.set(null, 2);
    await tick(10);
    const during = await a.get(null, { chunkCache }); // the first cached read of this store
    expect(Array.from(during.data as Int32Array)).toEqual([1, 1, 1, 1]);
    state.hold = undefined;
    release();
    await write;
    const after = await a.get(null, { chunkCache });
    expect(Array.from(after.data as Int32Array)).toEqual([2, 2, 2, 2]);
  });

  it("a load that started before a write and ends after it is not kept (store already known)", async () => {
    const { store, state } = slowStore();
    const a = await createArray(store, "a", { shape: [4], dataType: "int32", chunkShape: [4] });
    await a.set(null, 1);
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    await a.get(null, { chunkCache });
    chunkCache.clear();
    state.readDelay = 30;
    const reading = a.get(null, { chunkCache });
    await tick(5);
    await a.set(null, 3); // lands while the read is in flight
    await reading;
    state.readDelay = 0;
    const after = await a.get(null, { chunkCache });
    expect(Array.from(after.data as Int32Array)).toEqual([3, 3, 3, 3]);
  });
});

describe("ChunkCache: aborting reads (finding 3, a17)", () => {
  it("a single reader's abort cancels the store request, and nothing is kept", async () => {
    const { store, state } = slowStore();
    const a = await createArray(store, "t", { shape: [4], dataType: "int32", chunkShape: [4] });
    await a.set(null, 1);
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    state.readDelay = 200;
    const ac = new AbortController();
    const reading = a.get(null, { chunkCache, signal: ac.signal });
    await tick(10);
    ac.abort();
    await expect(reading).rejects.toThrow();
    expect(state.gets.length).toBe(1);
    expect(state.gets[0].aborted).toBe(true);
    expect(state.aborted).toBe(1);
    await tick(10);
    expect(chunkCache.size).toBe(0);
  });

  it("a shared load runs on while one reader waits, and is cancelled when every reader has aborted", async () => {
    const { store, state } = slowStore();
    const a = await createArray(store, "t", { shape: [4], dataType: "int32", chunkShape: [4] });
    await a.set(null, 7);
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    state.readDelay = 60;
    const ac1 = new AbortController();
    const first = a.get(null, { chunkCache, signal: ac1.signal });
    const second = a.get(null, { chunkCache });
    await tick(10);
    ac1.abort();
    await expect(first).rejects.toThrow();
    const got = await second;
    expect(Array.from(got.data as Int32Array)).toEqual([7, 7, 7, 7]);
    expect(state.aborted).toBe(0);
    expect(chunkCache.size).toBe(1);

    chunkCache.clear();
    const ac2 = new AbortController();
    const ac3 = new AbortController();
    const r2 = a.get(null, { chunkCache, signal: ac2.signal });
    const r3 = a.get(null, { chunkCache, signal: ac3.signal });
    const r2done = expect(r2).rejects.toThrow(); // handled from the start
    const r3done = expect(r3).rejects.toThrow();
    await tick(10);
    ac2.abort();
    await tick(5);
    expect(state.aborted).toBe(0); // one reader still waits
    ac3.abort();
    await r2done;
    await r3done;
    await tick(5);
    expect(state.aborted).toBe(1);
    // A read after the cancelled load starts its own.
    const r4 = await a.get(null, { chunkCache });
    expect(Array.from(r4.data as Int32Array)).toEqual([7, 7, 7, 7]);
  });
});

describe("ChunkCache: readers share a load only under the same decode limits (finding 4, a11)", () => {
  it("a strict reader's limit does not fail a default reader, and the strict reader still fails", async () => {
    const store = new MemoryStore();
    const s = await createArray(store, "s", { shape: [4], dataType: "string", chunkShape: [4] });
    await s.set(null, ["x".repeat(100), "y", "z", "w"]);
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    const [strict, lax] = await Promise.allSettled([
      s.get(null, { chunkCache, decodeLimits: { maxElementBytes: 10 } }),
      s.get(null, { chunkCache }),
    ]);
    expect(lax.status).toBe("fulfilled");
    expect(strict.status).toBe("rejected");
    // And the other way round: the lax reader first.
    chunkCache.clear();
    const [lax2, strict2] = await Promise.allSettled([
      s.get(null, { chunkCache }),
      s.get(null, { chunkCache, decodeLimits: { maxElementBytes: 10 } }),
    ]);
    expect(lax2.status).toBe("fulfilled");
    expect(strict2.status).toBe("rejected");
  });
});

describe("ChunkCache: bytes elements (finding 5, a05)", () => {
  it("concurrent readers of a bytes chunk get their own Uint8Array elements", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "b", { shape: [4], dataType: "bytes", chunkShape: [4] });
    await a.set(
      null,
      [1, 2, 3, 4].map((v) => new Uint8Array([v])),
    );
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    const [r1, r2] = await Promise.all([a.get(null, { chunkCache }), a.get(null, { chunkCache })]);
    const d1 = r1.data as Uint8Array[];
    const d2 = r2.data as Uint8Array[];
    expect(d1[0]).not.toBe(d2[0]);
    d1[0][0] = 99;
    expect(d2[0][0]).toBe(1);
  });
});

describe("ChunkCache: invalidate arguments (finding 7, a11)", () => {
  it("names the argument when the store is not an object", () => {
    const chunkCache = new ChunkCache({ maxBytes: 1024 });
    expect(() => chunkCache.invalidate(undefined as never)).toThrow(
      /invalidate: store must be a store object, got undefined/,
    );
    expect(() => chunkCache.invalidate("str" as never)).toThrow(
      /store must be a store object, got string/,
    );
    expect(() => chunkCache.invalidate(new MemoryStore(), 5 as never)).toThrow(
      /invalidate: path must be a string/,
    );
  });
});

describe("ChunkCache: what an entry counts (finding 2, a06/a08)", () => {
  it("each entry counts its bookkeeping (352 B), a stored chunk's array objects (288 B) and 2 bytes per key character", async () => {
    const store = new MemoryStore();
    const short = await createArray(store, "s", {
      shape: [4],
      dataType: "float64",
      chunkShape: [1],
    });
    const long = await createArray(store, "l".repeat(1000), {
      shape: [4],
      dataType: "float64",
      chunkShape: [1],
    });
    await short.set([0], 1);
    await long.set([0], 1);
    const count = async (a: typeof short, index: number) => {
      const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
      await a.get([index], { chunkCache });
      expect(chunkCache.size).toBe(1);
      return chunkCache.bytes;
    };
    const storedShort = await count(short, 0);
    const missingShort = await count(short, 1);
    expect(storedShort - missingShort).toBe(288 + 8); // array objects + one float64
    expect(missingShort).toBeGreaterThanOrEqual(352 + 2 * "s/c/1".length);
    expect((await count(long, 1)) - missingShort).toBe(2 * 999); // the path's extra characters
  });
});

describe("ChunkCache: aborting reads of a sharded array (finding 3, inner chunks)", () => {
  // The shard index read is shared per shard by every reader, cache or not, and runs on
  // (ShardIndexReader.shared); the inner chunks' reads are the cache's load.
  it("a single reader's abort cancels the inner chunks' store requests, and no inner chunk is kept", async () => {
    const { store, state } = slowStore();
    const a = await createArray(store, "s", {
      shape: [8, 8],
      dataType: "uint16",
      chunkShape: [8, 8],
      codecs: [
        {
          name: "sharding_indexed",
          configuration: {
            chunk_shape: [4, 4],
            codecs: [{ name: "bytes", configuration: { endian: "little" } }],
          },
        },
      ],
    });
    await a.set(null, 9);
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    state.readDelay = 200;
    const ac = new AbortController();
    const reading = a.get(null, { chunkCache, signal: ac.signal });
    await tick(10);
    ac.abort();
    await expect(reading).rejects.toThrow();
    await tick(450); // the index read (200 ms) ends, then the inner chunks' read would (200 ms)
    expect(state.completed).toEqual([false]); // only the shared index read ran to the end
    expect(state.gets.every((s) => s.aborted)).toBe(true);
    expect(chunkCache.size).toBe(0);
    state.readDelay = 0;
    const again = await a.get(null, { chunkCache });
    expect(Array.from(again.data as Uint16Array)).toEqual(new Array(64).fill(9));
  });
});

// Second attack round, finding 1: a read starting after a write joined a shard index
// read that began before it, paired the old index with the new bytes and cached that.
describe("a shard index read that began before a write is not shared past it", () => {
  const codecs = [
    {
      name: "sharding_indexed",
      configuration: {
        chunk_shape: [2],
        codecs: [{ name: "bytes", configuration: { endian: "little" } }],
      },
    },
  ];
  /** A store whose index (suffix) reads wait for `hold` while it is set. */
  function heldIndexStore() {
    const inner = new MemoryStore();
    const state: { hold?: Promise<void> } = {};
    const raw = {
      async get(key: string, range?: { suffix?: number }, options?: object) {
        const value = await inner.get(key, range as never, options as never);
        if (state.hold && range?.suffix !== undefined) await state.hold;
        return value;
      },
      set: (key: string, value: Uint8Array) => inner.set(key, value),
      erase: (key: string) => inner.erase(key),
    };
    return { store: raw as unknown as AnyStore, raw, state };
  }

  for (const how of ["a write through another handle", "invalidate() after an unseen write"]) {
    for (const cached of [true, false]) {
      it(`${how}, ${cached ? "with" : "without"} a cache: later reads see the new values`, async () => {
        const { store, raw, state } = heldIndexStore();
        const a = await createArray(store, "s", {
          shape: [8],
          dataType: "int32",
          chunkShape: [8],
          codecs,
          fillValue: 0,
        });
        await a.set(null, Int32Array.of(1, 1, 0, 0, 0, 0, 0, 0));
        const chunkCache = cached ? new ChunkCache({ maxBytes: 1 << 20 }) : undefined;
        let release = () => {};
        state.hold = new Promise<void>((r) => {
          release = r;
        });
        const first = a.get(null, { chunkCache }).catch(() => undefined);
        await new Promise((r) => setTimeout(r, 10));
        state.hold = undefined;
        if (how.startsWith("a write")) {
          await (await openArray(store, "s")).set(null, 2);
        } else {
          // Written through another store object over the same memory: the cache cannot see it.
          const other = await openArray(
            { get: raw.get, set: raw.set, erase: raw.erase } as unknown as AnyStore,
            "s",
          );
          await other.set(null, 2);
          chunkCache?.invalidate(store);
          if (!chunkCache) return release(); // nothing to invalidate without a cache
        }
        const second = a.get(null, { chunkCache });
        await new Promise((r) => setTimeout(r, 5));
        release();
        await first;
        expect(Array.from((await second).data as Int32Array)).toEqual(new Array(8).fill(2));
        expect(Array.from((await a.get(null, { chunkCache })).data as Int32Array)).toEqual(
          new Array(8).fill(2),
        );
      });
    }
  }
});

import { fileURLToPath } from "node:url";
import {
  AbortError,
  type AnyStore,
  CountingStore,
  MemoryStore,
  openArray,
  openGroup,
  openStore,
  type StoreOptions,
  slice,
} from "@zarr/core";
import type { ByteRange } from "@zarr/core/store";
import "@zarr/codec-blosc/register";
import "@zarr/store-fs/register";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CachingStore, ENTRY_OVERHEAD } from "zarr-store-cache";
import "zarr-store-cache/register";

const bytes = (...values: number[]) => Uint8Array.from(values);

function counted(initial: Record<string, Uint8Array> = {}) {
  const counting = new CountingStore(new MemoryStore(Object.entries(initial)), { log: true });
  return { counting, cache: new CachingStore(counting) };
}

/** A store whose reads wait until released, and which records the signals it saw. */
function gatedStore(initial: Record<string, Uint8Array>) {
  const memory = new MemoryStore(Object.entries(initial));
  const gates: (() => void)[] = [];
  const signals: AbortSignal[] = [];
  const store: AnyStore = {
    async get(key: string, range?: ByteRange, options?: StoreOptions) {
      const value = await memory.get(key, range);
      if (options?.signal) signals.push(options.signal);
      await new Promise<void>((resolve) => gates.push(resolve));
      return value;
    },
    set: (key, value) => memory.set(key, value),
    erase: (key) => memory.erase(key),
  };
  const release = () => {
    for (const open of gates.splice(0)) open();
  };
  return { store, release, signals };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("CachingStore caching", () => {
  it("answers repeated reads, and every range of a cached value, without the inner store", async () => {
    const { counting, cache } = counted({ k: bytes(1, 2, 3, 4, 5) });
    expect(await cache.get("k")).toEqual(bytes(1, 2, 3, 4, 5));
    expect(await cache.get("k")).toEqual(bytes(1, 2, 3, 4, 5));
    expect(await cache.get("k", { offset: 1, length: 2 })).toEqual(bytes(2, 3));
    expect(await cache.get("k", { suffix: 2 })).toEqual(bytes(4, 5));
    expect(await cache.getSize("k")).toBe(5);
    expect(counting.counts.reads).toBe(1);
    expect(cache.stats()).toMatchObject({ hits: 3, misses: 1, entries: 1 });
    expect(cache.stats().bytes).toBe(5 + ENTRY_OVERHEAD);
  });

  it("caches ranges on their own (a shard index read once), misses for any range", async () => {
    const { counting, cache } = counted({ shard: new Uint8Array(1000).fill(9) });
    for (let i = 0; i < 3; i++) {
      expect((await cache.get("shard", { suffix: 16 }))?.length).toBe(16);
      expect(await cache.get("absent", { offset: 0, length: 4 })).toBeUndefined();
      expect(await cache.get("absent")).toBeUndefined();
    }
    expect(counting.counts.log).toEqual(["shard[-16:]", "absent[0:4]"]);
  });

  it("writes through and drops what they touch (set, erase, erasePrefix, setPartialValues)", async () => {
    const { counting, cache } = counted({ "a/x": bytes(1), "a/y": bytes(2), b: bytes(3) });
    const resolvedGet = (key: string) => cache.get(key);
    for (const key of ["a/x", "a/y", "b", "missing"]) await resolvedGet(key);
    await cache.set!("missing", bytes(7));
    expect(await cache.get("missing")).toEqual(bytes(7));
    await cache.erase!("b");
    expect(await cache.get("b")).toBeUndefined();
    await cache.setPartialValues!([{ key: "a/x", offset: 1, value: bytes(8) }]);
    expect(await cache.get("a/x")).toEqual(bytes(1, 8));
    await cache.erasePrefix!("a/");
    expect(await cache.get("a/y")).toBeUndefined();
    expect(await counting.inner.get("missing")).toEqual(bytes(7));
  });

  it("never caches values above maxEntryBytes, and keeps the byte budget", async () => {
    const big = new Uint8Array(2000);
    const { counting, cache } = counted({ big, s1: new Uint8Array(100), s2: new Uint8Array(100) });
    const small = new CachingStore(counting, { maxBytes: 400, maxEntryBytes: 1000 });
    await small.get("big");
    await small.get("big");
    expect(counting.counts.reads).toBe(2);
    await small.get("s1");
    await small.get("s2");
    await small.get("s1"); // both fit: 2 × (100 + 64) <= 400
    expect(counting.counts.reads).toBe(4);
    expect(small.stats().bytes).toBeLessThanOrEqual(400);
    expect(cache.stats().entries).toBe(0);
  });

  it("has the capabilities of the inner store, no more", () => {
    const readOnly = new CachingStore({ get: async () => undefined });
    expect(readOnly.set).toBeUndefined();
    expect(readOnly.list).toBeUndefined();
    const full = new CachingStore(new MemoryStore());
    expect(typeof full.set).toBe("function");
    expect(typeof full.listDir).toBe("function");
  });

  it("rejects nonsensical sizes", () => {
    expect(() => new CachingStore(new MemoryStore(), { maxBytes: -1 })).toThrowError(/maxBytes/);
    expect(() => new CachingStore(new MemoryStore(), { maxEntryBytes: 0.5 })).toThrowError(
      /maxEntryBytes/,
    );
  });
});

describe("CachingStore concurrency", () => {
  it("concurrent reads of one key share one request; each gets its own copy", async () => {
    const { store, release } = gatedStore({ k: bytes(1, 2) });
    const cache = new CachingStore(store);
    const reads = [cache.get("k"), cache.get("k"), cache.get("k")];
    await tick();
    release();
    const values = await Promise.all(reads);
    values[0]![0] = 99;
    expect(values[1]).toEqual(bytes(1, 2));
    expect(cache.stats()).toMatchObject({ misses: 1, shared: 2 });
  });

  it("an aborted reader leaves the others alone; when all give up, the request is cancelled", async () => {
    const { store, release, signals } = gatedStore({ k: bytes(1), j: bytes(2) });
    const cache = new CachingStore(store);
    const first = new AbortController();
    const a = cache.get("k", undefined, { signal: first.signal });
    const b = cache.get("k");
    await tick();
    first.abort();
    await expect(a).rejects.toThrowError(AbortError);
    release();
    expect(await b).toEqual(bytes(1));

    const c1 = new AbortController();
    const c2 = new AbortController();
    const x = cache.get("j", undefined, { signal: c1.signal });
    const y = cache.get("j", undefined, { signal: c2.signal });
    await tick();
    c1.abort();
    await expect(x).rejects.toThrowError(AbortError);
    expect(signals.at(-1)!.aborted).toBe(false);
    c2.abort();
    await expect(y).rejects.toThrowError(AbortError);
    expect(signals.at(-1)!.aborted).toBe(true);
    release();
  });

  it("a read that overlaps a write is not cached, and later reads do not join it", async () => {
    const { store, release } = gatedStore({ k: bytes(1) });
    const cache = new CachingStore(store);
    const stale = cache.get("k"); // reads the old value, then waits
    await tick();
    await cache.set!("k", bytes(2));
    const fresh = cache.get("k"); // must not join the stale request
    await tick();
    release();
    expect(await stale).toEqual(bytes(1));
    expect(await fresh).toEqual(bytes(2));
    const again = cache.get("k");
    await tick();
    release();
    expect(await again).toEqual(bytes(2));
  });

  it("matches a plain MemoryStore under random operations (seeded)", async () => {
    const keys = ["a", "b", "c/d", "c/e"];
    const op = fc.oneof(
      fc.record({ kind: fc.constant("get" as const), key: fc.constantFrom(...keys) }),
      fc.record({
        kind: fc.constant("range" as const),
        key: fc.constantFrom(...keys),
        offset: fc.nat(40),
        length: fc.nat(40),
      }),
      fc.record({
        kind: fc.constant("set" as const),
        key: fc.constantFrom(...keys),
        value: fc.uint8Array({ maxLength: 60 }),
      }),
      fc.record({ kind: fc.constant("erase" as const), key: fc.constantFrom(...keys) }),
      fc.record({ kind: fc.constant("erasePrefix" as const), key: fc.constantFrom("c/", "") }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), fc.nat(300), async (ops, budget) => {
        const model = new MemoryStore();
        const cache = new CachingStore(new MemoryStore(), { maxBytes: budget, maxEntryBytes: 50 });
        for (const o of ops) {
          if (o.kind === "get") expect(await cache.get(o.key)).toEqual(await model.get(o.key));
          else if (o.kind === "range") {
            const r = { offset: o.offset, length: o.length };
            expect(await cache.get(o.key, r)).toEqual(await model.get(o.key, r));
          } else if (o.kind === "set") {
            await cache.set!(o.key, o.value);
            await model.set(o.key, o.value);
          } else if (o.kind === "erase") {
            await cache.erase!(o.key);
            await model.erase(o.key);
          } else {
            await cache.erasePrefix!(o.key);
            await model.erasePrefix(o.key);
          }
          expect(cache.stats().bytes).toBeLessThanOrEqual(budget);
        }
      }),
      { seed: 42, numRuns: 200 },
    );
  });
});

describe("CachingStore with arrays and URLs", () => {
  const weather = fileURLToPath(new URL("../../data/weather.zarr", import.meta.url));

  it("a second pass over a hierarchy costs no inner reads", async () => {
    const counting = new CountingStore(await openStore(weather));
    const cache = new CachingStore(counting);
    const readAll = async () => {
      const t = await openArray(cache, "temperature");
      return t.get([0, slice(0, 10), null]);
    };
    const first = await readAll();
    const afterFirst = counting.counts.reads;
    const second = await readAll();
    expect(second.data).toEqual(first.data);
    expect(afterFirst).toBeGreaterThan(1);
    expect(counting.counts.reads).toBe(afterFirst);
  });

  it("opens cache: URLs through the registry, wrapping the inner scheme's store", async () => {
    const store = await openStore(`cache:${weather}`, { cache: { maxBytes: 1 << 20 } });
    expect(store).toBeInstanceOf(CachingStore);
    const root = await openGroup(store);
    expect(await root.childNames()).toContain("temperature");
    await expect(openStore("cache:")).rejects.toThrowError(/expected cache:<url/);
    await expect(openStore(`cache:${weather}`, { cache: 5 })).rejects.toThrowError(/"cache"/);
  });
});

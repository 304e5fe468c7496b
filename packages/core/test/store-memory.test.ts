import type { AnyStore, StoreOptions } from "@zarr/core";
import { InvalidKeyError, MemoryStore } from "@zarr/core";
import type { ByteRange } from "@zarr/core/store";
import { resolveStore, sliceRange, storeConformanceCases } from "@zarr/core/store";
import { describe, expect, it } from "vitest";

// v3 core: "Abstract store interface" — the shared suite, on MemoryStore and on
// minimal stores that only have the required operations, so that every
// fallback of resolveStore runs through the same checks.

describe("MemoryStore conformance", () => {
  for (const c of storeConformanceCases({ create: async (initial) => new MemoryStore(initial) })) {
    it(c.name, c.run);
  }
});

/** A store with only get/set/erase/list: every other operation comes from resolveStore. */
function minimalStore(initial: ReadonlyMap<string, Uint8Array>): AnyStore {
  const map = new Map([...initial].map(([k, v]) => [k, v.slice()] as const));
  return {
    async get(key: string, range?: ByteRange, _options?: StoreOptions) {
      const value = map.get(key);
      return value && sliceRange(value, range).slice();
    },
    async set(key: string, value: Uint8Array) {
      map.set(key, value.slice());
    },
    async erase(key: string) {
      map.delete(key);
    },
    async *list() {
      yield* [...map.keys()];
    },
  };
}

describe("minimal store (get, set, erase, list) through resolveStore fallbacks", () => {
  for (const c of storeConformanceCases({ create: async (initial) => minimalStore(initial) })) {
    it(c.name, c.run);
  }
});

describe("read-only, unlistable store (get only)", () => {
  const cases = storeConformanceCases({
    create: async (initial) => {
      const { get } = minimalStore(initial);
      return { get };
    },
    writable: false,
    listable: false,
  });
  for (const c of cases) it(c.name, c.run);
});

describe("writable store without listing", () => {
  const cases = storeConformanceCases({
    create: async (initial) => {
      const { get, set, erase } = minimalStore(initial);
      return { get, set, erase };
    },
    listable: false,
  });
  for (const c of cases) it(c.name, c.run);
});

describe("MemoryStore", () => {
  it("copies initial values and exposes them through .map", async () => {
    const input = Uint8Array.of(1, 2, 3);
    const store = new MemoryStore([["a/b", input]]);
    input[0] = 9;
    expect([...store.map.keys()]).toEqual(["a/b"]);
    expect(store.map.get("a/b")).toEqual(Uint8Array.of(1, 2, 3));
    expect(await store.get("a/b", { suffix: 2 })).toEqual(Uint8Array.of(2, 3));
  });

  it("rejects invalid keys even when used without resolveStore", async () => {
    expect(() => new MemoryStore([["../x", new Uint8Array(1)]])).toThrow(InvalidKeyError);
    const store = new MemoryStore();
    await expect(store.set("a//b", new Uint8Array(1))).rejects.toThrow(InvalidKeyError);
    await expect(store.get("/abs")).rejects.toThrow(InvalidKeyError);
    await expect(store.erasePrefix("a")).rejects.toThrow(InvalidKeyError);
    expect(store.map.size).toBe(0);
  });

  it("list is a snapshot: writes during iteration do not change it", async () => {
    const store = new MemoryStore([
      ["a", Uint8Array.of(1)],
      ["b", Uint8Array.of(2)],
    ]);
    const seen: string[] = [];
    for await (const key of store.list()) {
      seen.push(key);
      await store.set(`new-${key}`, Uint8Array.of(0));
      await store.erase("b");
    }
    expect(seen.sort()).toEqual(["a", "b"]);
  });

  it("resolveStore keeps the MemoryStore as inner and reports full capabilities", () => {
    const memory = new MemoryStore();
    const store = resolveStore(memory);
    expect(store.inner).toBe(memory);
    expect([store.readable, store.writable, store.listable]).toEqual([true, true, true]);
  });
});

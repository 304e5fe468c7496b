import { type AnyStore, MemoryStore } from "@zarr/core";
import {
  type ByteRange,
  type ConformanceCase,
  sliceRange,
  storeConformanceCases,
} from "@zarr/core/store";
import { describe, expect, it } from "vitest";

// The suite itself must fail on stores that break the v3 abstract store
// interface: each broken store below must fail the named case.

async function failures(cases: ConformanceCase[]): Promise<string[]> {
  const failed: string[] = [];
  for (const c of cases) {
    try {
      await c.run();
    } catch {
      failed.push(c.name);
    }
  }
  return failed;
}

function broken(patch: (store: MemoryStore) => Partial<AnyStore>) {
  return storeConformanceCases({
    create: async (initial) => {
      const store = new MemoryStore(initial);
      const overrides = patch(store);
      const methods: AnyStore = {
        get: store.get.bind(store),
        getPartialValues: store.getPartialValues.bind(store),
        getSize: store.getSize.bind(store),
        set: store.set.bind(store),
        setPartialValues: store.setPartialValues.bind(store),
        erase: store.erase.bind(store),
        eraseValues: store.eraseValues.bind(store),
        erasePrefix: store.erasePrefix.bind(store),
        list: store.list.bind(store),
        listPrefix: store.listPrefix.bind(store),
        listDir: store.listDir.bind(store),
      };
      return Object.assign(methods, overrides);
    },
  });
}

describe("storeConformanceCases detects broken stores", () => {
  it("passes on MemoryStore (control)", async () => {
    expect(await failures(broken(() => ({})))).toEqual([]);
  });

  it.each<[string, (s: MemoryStore) => Partial<AnyStore>, string]>([
    [
      "get that aliases stored values",
      (s) => ({
        get: async (key: string, range?: ByteRange) => {
          const v = s.map.get(key);
          return v && sliceRange(v, range);
        },
      }),
      "get: returned values are not aliased with the store",
    ],
    [
      "set that keeps the caller's array",
      (s) => ({
        set: async (key: string, value: Uint8Array) => {
          (s.map as Map<string, Uint8Array>).set(key, value);
        },
      }),
      "set: the store keeps its own copy of the value",
    ],
    [
      "suffix ranges read from the start",
      (s) => ({
        get: async (key: string, range?: ByteRange) => {
          const v = s.map.get(key);
          if (!v) return undefined;
          if (range && "suffix" in range) return v.slice(0, range.suffix);
          return sliceRange(v, range).slice();
        },
      }),
      "get: byte ranges (offset, length, suffix, clipping)",
    ],
    [
      "erasePrefix without the trailing slash",
      (s) => ({
        erasePrefix: async (prefix: string) => {
          for (const key of [...s.map.keys()]) {
            if (key.startsWith(prefix.slice(0, -1))) await s.erase(key);
          }
        },
      }),
      "erasePrefix: removes only keys under the prefix",
    ],
    [
      "listDir that reports nested keys",
      (s) => ({
        listDir: async (prefix: string) => {
          const keys: string[] = [];
          for await (const k of s.listPrefix(prefix)) keys.push(k.slice(prefix.length));
          return { keys, prefixes: [] };
        },
      }),
      "listDir: direct keys and child prefixes, sorted",
    ],
    [
      "list that drops keys past 1,000",
      (s) => ({
        list: async function* () {
          yield* [...s.map.keys()].slice(0, 1000);
        },
      }),
      "list: 2,000 keys",
    ],
    [
      "getPartialValues that drops missing keys",
      (s) => ({
        getPartialValues: async (requests) =>
          (await s.getPartialValues(requests)).filter((v) => v !== undefined),
      }),
      "getPartialValues: order kept, missing keys undefined, keys repeated",
    ],
    [
      "setPartialValues that truncates",
      (s) => ({
        setPartialValues: async (writes) => {
          for (const w of writes) await s.set(w.key, w.value);
        },
      }),
      "setPartialValues: patch, extend with zeros, create, several writes per key",
    ],
  ])("%s", async (_, patch, expected) => {
    expect(await failures(broken(patch))).toContain(expected);
  });
});

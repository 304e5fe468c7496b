// v3 core: "Abstract store interface", through core's exported conformance suite:
// the wrapper must behave exactly like the store it wraps, for a writable and
// listable store (MemoryStore, FileSystemStore) and a read-only one.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AnyStore, MemoryStore } from "@zarr/core";
import { storeConformanceCases } from "@zarr/core/store";
import { FileSystemStore } from "@zarr/store-fs";
import { describe, it } from "vitest";
import { CachingStore } from "zarr-store-cache";

describe("CachingStore over MemoryStore", () => {
  for (const c of storeConformanceCases({
    create: async (initial) => new CachingStore(new MemoryStore(initial)),
  })) {
    it(c.name, c.run);
  }
});

describe("CachingStore over MemoryStore with a tiny cache (constant eviction)", () => {
  for (const c of storeConformanceCases({
    create: async (initial) =>
      new CachingStore(new MemoryStore(initial), { maxBytes: 300, maxEntryBytes: 100 }),
  })) {
    it(c.name, c.run);
  }
});

describe("CachingStore over a read-only store (get only)", () => {
  for (const c of storeConformanceCases({
    create: async (initial) => {
      const memory = new MemoryStore(initial);
      return new CachingStore({ get: (key, range, options) => memory.get(key, range, options) });
    },
    writable: false,
    listable: false,
  })) {
    it(c.name, c.run);
  }
});

describe("CachingStore over FileSystemStore", () => {
  const dirs = new WeakMap<AnyStore, string>();
  for (const c of storeConformanceCases({
    async create(initial) {
      const dir = await mkdtemp(join(tmpdir(), "zarr-store-cache-"));
      const fs = new FileSystemStore(dir);
      for (const [key, value] of initial) await fs.set(key, value);
      const store = new CachingStore(fs);
      dirs.set(store, dir);
      return store;
    },
    async destroy(store) {
      await rm(dirs.get(store)!, { recursive: true, force: true });
    },
  })) {
    it(c.name, c.run);
  }
});

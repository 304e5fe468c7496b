import type { AnyStore } from "@zarr/core";
import { storeConformanceCases } from "@zarr/core/store";
import { FileSystemStore } from "@zarr/store-fs";
import { describe, it } from "vitest";
import { tempDir, writeTree } from "./helpers.js";

// v3 core: "Abstract store interface", through core's shared conformance suite,
// on a fresh temporary directory per case.

const cleanups = new WeakMap<AnyStore, () => Promise<void>>();

function cases(durable: boolean) {
  return storeConformanceCases({
    async create(initial) {
      const { root, cleanup } = await tempDir();
      if (initial.size > 0) await writeTree(root, initial);
      const store = new FileSystemStore(root, { durable });
      cleanups.set(store, cleanup);
      return store;
    },
    async destroy(store) {
      await cleanups.get(store)?.();
    },
  });
}

describe("FileSystemStore conformance", () => {
  for (const c of cases(false)) it(c.name, c.run);
});

describe("FileSystemStore conformance (durable: true)", () => {
  const wanted = ["set: round trip", "set: 64 concurrent", "setPartialValues", "list: reflects"];
  for (const c of cases(true)) {
    if (wanted.some((w) => c.name.startsWith(w))) it(c.name, c.run);
  }
});

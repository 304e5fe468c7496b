import { storeConformanceCases } from "@zarr/core/store";
import { bytesSource, ZipStore } from "@zarr/store-zip";
import { describe, it } from "vitest";
import { zipBytes } from "./helpers.js";

// v3 core: "Abstract store interface" (read-only, listable) through core's
// conformance suite: each case's data is zipped with ZipWriter, then read.

describe("ZipStore conformance (deflated entries)", () => {
  for (const c of storeConformanceCases({
    writable: false,
    async create(initial) {
      return ZipStore.open(bytesSource(await zipBytes(initial)));
    },
  })) {
    it(c.name, c.run);
  }
});

describe("ZipStore conformance (stored entries, inside a top-level folder, zip64 records)", () => {
  for (const c of storeConformanceCases({
    writable: false,
    async create(initial) {
      const files = [...initial].map(([k, v]): [string, Uint8Array] => [`top.zarr/${k}`, v]);
      files.push(["outside/ignored", new Uint8Array([1])]);
      const bytes = await zipBytes(files, { compress: false, forceZip64: true });
      return ZipStore.open(bytesSource(bytes), { root: "top.zarr" });
    },
  })) {
    it(c.name, c.run);
  }
});

// ChunkCache (@zarr/core) on Zarr v2 arrays with big-endian dtypes: chunks are
// cached decoded, in host byte order, so reads through the cache are the same
// every time (zarrita #431: a cache of raw bytes handed out a buffer that
// decoding then swapped in place, so every second read was byte-swapped).
import "@zarr/codec-gzip/register";
import "../src/register.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChunkCache, CountingStore, MemoryStore, openArray, slice } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { findPython, pythonSkipReason, runPython } from "@zarr/test-utils";
import { afterAll, describe, expect, it } from "vitest";
import { createArrayV2 } from "../src/index.js";

const MODULES = ["zarr", "numcodecs", "numpy"];
const python = findPython(MODULES);
if (!python) console.warn(pythonSkipReason(MODULES));

const values = (r: { data: unknown }) => Array.from(r.data as ArrayLike<number>);

describe("ChunkCache on v2 big-endian arrays", () => {
  it('">f8" and order "F" ">i4" written here: every read through the cache gives the values, host order', async () => {
    const store = new CountingStore(new MemoryStore());
    const want = Array.from({ length: 30 }, (_, i) => i * 0.75 - 4);
    const f8 = await createArrayV2(store, "f8", {
      shape: [5, 6],
      chunks: [2, 4],
      dtype: ">f8",
      compressor: null,
      fillValue: 0,
    });
    await f8.set(null, Float64Array.from(want));
    const i4 = await createArrayV2(store, "i4", {
      shape: [5, 6],
      chunks: [2, 4],
      dtype: ">i4",
      order: "F",
      compressor: null,
      fillValue: 0,
    });
    await i4.set(
      null,
      Int32Array.from(want, (_, i) => i - 7),
    );
    // Stored big-endian (v2 ">f8": the first 8 bytes of chunk 0.0 are 0 * 0.75 - 4 = -4).
    const raw = (await store.get("f8/0.0"))!;
    expect(new DataView(raw.buffer, raw.byteOffset).getFloat64(0, false)).toBe(-4);
    const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
    const a = await openArray(store, "f8");
    const b = await openArray(store, "i4");
    for (let k = 0; k < 3; k++) {
      const r = await a.get(null, { chunkCache });
      expect(values(r)).toEqual(want);
      (r.data as Float64Array).fill(0); // the caller's copy, not the cache's
      expect(values(await a.get([slice(1, 4), slice(2, 5)], { chunkCache }))).toEqual(
        [1, 2, 3].flatMap((y) => [2, 3, 4].map((x) => want[y * 6 + x])),
      );
      expect(values(await b.get(null, { chunkCache }))).toEqual(want.map((_, i) => i - 7));
    }
    store.reset();
    await a.get(null, { chunkCache });
    expect(store.counts.reads).toBe(0);
  });

  describe.skipIf(!python)("written by zarr-python 2.13", () => {
    const dir = mkdtempSync(join(tmpdir(), "v2-cache-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('">f8" with zlib, ">u2" with gzip: cached reads equal numpy\'s values', async () => {
      runPython(
        python!,
        `import numpy as np, zarr, numcodecs
a = zarr.open(${JSON.stringify(join(dir, "f8"))}, mode="w", shape=(40, 30), chunks=(16, 16), dtype=">f8", compressor=numcodecs.Zlib(level=1))
a[:] = np.arange(1200, dtype=">f8").reshape(40, 30) / 8 - 50
b = zarr.open(${JSON.stringify(join(dir, "u2"))}, mode="w", shape=(40, 30), chunks=(16, 16), dtype=">u2", compressor=numcodecs.GZip(level=1))
b[:] = (np.arange(1200).reshape(40, 30) * 37) % 65536
`,
      );
      const store = new FileSystemStore(dir);
      const chunkCache = new ChunkCache({ maxBytes: 1 << 20 });
      const f8 = await openArray(store, "f8");
      const u2 = await openArray(store, "u2");
      const f8want = Array.from({ length: 1200 }, (_, i) => i / 8 - 50);
      const u2want = Array.from({ length: 1200 }, (_, i) => (i * 37) % 65536);
      for (let k = 0; k < 3; k++) {
        expect(values(await f8.get(null, { chunkCache }))).toEqual(f8want);
        expect(values(await u2.get(null, { chunkCache }))).toEqual(u2want);
        expect(values(await f8.get([slice(10, 20), 15], { chunkCache }))).toEqual(
          Array.from({ length: 10 }, (_, i) => f8want[(10 + i) * 30 + 15]),
        );
      }
      expect(chunkCache.size).toBe(12);
    });
  });
});

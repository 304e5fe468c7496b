// Path safety of FileSystemStore (random keys; node paths through core). For
// every key made of dangerous pieces (`..`, `.`, `/`, `\`, NUL, control
// characters, lone surrogates, the temporary-file prefix), the store either
// throws InvalidKeyError or writes exactly the file <root>/<key> and nothing
// else, whether it is used directly or through core's resolveStore. The fixed
// escape list and symbolic links are covered by escape.test.ts.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createArray, createGroup, InvalidKeyError, open } from "@zarr/core";
import { isValidKey, resolveStore } from "@zarr/core/store";
import { FileSystemStore } from "@zarr/store-fs";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir, tree } from "./helpers.js";

const RUNS = Math.max(50, Math.floor((Number(process.env.FUZZ_RUNS) || 10_000) / 20));

let dir: string;
let root: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, root, cleanup } = await tempDir());
});
afterAll(() => cleanup());

const piece = fc.constantFrom(
  "a",
  "b",
  ".",
  "..",
  "/",
  "\\",
  "\0",
  "\u0007",
  " ",
  "\ud800",
  "é",
  ".zarr-tmp.",
  "zarr.json",
  "~",
  "$HOME",
);
const key = fc.array(piece, { minLength: 1, maxLength: 7 }).map((p) => p.join(""));

describe("FileSystemStore path safety (fuzzed keys)", () => {
  it.each([
    ["used directly", (r: string) => new FileSystemStore(r)],
    ["through resolveStore", (r: string) => resolveStore(new FileSystemStore(r))],
  ])(
    "%s: a key is rejected with InvalidKeyError or lands exactly at <root>/<key>",
    async (_, make) => {
      const store = make(root);
      await fc.assert(
        fc.asyncProperty(key, async (k) => {
          const value = new TextEncoder().encode(k);
          const ok =
            isValidKey(k) && !k.split("/").some((segment) => segment.startsWith(".zarr-tmp."));
          if (!ok) {
            await expect(store.set(k, value)).rejects.toThrow(InvalidKeyError);
            await expect(store.get(k)).rejects.toThrow(InvalidKeyError);
            await expect(store.erase(k)).rejects.toThrow(InvalidKeyError);
            return;
          }
          try {
            await store.set(k, value);
          } catch (e) {
            // A segment that a real file already occupies as a directory (or vice versa).
            if ((e as Error).name === "StoreError") return;
            throw e;
          }
          expect(await readFile(join(root, ...k.split("/")))).toEqual(Buffer.from(value));
          expect(await store.get(k)).toEqual(value);
          await store.erase(k);
          expect(await store.get(k)).toBeUndefined();
        }),
        { seed: 42, numRuns: RUNS },
      );
      // Every write was erased again (empty directories too); nothing was written beside the root.
      expect(await tree(dir)).toEqual(["store/"]);
    },
  );

  it("node paths that climb or are malformed are rejected before any file is touched", async () => {
    const store = new FileSystemStore(root);
    for (const path of ["..", "../evil", "a/../../evil", "a\\..\\evil", "a\0b", "."]) {
      await expect(createArray(store, path, { shape: [1], dataType: "uint8" })).rejects.toThrow(
        InvalidKeyError,
      );
      await expect(createGroup(store, path)).rejects.toThrow(InvalidKeyError);
      await expect(open(store, path)).rejects.toThrow(InvalidKeyError);
    }
    const group = await createGroup(store, "g");
    await expect(
      group.createArray("../../evil", { shape: [1], dataType: "uint8" }),
    ).rejects.toThrow(InvalidKeyError);
    expect(await tree(dir)).toEqual(["store/", "store/g/", "store/g/zarr.json", "store/zarr.json"]);
  });

  it("no key or prefix may pass through a directory named like a temporary file (it would never be listed)", async () => {
    const store = resolveStore(new FileSystemStore(root));
    await expect(store.set(".zarr-tmp.x/a", new Uint8Array(1))).rejects.toThrow(/reserved/);
    await expect(store.get("a/.zarr-tmp.x/b")).rejects.toThrow(InvalidKeyError);
    await expect(store.listDir(".zarr-tmp.x/")).rejects.toThrow(InvalidKeyError);
    await expect(store.erasePrefix("a/.zarr-tmp.x/")).rejects.toThrow(InvalidKeyError);
  });
});

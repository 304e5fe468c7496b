import { readFileSync } from "node:fs";
import { join } from "node:path";
import "@zarr/codec-blosc/register";
import "@zarr/codec-gzip/register";
import "@zarr/codec-zstd/register";
import "@zarr/v2-compat/register";
import { openArray } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { openZipFile } from "@zarr/store-zip/node";
import { describe, expect, it } from "vitest";

// The zarrita v2 fixtures (read through @zarr/v2-compat): each zip must give
// exactly what the same hierarchy gives as a directory, failures included.

const FIXTURES = "/work/shared/fixtures/zarrita";
const keys = Object.keys(JSON.parse(readFileSync(join(FIXTURES, "expected-v2.json"), "utf8")));
const directory = new FileSystemStore(join(FIXTURES, "v2/data.zarr"));

async function read(store: Parameters<typeof openArray>[0], key: string) {
  try {
    const { shape, data } = await (await openArray(store, key)).get();
    return { shape, data: Array.from(data as ArrayLike<unknown>) };
  } catch (e) {
    return { error: (e as Error).name };
  }
}

describe.each([
  ["data.zipped_from_within.zarr.zip", undefined],
  ["data.zipped_from_parent.zarr.zip", "data.zarr"],
])("zarrita v2 fixture %s", (file, root) => {
  it("every array reads as from the directory", async () => {
    const zip = await openZipFile(join(FIXTURES, "v2", file), { root });
    try {
      let ok = 0;
      for (const key of keys) {
        const want = await read(directory, key);
        expect(await read(zip, key), key).toEqual(want);
        if (!("error" in want)) ok++;
      }
      expect(ok).toBeGreaterThan(0);
    } finally {
      await zip.close();
    }
  });
});

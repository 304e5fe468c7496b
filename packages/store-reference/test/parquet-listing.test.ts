// Listing a Parquet reference directory: groups and metadata come from
// `.zmetadata` alone (no record file read), an array's folder lists its chunks
// from its record files, and an array whose grid would need more than
// MAX_LISTED_RECORDS record files is a StoreError instead of an endless stream
// of requests (found by an attack: shape [2^52] with chunks [1]; `zarr tree`
// never ended).
import "@zarr/store-fs/register";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StoreError } from "@zarr/core";
import { ReferenceStore } from "@zarr/store-reference";
import { MAX_LISTED_RECORDS, ParquetReferences } from "@zarr/store-reference/parquet";
import { afterAll, describe, expect, it } from "vitest";
import { writeParquetReferences } from "./sources.js";

const dir = mkdtempSync(join(tmpdir(), "zarr-ref-listing-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const zarray = (shape: number[], chunks: number[]) =>
  JSON.stringify({
    zarr_format: 2,
    shape,
    chunks,
    dtype: "<i4",
    compressor: null,
    filters: null,
    fill_value: 0,
    order: "C",
  });

/** A ParquetReferences over files in memory, counting the record files it reads. */
async function inMemory(metadata: Record<string, unknown>, recordSize = 4) {
  const encoder = new TextEncoder();
  const reads: string[] = [];
  const refs = await ParquetReferences.open(async (name) => {
    if (name === ".zmetadata") {
      return encoder.encode(JSON.stringify({ metadata, record_size: recordSize }));
    }
    reads.push(name);
    return undefined; // no record files: every chunk is missing
  });
  return { refs, reads };
}

describe("Parquet reference directories: listing", () => {
  it("a group's listing reads no record file; an array's lists its chunks", async () => {
    const root = join(dir, "refs.parq");
    await writeParquetReferences(
      root,
      {
        ".zgroup": JSON.stringify({ zarr_format: 2 }),
        "g/.zgroup": JSON.stringify({ zarr_format: 2 }),
        "g/a/.zarray": zarray([6], [2]),
        "g/a/0": "base64:AQAAAA==",
        "g/a/2": "base64:AgAAAA==",
      },
      2,
      (url) => url,
    );
    const store = await ReferenceStore.fromParquet(root);
    expect(await store.listDir("")).toEqual({ keys: [".zgroup"], prefixes: ["g"] });
    expect(await store.listDir("g/")).toEqual({ keys: [".zgroup"], prefixes: ["a"] });
    expect(await store.listDir("g/a/")).toEqual({ keys: [".zarray", "0", "2"], prefixes: [] });
    await store.close();
  });

  it("an array of 2^52 chunks: groups list at once, its folder is a StoreError, reads by key work", async () => {
    const { refs, reads } = await inMemory({
      ".zgroup": { zarr_format: 2 },
      "a/.zarray": JSON.parse(zarray([2 ** 52], [1])),
    });
    expect(await refs.listDir("")).toEqual({ keys: [".zgroup"], prefixes: ["a"] });
    expect(reads).toEqual([]);
    const error = await refs.listDir("a/").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(String((error as Error).message)).toMatch(
      new RegExp(`record files \\(more than ${MAX_LISTED_RECORDS}, option maxListedRecords\\)`),
    );
    expect(reads).toEqual([]);
    const keys: string[] = [];
    await expect(
      (async () => {
        for await (const key of refs.keys()) keys.push(key);
      })(),
    ).rejects.toThrow(StoreError);
    expect(keys).toEqual([]); // refused before anything is listed
    expect(await refs.lookup(`a/${2 ** 40}`)).toBeUndefined();
    expect(reads).toEqual([`a/refs.${2 ** 38}.parq`]);
  });

  // Second attack round: the cap was per array, so 1,000 arrays of 99,999 records each
  // made list() (zarr verify, copy) request 10^8 files.
  it("the cap covers a whole list(): many arrays under it one by one are refused together", async () => {
    const metadata: Record<string, unknown> = {};
    for (let i = 0; i < 3; i++) metadata[`v${i}/.zarray`] = JSON.parse(zarray([40_000], [1]));
    const { refs, reads } = await inMemory(metadata, 1);
    const listed = (async () => {
      for await (const _ of refs.keys()) {
        // nothing: the listing is refused first
      }
    })();
    await expect(listed).rejects.toThrow(/120000 record files \(more than 100000/);
    expect(reads).toEqual([]);
    expect((await refs.listDir("")).prefixes).toEqual(["v0", "v1", "v2"]);
  });
});

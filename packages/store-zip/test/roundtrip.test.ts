import { join } from "node:path";
import "@zarr/codec-gzip/register";
import { createArray, createGroup, openArray, openStore, StoreCapabilityError } from "@zarr/core";
import { parseStoreUrl, resolveStore } from "@zarr/core/store";
import "@zarr/store-zip/register";
import { ZipStore, ZipWriter, ZipWriterStore } from "@zarr/store-zip";
import { createZipFileStore } from "@zarr/store-zip/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findUnzip, tempDir, unzipTest } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterAll(() => cleanup());

const data = Float32Array.from({ length: 20 * 30 }, (_, i) => i * 0.5 - 7);
const sharded = [
  {
    name: "sharding_indexed",
    configuration: {
      chunk_shape: [5, 5],
      codecs: [{ name: "bytes", configuration: { endian: "little" } }],
      index_codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }],
    },
  },
];

describe("an array written into a zip reads back identical", () => {
  it.each([
    [
      "plain chunks, gzip",
      [
        { name: "bytes", configuration: { endian: "little" } },
        { name: "gzip", configuration: { level: 5 } },
      ],
      true,
    ],
    ["sharded, stored entries", sharded, false],
  ] as const)("%s", async (label, codecs, compress) => {
    const path = join(dir, `${label.replace(/\W+/g, "-")}.zip`);
    const store = createZipFileStore(path, { compress });
    await createGroup(store, "data.zarr", { attributes: { title: "t" } });
    const a = await createArray(store, "data.zarr/temps", {
      shape: [20, 30],
      dataType: "float32",
      chunkShape: [10, 10],
      codecs: codecs as never,
      fillValue: 0,
    });
    await a.set(null, data);
    await store.close();
    if (findUnzip()) expect(unzipTest(path)[0]).toBe(0);

    // Through openStore, with the folder inside the archive in the path.
    const zip = await openStore(`${path}/data.zarr`);
    expect(zip).toBeInstanceOf(ZipStore);
    const back = await (await openArray(zip, "temps")).get();
    expect(back.shape).toEqual([20, 30]);
    expect(Array.from(back.data as Float32Array)).toEqual(Array.from(data));
    const part = await (await openArray(zip, "temps")).get([3, null]);
    expect(Array.from(part.data as Float32Array)).toEqual(Array.from(data.subarray(90, 120)));
    await (zip as ZipStore).close();
  });
});

describe("ZipWriterStore rules", () => {
  it("metadata stays rewritable until close; chunks are write-once", async () => {
    const store = resolveStore(new ZipWriterStore(new ZipWriter({ write() {} })));
    await store.set("a/zarr.json", new Uint8Array([1]));
    await store.set("a/zarr.json", new Uint8Array([2]));
    expect(await store.get("a/zarr.json")).toEqual(new Uint8Array([2]));
    await store.set("a/c/0", new Uint8Array([3]));
    await expect(store.set("a/c/0", new Uint8Array([4]))).rejects.toThrow(StoreCapabilityError);
    await expect(store.get("a/c/0")).rejects.toThrow(StoreCapabilityError);
    await expect(store.erase("a/c/0")).rejects.toThrow(StoreCapabilityError);
    await store.erase("a/c/1"); // never written: fine
    expect(await store.get("a/c/1")).toBeUndefined();
    const keys: string[] = [];
    for await (const k of store.list()) keys.push(k);
    expect(keys.sort()).toEqual(["a/c/0", "a/zarr.json"]);
  });
});

describe("openStore URL resolution (parseStoreUrl)", () => {
  it.each([
    ["data/example.zarr", "file", "data/example.zarr"],
    ["C:\\data\\x.zarr", "file", "C:\\data\\x.zarr"],
    ["file:///data/x.zarr", "file", "file:///data/x.zarr"],
    ["https://h/x.zarr", "https", "https://h/x.zarr"],
    ["s3://bucket/prefix", "s3", "s3://bucket/prefix"],
    ["gs://bucket/p", "gs", "gs://bucket/p"],
    ["data/a.zip", "zip", "zip:data/a.zip"],
    ["data/a.zip/", "zip", "zip:data/a.zip"],
    ["data/a.ZIP/data.zarr/", "zip", "zip:data/a.ZIP!/data.zarr"],
    ["/abs/a.zip/in/ner", "zip", "zip:/abs/a.zip!/in/ner"],
    ["file:///d/a.zip/x", "zip", "zip:file:///d/a.zip!/x"],
    ["https://h/d/a.zip/x?sig=1", "zip", "zip:https://h/d/a.zip?sig=1!/x"],
    ["https://example.zip/data.zarr", "https", "https://example.zip/data.zarr"],
    ["s3://b/a.zip", "zip", "zip:s3://b/a.zip"],
    ["data/a.zipper/x", "file", "data/a.zipper/x"],
    ["zip:https://h/a.zip!/x", "zip", "zip:https://h/a.zip!/x"],
  ])("%s -> %s %s", (url, scheme, rewritten) => {
    expect(parseStoreUrl(url)).toEqual({ scheme, url: rewritten });
  });

  it("an unregistered scheme names the package to install", async () => {
    await expect(openStore("gs://bucket/x")).rejects.toThrow(/install @zarr\/store-gcs/);
    await expect(openStore("")).rejects.toThrow(/non-empty/);
  });
});

// v1 storage spec: `meta`/`attrs` documents, compression + compression_opts,
// chunk keys "i.j", missing chunks read as fill_value.
import "@zarr/codec-blosc/register";
import "@zarr/codec-gzip/register";
import "../src/register.js";
import { deflateSync } from "node:zlib";
import { MemoryStore, openArray, slice } from "@zarr/core";
import { describe, expect, it } from "vitest";
import { createArrayV1 } from "../src/index.js";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array | undefined) => new TextDecoder().decode(b);

function meta(fields: Record<string, unknown>): Uint8Array {
  return enc(JSON.stringify({ zarr_format: 1, fill_value: 42, order: "C", ...fields }));
}

function i4(values: number[], littleEndian = true): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  const v = new DataView(out.buffer);
  values.forEach((x, i) => {
    v.setInt32(i * 4, x, littleEndian);
  });
  return out;
}

describe("v1 read (hand-written stores)", () => {
  it("zlib, C order, a missing chunk reads as fill_value (v1: Chunks)", async () => {
    const store = new MemoryStore();
    await store.set(
      "meta",
      meta({
        shape: [4, 4],
        chunks: [2, 2],
        dtype: "<i4",
        compression: "zlib",
        compression_opts: 1,
      }),
    );
    await store.set("attrs", enc('{"foo": 42}'));
    await store.set("0.0", deflateSync(i4([1, 2, 3, 4])));
    await store.set("1.1", deflateSync(i4([5, 6, 7, 8])));
    const a = await openArray(store);
    expect(a.attrs).toEqual({ foo: 42 });
    const got = await a.get();
    expect(Array.from(got.data as Int32Array)).toEqual([
      1, 2, 42, 42, 3, 4, 42, 42, 42, 42, 5, 6, 42, 42, 7, 8,
    ]);
  });

  it("no compression, F order, big-endian", async () => {
    const store = new MemoryStore();
    await store.set(
      "meta",
      meta({
        shape: [2, 3],
        chunks: [2, 3],
        dtype: ">i4",
        compression: "none",
        compression_opts: null,
        order: "F",
      }),
    );
    await store.set("attrs", enc("{}"));
    // F order: the first dimension varies fastest.
    await store.set("0.0", i4([1, 4, 2, 5, 3, 6], false));
    const got = await (await openArray(store)).get();
    expect(Array.from(got.data as Int32Array)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("blosc with compression_opts as an object, written by our v1 writer and read back", async () => {
    const store = new MemoryStore();
    const a = await createArrayV1(store, "", {
      shape: [3, 5],
      chunks: [2, 2],
      dtype: "<f8",
      fillValue: 0.5,
      compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 },
    });
    await a.set([slice(0, 2), slice(0, 3)], 7);
    const meta = JSON.parse(dec(await store.get("meta")));
    expect(meta.compression).toBe("blosc");
    expect(meta.compression_opts).toMatchObject({ cname: "lz4", clevel: 5, shuffle: 1 });
    const got = await (await openArray(store)).get();
    expect(Array.from(got.data as Float64Array).slice(0, 5)).toEqual([7, 7, 7, 0.5, 0.5]);
  });
});

describe("v1 write", () => {
  it("follows the v1 spec example byte for byte (meta and attrs)", async () => {
    const store = new MemoryStore();
    const a = await createArrayV1(store, "", {
      shape: [20, 20],
      chunks: [10, 10],
      dtype: "i4",
      fillValue: 42,
      compressor: { id: "zlib", level: 1 },
    });
    expect(dec(await store.get("meta"))).toBe(
      '{\n    "chunks": [\n        10,\n        10\n    ],\n    "compression": "zlib",\n    "compression_opts": 1,\n    "dtype": "<i4",\n    "fill_value": 42,\n    "order": "C",\n    "shape": [\n        20,\n        20\n    ],\n    "zarr_format": 1\n}',
    );
    expect(dec(await store.get("attrs"))).toBe("{}");
    await a.set([slice(0, 10), slice(0, 10)], 1);
    await a.set([slice(0, 10), slice(10, 20)], 2);
    await a.set([slice(10, 20), null], 3);
    const keys: string[] = [];
    for await (const k of store.list()) keys.push(k);
    expect(keys.sort()).toEqual(["0.0", "0.1", "1.0", "1.1", "attrs", "meta"]);
    await a.updateAttributes({ foo: 42, bar: "apples", baz: [1, 2, 3, 4] });
    expect(dec(await store.get("attrs"))).toBe(
      '{\n    "bar": "apples",\n    "baz": [\n        1,\n        2,\n        3,\n        4\n    ],\n    "foo": 42\n}',
    );
  });
});

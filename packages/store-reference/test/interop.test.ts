// Interop (kerchunk "spec.md", versions 0 and 1; fsspec's LazyReferenceMapper
// Parquet layout): references written by hand into a NetCDF3 file (scipy) and
// an HDF5 file (h5py: gzip chunks, contiguous, partly written), read through
// ReferenceStore with @zarr/core and compared with the values netCDF4 and h5py
// read from the same files.
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type AnyStore, openArray, openGroup, openStore } from "@zarr/core";
import "@zarr/codec-gzip/register";
import "@zarr/store-fs/register";
import { ReferenceStore } from "@zarr/store-reference";
import "@zarr/store-reference/register";
import "@zarr/v2-compat/register";
import { parquetMetadata } from "hyparquet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  flattenRefs,
  INLINE_VALUES,
  makeSources,
  python,
  referencesV0,
  referencesV1,
  type Sources,
  skipReason,
  writeParquetReferences,
} from "./sources.js";

if (python === null) console.warn(skipReason);

const toArrayBuffer = (b: Uint8Array) =>
  b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

const typed = (dtype: string, values: number[]) => {
  const kind = dtype.slice(1);
  if (kind === "f4") return Float32Array.from(values);
  if (kind === "f8") return Float64Array.from(values);
  if (kind === "i2") return Int16Array.from(values);
  if (kind === "i4") return Int32Array.from(values);
  throw new Error(`no typed array for ${dtype}`);
};

async function expectSourceValues(store: AnyStore, s: Sources): Promise<void> {
  const cases: [string, { dtype: string; values: number[]; shape: number[] }][] = [
    ["nc/temp", s.nc.temp],
    ["nc/count", s.nc.count],
    ["nc/rec", s.nc.rec],
    ["h5/chunked", s.h5.chunked],
    ["h5/plain", s.h5.plain],
    ["h5/sparse", s.h5.sparse],
  ];
  for (const [path, source] of cases) {
    const array = await openArray(store, path);
    expect(array.shape, path).toEqual(source.shape);
    const { data } = await array.get(null);
    expect(data, path).toEqual(typed(source.dtype, source.values));
  }
  const inline = await openArray(store, "inline");
  expect((await inline.get(null)).data).toEqual(Int32Array.from(INLINE_VALUES));
}

describe.skipIf(python === null)("kerchunk references into NetCDF3 and HDF5 files", () => {
  let s: Sources;
  beforeAll(async () => {
    s = await makeSources();
    await writeFile(join(s.dir, "v1.json"), JSON.stringify(referencesV1(s)));
    await writeFile(join(s.dir, "v0.json"), JSON.stringify(referencesV0(s)));
    const refs = flattenRefs(referencesV1(s), s);
    const files: Record<string, string> = { "{{nc}}": "source.nc", "{{h5}}": "source.h5" };
    await writeParquetReferences(join(s.dir, "refs.parq"), refs, 2, (u) => files[u]);
  });
  afterAll(async () => {
    if (s) await rm(s.dir, { recursive: true, force: true });
  });

  it("version 1 JSON (templates, gen, relative paths): values equal netCDF4's and h5py's", async () => {
    const store = await openStore(`reference:${join(s.dir, "v1.json")}`);
    await expectSourceValues(store, s);
    const root = await openGroup(store);
    expect(root.attrs).toEqual({ title: "kerchunk test" });
    await store.close?.();
  });

  it("version 0 JSON (absolute paths) through reference+json:", async () => {
    const store = await openStore(`reference+json:${join(s.dir, "v0.json")}`);
    await expectSourceValues(store, s);
    await store.close?.();
  });

  it("a Parquet reference directory (record_size 2, zstd and snappy pages)", async () => {
    const codecs = new Set<string>();
    for (const f of ["h5/chunked/refs.0.parq", "h5/chunked/refs.1.parq", "nc/temp/refs.0.parq"]) {
      const meta = parquetMetadata(toArrayBuffer(await readFile(join(s.dir, "refs.parq", f))));
      for (const c of meta.row_groups[0].columns) codecs.add(c.meta_data?.codec ?? "");
    }
    expect([...codecs].sort()).toEqual(["SNAPPY", "ZSTD"]);
    for (const url of [
      `reference:${join(s.dir, "refs.parq")}`,
      `reference+parquet:${join(s.dir, "refs.parq")}/`,
    ]) {
      const store = await openStore(url);
      await expectSourceValues(store, s);
      await store.close?.();
    }
  });

  it("the Parquet directory lists the same keys as the JSON references", async () => {
    const json = await openStore(`reference:${join(s.dir, "v1.json")}`);
    const parquet = await openStore(`reference:${join(s.dir, "refs.parq")}`);
    const keys = async (store: AnyStore) => {
      const out: string[] = [];
      for await (const k of store.list!()) out.push(k);
      return out.sort();
    };
    expect(await keys(parquet)).toEqual(await keys(json));
    expect(await parquet.listDir!("h5/")).toEqual({
      keys: [".zgroup"],
      prefixes: ["chunked", "plain", "sparse"],
    });
    await json.close?.();
    await parquet.close?.();
  });

  it("ranged reads of a referenced chunk read only that part of the target", async () => {
    const store = await openStore(`reference:${join(s.dir, "v1.json")}`);
    const whole = await store.get("nc/temp/0.0");
    expect(await store.get("nc/temp/0.0", { offset: 8, length: 16 })).toEqual(
      whole?.subarray(8, 24),
    );
    expect(await store.get("nc/temp/0.0", { suffix: 4 })).toEqual(
      whole?.subarray(whole.length - 4),
    );
    expect(await store.getSize?.("nc/temp/0.0")).toBe(s.nc.temp.size);
    expect(await store.get("nc/temp/1.0")).toBeUndefined();
    await store.close?.();
  });

  it("the target option serves null URLs; per-protocol options reach the target stores", async () => {
    const doc = referencesV1(s) as { refs: Record<string, unknown> };
    doc.refs["nc/temp/0.0"] = [null, s.nc.temp.offset, s.nc.temp.size];
    const seen: string[] = [];
    const store = ReferenceStore.fromJson(doc, {
      base: s.dir,
      target: join(s.dir, "source.nc"),
      storeOptions: (url) => {
        seen.push(url);
        return {};
      },
    });
    const array = await openArray(store, "nc/temp");
    expect((await array.get(null)).data).toEqual(Float32Array.from(s.nc.temp.values));
    expect(seen).toEqual([`${s.dir}/`]);
    await store.close();
  });

  it("opener errors: no location, a bad option, a missing or malformed reference file", async () => {
    await expect(openStore("reference:")).rejects.toThrow(/names no reference file/);
    await expect(openStore(`reference:${join(s.dir, "v1.json")}`, { target: 5 })).rejects.toThrow(
      /option target must be a string/,
    );
    await expect(openStore(`reference:${join(s.dir, "nope.json")}`)).rejects.toThrow(
      /does not exist/,
    );
    await expect(openStore(`reference+json:${join(s.dir, "source.nc")}`)).rejects.toThrow(
      /not UTF-8 JSON/,
    );
    await expect(openStore(`reference:${s.dir}`)).rejects.toThrow(/has no .zmetadata/);
  });

  it("store operations on ReferenceStore directly (fromJson, fromParquet)", async () => {
    const fromJson = ReferenceStore.fromJson(referencesV1(s), { base: s.dir });
    const fromParquet = await ReferenceStore.fromParquet(join(s.dir, "refs.parq"), { base: s.dir });
    for (const key of ["h5/chunked/1.2", "nc/rec/2.0", "inline/0", "h5/sparse/1", ".zattrs"]) {
      expect(await fromParquet.get(key), key).toEqual(await fromJson.get(key));
    }
    expect(await fromParquet.get("h5/sparse/0")).toBeUndefined();
    expect(await fromParquet.get("h5/sparse/9")).toBeUndefined();
    expect(await fromParquet.get("h5/sparse/x")).toBeUndefined();
    expect(await fromParquet.get("nope/0")).toBeUndefined();
    await fromJson.close();
    await fromParquet.close();
  });
});

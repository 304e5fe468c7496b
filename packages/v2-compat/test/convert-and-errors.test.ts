// Conversion v2 -> v3 (metadata-only with the v2 chunk key encoding, F order as
// transpose, filters as numcodecs.<id>) and v3 -> v2; malformed v2 input fails
// with typed errors naming the document and field.
import "@zarr/codec-blosc/register";
import "@zarr/codec-gzip/register";
import "@zarr/codec-zstd/register";
import "../src/register.js";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import {
  ContainsNodeError,
  createArray,
  InvalidKeyError,
  MemoryStore,
  MetadataError,
  openArray,
  UnsupportedError,
} from "@zarr/core";
import { fixturesSkipReason, haveFixtures, loadExpected, zarritaFixtures } from "@zarr/test-utils";
import { describe, expect, it } from "vitest";
import {
  convertV2ToV3,
  convertV3ToV2,
  createArrayV2,
  createGroupV2,
  normalizeV2Path,
} from "../src/index.js";
import { jsonValues, ownFixtures } from "./helpers.js";

const present = haveFixtures();
if (!present) console.warn(fixturesSkipReason);

async function loadDir(root: string): Promise<MemoryStore> {
  const store = new MemoryStore();
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else
        await store.set(relative(root, p).split("\\").join("/"), new Uint8Array(await readFile(p)));
    }
  };
  await walk(root);
  return store;
}

describe.skipIf(!present)("v2 -> v3 conversion of every zarrita v2 fixture array", () => {
  const expected = present ? ownFixtures(loadExpected(2)) : {};
  for (const key of Object.keys(expected)) {
    it(`${key}: v3 reads the same values`, async () => {
      const store = await loadDir(join(zarritaFixtures, "v2/data.zarr"));
      if (key.endsWith(".O") && key.includes("json2")) {
        await expect(convertV2ToV3(store, key)).rejects.toBeInstanceOf(UnsupportedError);
        return;
      }
      const { node, rewritten } = await convertV2ToV3(store, key, { removeSource: true });
      expect(rewritten).toBe(false);
      expect((await store.get(`${key}/.zarray`)) !== undefined).toBe(false);
      const a = await openArray(store, key);
      expect(a.zarrFormat).toBe(3);
      expect(node.kind).toBe("array");
      expect(jsonValues(await a.get())).toEqual(expected[key].data);
      // And back to v2, metadata-only: the v2 chunk key encoding is kept.
      const back = await convertV3ToV2(store, key, { removeSource: true });
      expect(back.rewritten).toBe(false);
      const b = await openArray(store, key);
      expect(b.zarrFormat).toBe(2);
      expect(jsonValues(await b.get())).toEqual(expected[key].data);
    });
  }
});

describe("v3 -> v2 conversion that needs a rewrite", () => {
  it("default chunk keys and crc32c: data rewritten into a v2 array", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "x", {
      shape: [5],
      dataType: "int16",
      chunkShape: [2],
      codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }],
    });
    await a.set(null, Int16Array.from([1, 2, 3, 4, 5]));
    const r = await convertV3ToV2(store, "x");
    expect(r.rewritten).toBe(true);
    const b = await openArray(store, "x");
    expect(b.zarrFormat).toBe(2);
    expect(Array.from((await b.get()).data as Int16Array)).toEqual([1, 2, 3, 4, 5]);
    expect((await store.get("x/zarr.json")) !== undefined).toBe(false);
  });
});

describe("v2 errors and path rules", () => {
  it("logical paths normalize per the v2 spec and reject . and .. segments", () => {
    expect(normalizeV2Path("\\foo//bar/")).toBe("foo/bar");
    expect(() => normalizeV2Path("foo/../bar")).toThrow(InvalidKeyError);
    expect(() => normalizeV2Path("./x")).toThrow(/segment "\."/);
  });

  it("creating an array creates .zgroup at every ancestor; an array ancestor is an error", async () => {
    const store = new MemoryStore();
    await createArrayV2(store, "a/b/c", { shape: [2], dtype: "<i4" });
    for (const k of [".zgroup", "a/.zgroup", "a/b/.zgroup", "a/b/c/.zarray"])
      expect((await store.get(k)) !== undefined).toBe(true);
    await expect(
      createArrayV2(store, "a/b/c/d", { shape: [2], dtype: "<i4" }),
    ).rejects.toBeInstanceOf(ContainsNodeError);
    await expect(createGroupV2(store, "a")).rejects.toBeInstanceOf(ContainsNodeError);
  });

  const bad: [string, Record<string, unknown>, RegExp][] = [
    ["missing order", { order: undefined }, /order: is required/],
    ["bad dtype", { dtype: "<x4" }, /dtype: invalid dtype "<x4"/],
    ["datetime without unit size", { dtype: "<M4[ns]" }, /8 bytes/],
    ["chunks rank", { chunks: [1, 1] }, /chunks: has 2 dimensions/],
    ["zero chunk", { chunks: [0] }, /chunks\[0\]: must be an integer >= 1/],
    ["compressor without id", { compressor: { level: 1 } }, /compressor: must have a string "id"/],
    ["bad separator", { dimension_separator: "-" }, /dimension_separator/],
    ["object without codec", { dtype: "|O" }, /needs an object codec/],
    ["bad base64 fill", { dtype: "|S4", fill_value: "!!" }, /not base64/],
    ["float fill for int", { fill_value: 1.5 }, /not an integer/],
  ];
  for (const [what, patch, message] of bad) {
    it(`.zarray with ${what}: MetadataError naming the field`, async () => {
      const store = new MemoryStore();
      const doc: Record<string, unknown> = {
        zarr_format: 2,
        shape: [4],
        chunks: [2],
        dtype: "<i4",
        compressor: null,
        fill_value: 0,
        order: "C",
        filters: null,
        ...patch,
      };
      for (const k of Object.keys(doc)) if (doc[k] === undefined) delete doc[k];
      await store.set("x/.zarray", new TextEncoder().encode(JSON.stringify(doc)));
      const err = await openArray(store, "x").then(
        () => undefined,
        (e) => e,
      );
      expect(err).toBeInstanceOf(MetadataError);
      expect(err.message).toMatch(message);
      expect(err.message).toContain("x/.zarray");
    });
  }

  it("structured, datetime and S/U round trip through createArrayV2 and report JSON values", async () => {
    const store = new MemoryStore();
    const s = await createArrayV2(store, "s", {
      shape: [2],
      dtype: [
        ["a", "<i2"],
        ["b", "|S3", [2]],
      ],
      fillValue: { a: 7, b: ["x", "yz"] },
    });
    expect(jsonValues(await s.get())).toEqual([
      { a: 7, b: ["x", "yz"] },
      { a: 7, b: ["x", "yz"] },
    ]);
    const t = await createArrayV2(store, "t", { shape: [2], dtype: "<M8[ms]" });
    await t.set(null, BigInt64Array.from([-1n, 1700000000000n]));
    expect(jsonValues(await (await openArray(store, "t")).get())).toEqual(["-1", "1700000000000"]);
    const u = await createArrayV2(store, "u", { shape: [1], dtype: ">U2", fillValue: "é" });
    expect(jsonValues(await u.get())).toEqual(["é"]);
    await expect(u.set(null, "abc")).rejects.toThrow(/more than 2 code points/);
  });
});

describe("v3 → v2 metadata that numcodecs 0.11 reads", () => {
  it("refuses a v2 zstd compressor with checksum: true instead of dropping it (numcodecs < 0.13 cannot read the key)", async () => {
    const store = new MemoryStore();
    await expect(
      createArrayV2(store, "z", {
        shape: [50],
        chunks: [16],
        dtype: ">i8",
        compressor: { id: "zstd", level: 19, checksum: true },
      }),
    ).rejects.toBeInstanceOf(UnsupportedError);
    expect(await store.get("z/.zarray")).toBeUndefined();
  });

  it("leaves out zstd's checksum key and writes r<N> fill values as base64 (v2 spec: fill_value)", async () => {
    const store = new MemoryStore();
    await createArray(store, "z", {
      shape: [4],
      dataType: "int32",
      chunkKeyEncoding: { name: "v2", configuration: { separator: "." } },
      codecs: [
        { name: "bytes", configuration: { endian: "little" } },
        { name: "zstd", configuration: { level: 3, checksum: true } },
      ],
    });
    await createArray(store, "r", {
      shape: [2],
      dataType: "r16",
      fillValue: [1, 255],
      chunkKeyEncoding: { name: "v2", configuration: { separator: "." } },
    });
    await convertV3ToV2(store, "z");
    await convertV3ToV2(store, "r");
    const zarray = (key: string) => JSON.parse(new TextDecoder().decode(store.map.get(key)));
    expect(zarray("z/.zarray").compressor).toEqual({ id: "zstd", level: 3 });
    expect(zarray("r/.zarray").fill_value).toBe(Buffer.from([1, 255]).toString("base64"));
  });
});

describe("v2 nodes inside a v3 hierarchy", () => {
  it("a v3 group counts as the ancestor group (no .zgroup beside its zarr.json); a v3 array refuses children", async () => {
    const store = new MemoryStore();
    await createArray(store, "arr", { shape: [1], dataType: "uint8" });
    await createGroupV2(store, "legacy");
    expect(store.map.has("zarr.json")).toBe(true);
    expect(store.map.has(".zgroup")).toBe(false);
    expect(store.map.has("legacy/.zgroup")).toBe(true);
    await expect(createGroupV2(store, "arr/x")).rejects.toBeInstanceOf(ContainsNodeError);
  });
});

describe("compressors that read the bytes as numbers (zfpy, pcodec)", () => {
  const zarray = (dtype: string, id: string) => ({
    zarr_format: 2,
    shape: [4],
    chunks: [4],
    dtype,
    fill_value: 0,
    order: "C",
    filters: null,
    compressor: { id },
  });
  for (const id of ["zfpy", "pcodec"]) {
    it(`${id} with a big-endian dtype is a MetadataError naming it, never values read in the wrong byte order`, async () => {
      const store = new MemoryStore();
      await store.set(".zarray", new TextEncoder().encode(JSON.stringify(zarray(">f8", id))));
      const error = await openArray(store, "").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MetadataError);
      expect((error as Error).message).toContain(
        `compressor "${id}" with the big-endian dtype ">f8"`,
      );
    });
  }
  it("the same compressor with a little-endian or one-byte dtype passes the metadata check", async () => {
    for (const dtype of ["<f8", "|u1"]) {
      const store = new MemoryStore();
      await store.set(".zarray", new TextEncoder().encode(JSON.stringify(zarray(dtype, "zfpy"))));
      // Without @zarr/codec-zfp registered, the codec itself is what is missing.
      const error = await openArray(store, "").catch((e: unknown) => e);
      expect(error).not.toBeInstanceOf(MetadataError);
    }
  });
});

describe("convertV3ToV2 rewrites keep what v2 can hold", () => {
  const values = Int32Array.from({ length: 8 * 6 }, (_, i) => i * 3 - 50);
  async function v3(codecs: object[]) {
    const store = new MemoryStore();
    const a = await createArray(store, "a", {
      shape: [8, 6],
      dataType: "int32",
      chunkShape: [4, 6],
      codecs: codecs as never,
    });
    await a.set(null, values);
    return store;
  }
  const zarray = async (store: MemoryStore, key: string) =>
    JSON.parse(new TextDecoder().decode(await store.get(key)));

  it("a sharded array: the inner chunks and their compressor", async () => {
    const store = await v3([
      {
        name: "sharding_indexed",
        configuration: {
          chunk_shape: [2, 3],
          codecs: [
            { name: "bytes", configuration: { endian: "little" } },
            { name: "gzip", configuration: { level: 1 } },
          ],
        },
      },
    ]);
    const target = new MemoryStore();
    const { rewritten } = await convertV3ToV2(store, "a", { target });
    expect(rewritten).toBe(true);
    const z = await zarray(target, "a/.zarray");
    expect(z.chunks).toEqual([2, 3]);
    expect(z.compressor).toEqual(expect.objectContaining({ id: "gzip" }));
    expect((await (await openArray(target, "a")).get()).data).toEqual(values);
  });

  it("two bytes -> bytes codecs: the last one that has a v2 form (crc32c has none here)", async () => {
    const store = await v3([
      { name: "bytes", configuration: { endian: "little" } },
      { name: "zstd", configuration: { level: 3, checksum: false } },
      { name: "crc32c" },
    ]);
    const target = new MemoryStore();
    await convertV3ToV2(store, "a", { target });
    expect((await zarray(target, "a/.zarray")).compressor).toEqual(
      expect.objectContaining({ id: "zstd" }),
    );
    expect((await (await openArray(target, "a")).get()).data).toEqual(values);
  });
});

import { readFileSync } from "node:fs";
import { join } from "node:path";
import "@zarr/codec-blosc/register";
import "@zarr/codec-gzip/register";
import "@zarr/codec-zstd/register";
import { openArray } from "@zarr/core";
import { codecRegistry } from "@zarr/core/codec";
import { resolveStore } from "@zarr/core/store";
import { FileSystemStore } from "@zarr/store-fs";
import { ZipStore } from "@zarr/store-zip";
import { fileSource, openZipFile } from "@zarr/store-zip/node";
import { afterAll, describe, expect, it } from "vitest";

// The zarrita fixtures: the same hierarchy as a directory and as three zips
// (zipped from within the folder, from its parent — a top-level "data.zarr/"
// folder — and without compression, where sharded chunks are read by range).

const FIXTURES = "/work/shared/fixtures/zarrita";
const expected: Record<string, { shape: number[]; data: unknown[] }> = JSON.parse(
  readFileSync(join(FIXTURES, "expected-v3.json"), "utf8"),
);
const directory = new FileSystemStore(join(FIXTURES, "v3/data.zarr"));

/** Codec names used by an array of the fixture (sharding's inner codecs included). */
function codecNames(key: string): string[] {
  const meta = JSON.parse(readFileSync(join(FIXTURES, "v3/data.zarr", key, "zarr.json"), "utf8"));
  const names: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      if (typeof o.name === "string" && "configuration" in o) names.push(o.name);
      Object.values(o).forEach(walk);
    }
  };
  walk(meta.codecs);
  return names;
}
const unavailable = Object.fromEntries(
  Object.keys(expected).map((k) => [
    k,
    codecNames(k).filter((n) => n.startsWith("numcodecs.") && !codecRegistry.has(n)),
  ]),
);
for (const [k, missing] of Object.entries(unavailable)) {
  if (missing.length)
    console.warn(
      `skipping ${k}: codecs ${missing.join(", ")} not registered here (@zarr/v2-compat)`,
    );
}

const ZIPS = [
  { file: "data.zipped_from_within.zarr.zip", root: undefined },
  { file: "data.zipped_from_parent.zarr.zip", root: "data.zarr" },
  { file: "data.uncompressed.zarr.zip", root: undefined },
];

function plain(data: ArrayLike<unknown>): unknown[] {
  return Array.from(data, (v) => (typeof v === "bigint" ? Number(v) : v));
}

/** Loose equality with the expected JSON: float32 values compare after rounding. */
function same(got: unknown, want: unknown): boolean {
  if (got === want) return true;
  if (typeof got === "number" && typeof want === "number")
    return Math.fround(got) === Math.fround(want);
  if (typeof got === "number" && typeof want === "string") return String(got) === want;
  if (typeof want === "boolean") return (got === 1 || got === true) === want;
  return false;
}

const opened: ZipStore[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
});

describe.each(ZIPS)("zarrita v3 fixture $file", ({ file, root }) => {
  const open = async () => {
    const s = await openZipFile(join(FIXTURES, "v3", file), { root });
    opened.push(s);
    return s;
  };

  it("lists the same keys as the directory", async () => {
    const zip = resolveStore(await open());
    const fromZip: string[] = [];
    for await (const k of zip.list()) fromZip.push(k);
    const fromDir: string[] = [];
    for await (const k of resolveStore(directory).list()) fromDir.push(k);
    expect(fromZip.sort()).toEqual(fromDir.sort());
  });

  const keys = Object.keys(expected);
  it.each(keys.filter((k) => unavailable[k].length === 0))(
    "reads %s like the directory and as expected",
    async (key) => {
      const zip = await open();
      const a = await openArray(zip, key);
      const b = await openArray(directory, key);
      const got = await a.get();
      const want = await b.get();
      expect(got.shape).toEqual(expected[key].shape);
      expect(plain(got.data)).toEqual(plain(want.data));
      if (a.dataType.name !== "float16") {
        const values = plain(got.data);
        const bad = values.findIndex((v, i) => !same(v, expected[key].data[i]));
        expect(bad, `first mismatch at ${bad}`).toBe(-1);
      }
    },
  );
});

describe("ranged reads of sharded data in the uncompressed zip", () => {
  // v3 sharding_indexed: the shard index and one inner chunk are read by range;
  // in a stored (uncompressed) zip entry those are ranged reads of the archive.
  it("reads one inner chunk of a shard with ranged reads of the archive only", async () => {
    const source = fileSource(join(FIXTURES, "v3/data.uncompressed.zarr.zip"));
    const reads: [number, number][] = [];
    const counted = {
      ...source,
      read: (offset: number, length: number, signal?: AbortSignal) => {
        reads.push([offset, length]);
        return source.read(offset, length, signal);
      },
    };
    const zip = await ZipStore.open(counted);
    opened.push(zip);
    const key = "3d.chunked.compressed.sharded.i2";
    const shard = zip.entry(`${key}/c/1/1/1`);
    expect(shard?.method).toBe(0); // stored
    const array = await openArray(zip, key);
    const whole = await array.get();
    reads.length = 0;
    const one = await array.get([3, 3, 3]);
    expect(one.data[0]).toBe(whole.data[whole.data.length - 1]);
    // Each read is part of the shard entry (index, then one chunk), never all of it.
    expect(reads.length).toBeGreaterThanOrEqual(2);
    const start = shard!.localHeaderOffset;
    for (const [offset, length] of reads) {
      expect(offset).toBeGreaterThanOrEqual(start);
      expect(offset + length).toBeLessThanOrEqual(start + 30 + 256 + shard!.size);
      expect(length).toBeLessThan(shard!.size);
    }
  });
});

// Decompression bombs through every codec chain, read through arrays: each
// decode must be bounded by what the metadata justifies (exact sizes for
// fixed-size chunks; the decode limits for strings, bytes and objects),
// whatever chain of codecs precedes it, on the calling thread and in workers,
// through `get` and the CLI. Each case runs under the watchdog: a bomb that
// is decoded whole passes the RSS cap and fails the test.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { crc32c } from "@zarr/core/builtin-codecs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attack, describeRun, runZarr, zlibBomb, zstdRawFrame, zstdRleBomb } from "../src/index.js";

// Under the test timeout (60 s), so that a stuck child is reported by the watchdog.
const LIMITS = { maxRssMiB: 400, timeoutMs: 45_000 };
/** Reads whose chunks may each fill maxChunkBytes (256 MiB): the in-flight budget holds them. */
const BUDGET_LIMITS = { maxRssMiB: 640, timeoutMs: 90_000 };
const GIB = 1 << 30;

let root: string;

async function put(rel: string, data: Uint8Array | object): Promise<void> {
  const file = join(root, rel);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, data instanceof Uint8Array ? data : JSON.stringify(data));
}

function v3Array(shape: number[], chunk: number[], dataType: string, codecs: object[]) {
  return {
    zarr_format: 3,
    node_type: "array",
    shape,
    data_type: dataType,
    chunk_grid: { name: "regular", configuration: { chunk_shape: chunk } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    fill_value: dataType === "string" || dataType === "bytes" ? "" : 0,
    codecs,
  };
}

const zstd = { name: "zstd", configuration: { level: 3, checksum: false } };
const gzip = { name: "gzip", configuration: { level: 5 } };

/** One inner chunk of a sharded string array: entry 0 is `inner`, the rest missing. */
function shard(inner: Uint8Array, chunks: number): Uint8Array {
  const index = new Uint8Array(chunks * 16 + 4);
  const view = new DataView(index.buffer);
  for (let i = 0; i < chunks; i++) {
    view.setBigUint64(i * 16, i === 0 ? 0n : 0xffff_ffff_ffff_ffffn, true);
    view.setBigUint64(i * 16 + 8, i === 0 ? BigInt(inner.length) : 0xffff_ffff_ffff_ffffn, true);
  }
  view.setUint32(chunks * 16, crc32c(index.subarray(0, chunks * 16)), true);
  const out = new Uint8Array(inner.length + index.length);
  out.set(inner);
  out.set(index, inner.length);
  return out;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "zarr-attack-bombs-"));
  const zstd2g = zstdRleBomb(2 * GIB);
  const gzip1g = await zlibBomb("gzip", GIB);
  const zlib1g = await zlibBomb("zlib", GIB);

  // v3 strings + zstd: the reported case (10 strings, a 64 KB chunk).
  await put("str-zstd/zarr.json", v3Array([10], [10], "string", [{ name: "vlen-utf8" }, zstd]));
  await put("str-zstd/c/0", zstd2g);
  // Eight such chunks in one read.
  await put("str-zstd-8/zarr.json", v3Array([80], [10], "string", [{ name: "vlen-utf8" }, zstd]));
  for (let i = 0; i < 8; i++) await put(`str-zstd-8/c/${i}`, zstd2g);
  // Fixed-size data, two compressors: the outer one (decoded first) is the bomb.
  await put(
    "f32-zstd-gzip/zarr.json",
    v3Array([1024], [1024], "float32", [
      { name: "bytes", configuration: { endian: "little" } },
      zstd,
      gzip,
    ]),
  );
  await put("f32-zstd-gzip/c/0", gzip1g);
  // Three deep: strings, gzip, zstd; the zstd frame is honest, the gzip inside it a bomb.
  await put(
    "str-gzip-zstd/zarr.json",
    v3Array([10], [10], "string", [{ name: "vlen-utf8" }, gzip, zstd]),
  );
  await put("str-gzip-zstd/c/0", zstdRawFrame(gzip1g));
  // Bytes (vlen-bytes) + gzip.
  await put("bytes-gzip/zarr.json", v3Array([4], [4], "bytes", [{ name: "vlen-bytes" }, gzip]));
  await put("bytes-gzip/c/0", gzip1g);
  // Sharded strings: an inner chunk is the bomb (full and partial reads).
  await put(
    "sharded-str/zarr.json",
    v3Array([100], [100], "string", [
      {
        name: "sharding_indexed",
        configuration: { chunk_shape: [10], codecs: [{ name: "vlen-utf8" }, zstd] },
      },
    ]),
  );
  await put("sharded-str/c/0", shard(zstd2g, 10));
  // Sharded strings with a compressor outside the shard: the shard's own bound
  // (30 inner chunks of ~100 MiB each in theory) is capped by maxChunkBytes.
  await put(
    "sharded-str-gzip/zarr.json",
    v3Array([3000], [3000], "string", [
      {
        name: "sharding_indexed",
        configuration: { chunk_shape: [100], codecs: [{ name: "vlen-utf8" }] },
      },
      gzip,
    ]),
  );
  await put("sharded-str-gzip/c/0", gzip1g);
  // v2 object arrays: vlen-utf8 filter + zstd; json2 filter + zlib; vlen-bytes + gzip.
  const zarray = (filters: object[], compressor: object | null) => ({
    zarr_format: 2,
    shape: [10],
    chunks: [10],
    dtype: "|O",
    fill_value: null,
    order: "C",
    filters,
    compressor,
    dimension_separator: ".",
  });
  await put("v2-vlen-zstd/.zarray", zarray([{ id: "vlen-utf8" }], { id: "zstd", level: 1 }));
  await put("v2-vlen-zstd/0", zstd2g);
  await put(
    "v2-json2-zlib/.zarray",
    zarray(
      [
        {
          id: "json2",
          encoding: "utf-8",
          allow_nan: true,
          check_circular: true,
          ensure_ascii: true,
          separators: [",", ":"],
          sort_keys: true,
          indent: null,
          skipkeys: false,
          strict: true,
        },
      ],
      { id: "zlib", level: 1 },
    ),
  );
  await put("v2-json2-zlib/0", zlib1g);
  // Many chunks whose bound is the whole chunk limit (1000 strings each): every
  // chunk a gzip bomb just past maxChunkBytes (256 MiB), 16 of them in one read.
  const gzip300m = await zlibBomb("gzip", 300 << 20);
  await put(
    "str-gzip-16/zarr.json",
    v3Array([16_000], [1000], "string", [{ name: "vlen-utf8" }, gzip]),
  );
  for (let i = 0; i < 16; i++) await put(`str-gzip-16/c/${i}`, gzip300m);
  // json2 values nested far deeper than any reader can walk: a stored shape of
  // 200,000 dimensions, and one value nested 200,000 levels.
  const D = 200_000;
  const json2Doc = (text: string) => new TextEncoder().encode(text);
  const json2Zarray = {
    ...zarray(
      [
        {
          id: "json2",
          encoding: "utf-8",
          allow_nan: true,
          sort_keys: true,
          separators: [",", ":"],
        },
      ],
      null,
    ),
    shape: [1],
    chunks: [1],
  };
  await put("json2-deep-shape/.zarray", json2Zarray);
  await put(
    "json2-deep-shape/0",
    json2Doc(`[${"[".repeat(D)}1${"]".repeat(D)},"|O",[${new Array(D).fill(1).join(",")}]]`),
  );
  await put("json2-deep-value/.zarray", json2Zarray);
  await put("json2-deep-value/0", json2Doc(`[${"[".repeat(D)}${"]".repeat(D)},"|O",[1]]`));
  await put("v2-vlenbytes-gzip/.zarray", zarray([{ id: "vlen-bytes" }], { id: "gzip", level: 1 }));
  await put("v2-vlenbytes-gzip/0", gzip1g);
}, 120_000);

afterAll(() => (root ? rm(root, { recursive: true, force: true }) : undefined));

/** Opens `path` in the fixture directory in a child and reads `selection` (all when omitted). */
function read(path: string, selection = "undefined", prelude = ""): ReturnType<typeof attack> {
  return attack(
    `
    await import("@zarr/codec-zstd/register");
    await import("@zarr/codec-gzip/register");
    await import("@zarr/v2-compat/register");
    ${prelude}
    const { openArray, slice } = await import("@zarr/core");
    const { FileSystemStore } = await import("@zarr/store-fs");
    const a = await openArray(new FileSystemStore(${JSON.stringify(root)}), ${JSON.stringify(path)});
    const r = await a.get(${selection});
    return r.data.length;
    `,
    LIMITS,
  );
}

describe("decompression bombs through codec chains are CodecErrors within bounded memory", () => {
  it.each([
    ["v3 string + zstd (10 elements, 2 GiB frame)", "str-zstd"],
    ["v3 string + zstd, eight bombs in one read", "str-zstd-8"],
    ["v3 float32 + zstd + gzip (gzip bomb outside)", "f32-zstd-gzip"],
    ["v3 string + gzip + zstd (gzip bomb inside a zstd frame)", "str-gzip-zstd"],
    ["v3 bytes + gzip", "bytes-gzip"],
    ["v3 sharded string, inner vlen-utf8 + zstd, full read", "sharded-str"],
    ["v3 sharded string with gzip outside the shard", "sharded-str-gzip"],
    ["v2 |O vlen-utf8 filter + zstd", "v2-vlen-zstd"],
    ["v2 |O json2 filter + zlib", "v2-json2-zlib"],
    ["v2 |O vlen-bytes filter + gzip", "v2-vlenbytes-gzip"],
  ])("%s", async (_name, path) => {
    const r = await read(path);
    expect(r.killed, describeRun(r)).toBeUndefined();
    expect(r.error?.name, describeRun(r)).toBe("CodecError");
    expect(r.peakRssMiB, describeRun(r)).toBeLessThan(LIMITS.maxRssMiB);
  });

  it("16 chunks of 1000 strings, each a gzip bomb past maxChunkBytes, in one read and in 4 reads at once (the in-flight budget)", async () => {
    for (const prelude of ["", "const many = true;"]) {
      const r = await attack(
        `
        await import("@zarr/codec-gzip/register");
        const { openArray } = await import("@zarr/core");
        const { FileSystemStore } = await import("@zarr/store-fs");
        const a = await openArray(new FileSystemStore(${JSON.stringify(root)}), "str-gzip-16");
        ${prelude}
        const reads = typeof many === "undefined" ? [a.get()] : [a.get(), a.get(), a.get(), a.get()];
        const settled = await Promise.allSettled(reads);
        return settled.map((x) => x.status === "rejected" ? x.reason.name : "read");
        `,
        // One decode of up to 256 MiB at a time (maxBytesInFlight), plus the
        // previous one's output until the collector frees it: about 400 MiB
        // here, where 16 decodes at once took 4.1 GB before the budget.
        BUDGET_LIMITS,
      );
      expect(r.killed, describeRun(r)).toBeUndefined();
      expect(new Set(r.value as string[]), describeRun(r)).toEqual(new Set(["CodecError"]));
      expect(r.peakRssMiB, describeRun(r)).toBeLessThan(BUDGET_LIMITS.maxRssMiB);
      console.info(
        `str-gzip-16 ${prelude ? "x4" : "x1"}: peak ${r.peakRssMiB} MiB, ${r.elapsedMs} ms`,
      );
    }
  });

  it.each([
    ["a stored shape of 200,000 dimensions", "json2-deep-shape"],
    ["one value nested 200,000 levels", "json2-deep-value"],
  ])(
    "json2 with %s is a CodecError (no stack overflow); zarr get prints nothing, verify reports it",
    async (_name, path) => {
      const r = await read(path);
      expect(r.killed, describeRun(r)).toBeUndefined();
      expect(r.error?.name, describeRun(r)).toBe("CodecError");
      const get = await runZarr(["get", root, path, "--json"], LIMITS);
      expect(get.code, describeRun(get)).toBe(2);
      expect(get.stdout).toBe("");
      expect(get.stderr).toMatch(/CodecError: .*json2/);
      const verify = await runZarr(["verify", root, path], LIMITS);
      expect(verify.code, describeRun(verify)).toBe(2);
      expect(verify.stdout).toMatch(/corrupt/);
    },
  );

  it("a partial read of a sharded array whose inner chunk is a bomb", async () => {
    const r = await read("sharded-str", "[slice(0, 5)]");
    expect(r.killed, describeRun(r)).toBeUndefined();
    expect(r.error?.name, describeRun(r)).toBe("CodecError");
  });

  it("decoding in a worker pool is bounded the same way", async () => {
    const r = await read(
      "str-zstd-8",
      "undefined",
      `const { WorkerPool } = await import("@zarr/workers");
       const { ZarrArray } = await import("@zarr/core");
       ZarrArray.defaultWorkers = new WorkerPool({ size: 2, minChunkBytes: 0 });`,
    );
    expect(r.killed, describeRun(r)).toBeUndefined();
    expect(r.error?.name, describeRun(r)).toBe("CodecError");
    expect(r.peakRssMiB, describeRun(r)).toBeLessThan(LIMITS.maxRssMiB);
  });

  it("zarr get on such an array exits 2 with the chunk named, within bounded memory", async () => {
    const r = await runZarr(["get", root, "str-zstd-8", "--json"], LIMITS);
    expect(r.killed, r.stderr).toBeUndefined();
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/str-zstd-8\/c\/\d/);
    expect(r.peakRssMiB).toBeLessThan(LIMITS.maxRssMiB);
  });
});

describe("the limits reject no data within them, and can be raised", () => {
  it("a sharded string array of 100,000 elements in inner chunks of 100, gzip outside, reads back what was written", async () => {
    const r = await attack(
      `
      await import("@zarr/codec-gzip/register");
      const { MemoryStore, createArray, openArray, slice } = await import("@zarr/core");
      const store = new MemoryStore();
      const a = await createArray(store, "s", {
        shape: [100000], chunkShape: [100000], dataType: "string",
        codecs: [
          { name: "sharding_indexed", configuration: { chunk_shape: [100], codecs: [{ name: "vlen-utf8" }] } },
          { name: "gzip", configuration: { level: 1 } },
        ],
      });
      await a.set([slice(0, 3)], ["a", "b", "c"]);
      await a.set([slice(99998, 100000)], ["y", "z"]);
      const b = await openArray(store, "s");
      return [...(await b.get([slice(0, 4)])).data, ...(await b.get([slice(99998, null)])).data];
      `,
      LIMITS,
    );
    expect(r.error, describeRun(r)).toBeUndefined();
    expect(r.value).toEqual(["a", "b", "c", "", "y", "z"]);
  });

  it("an element of exactly maxElementBytes reads; one byte more is a CodecError naming the limit until raised", async () => {
    const r = await attack(
      `
      await import("@zarr/codec-zstd/register");
      const { MemoryStore, createArray, openArray, setDecodeLimits } = await import("@zarr/core");
      const store = new MemoryStore();
      const codecs = [{ name: "vlen-utf8" }, { name: "zstd", configuration: { level: 1, checksum: false } }];
      const ok = await createArray(store, "ok", { shape: [3], chunkShape: [3], dataType: "string", codecs });
      await ok.set(null, ["a".repeat(1 << 20), "", "é"]);
      const back = (await (await openArray(store, "ok")).get()).data;
      const big = await createArray(store, "big", { shape: [1], chunkShape: [1], dataType: "string", codecs });
      await big.set(null, ["b".repeat((1 << 20) + 1)]);
      let refused;
      try { await (await openArray(store, "big")).get(); } catch (e) { refused = e.name + ": " + e.message; }
      const perRead = (await (await openArray(store, "big")).get(null, { decodeLimits: { maxElementBytes: 2 << 20 } })).data[0].length;
      setDecodeLimits({ maxElementBytes: 2 << 20 });
      const raised = (await (await openArray(store, "big")).get()).data[0].length;
      return { lengths: back.map((s) => s.length), refused, perRead, raised };
      `,
      LIMITS,
    );
    expect(r.error, describeRun(r)).toBeUndefined();
    const v = r.value as { lengths: number[]; refused: string; perRead: number; raised: number };
    expect(v.lengths).toEqual([1 << 20, 0, 1]);
    expect(v.refused).toMatch(/^CodecError: .*maxElementBytes/);
    expect(v.perRead).toBe((1 << 20) + 1);
    expect(v.raised).toBe((1 << 20) + 1);
  });
});

// Defects the write-direction interop suite (tools/interop, issue 16) found in
// `zarr create` and `zarr copy`: a destination chunk left out must read as the
// source's values; fill values beyond 2^53 and JSON forms with strings; filters
// kept when a codec has no v2 form; sharded chains with codecs after sharding
// or sharding nested in sharding.
import "@zarr/codec-gzip/register";
import "@zarr/codec-zstd/register";
import "@zarr/v2-compat/register";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createArray, openArray } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { createArrayV2 } from "@zarr/v2-compat";
import { afterAll, describe, expect, it } from "vitest";
import { run } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "zarr-cli-fill-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const zarray = (root: string, path: string) =>
  JSON.parse(readFileSync(join(root, path, ".zarray"), "utf8"));
const hex = (a: ArrayBufferView) =>
  Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString("hex");

async function ok(...argv: string[]) {
  const r = await run(...argv);
  expect(r.err.replace(/^zarr: note: .*$/gm, "").trim()).toBe("");
  expect(r.code).toBe(0);
}

describe("zarr copy writes out chunks its destination would read differently when missing", () => {
  it('v3 float32 fill 0x7fc00001 -> v2 (fill "NaN"): the all-fill chunk is stored with its payload', async () => {
    const src = join(dir, "nan-src");
    const dst = join(dir, "nan-dst");
    const a = await createArray(new FileSystemStore(src), "a", {
      shape: [4],
      dataType: "float32",
      chunkShape: [2],
      fillValue: "0x7fc00001",
    });
    const data = new Float32Array(4);
    const bits = new Uint32Array(data.buffer);
    bits.set([0x7fc00001, 0x7fc00001, 0x3f800000, 0x40000000]);
    await a.set(null, { data, shape: [4] });
    await ok("copy", src, dst, "--format", "2", "-q");
    expect(zarray(dst, "a").fill_value).toBe("NaN");
    const got = await (await openArray(new FileSystemStore(dst), "a")).get();
    expect(hex(got.data as Float32Array)).toBe(hex(data));
  });

  it("v3 bytes -> v2 (fill_value null): every chunk is stored, missing ones included", async () => {
    const src = join(dir, "bytes-src");
    const dst = join(dir, "bytes-dst");
    const a = await createArray(new FileSystemStore(src), "b", {
      shape: [4],
      dataType: "bytes",
      chunkShape: [2],
      fillValue: Uint8Array.from([7, 0]),
      codecs: [{ name: "vlen-bytes" }],
    });
    const values = [
      new Uint8Array([7, 0]),
      new Uint8Array([7, 0]),
      new Uint8Array([1]),
      new Uint8Array(),
    ];
    await a.set(null, { data: values, shape: [4] });
    await ok("copy", src, dst, "--format", "2", "-q");
    expect(zarray(dst, "b").fill_value).toBeNull();
    expect(readFileSync(join(dst, "b", "0")).length).toBeGreaterThan(0);
    const got = await (await openArray(new FileSystemStore(dst), "b")).get();
    expect((got.data as Uint8Array[]).map((b) => [...b])).toEqual(values.map((b) => [...b]));
  });

  it("refuses (exit 2) rather than write out 10^8 chunks no source chunk backs", async () => {
    const src = join(dir, "huge-src");
    await createArray(new FileSystemStore(src), "h", {
      shape: [100_000_000],
      dataType: "float32",
      chunkShape: [1],
      fillValue: "0x7fc00001",
    });
    const r = await run("copy", src, join(dir, "huge-dst"), "--format", "2", "-q");
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/all 100000000 destination chunks would be written/);
  });

  it('v3 complex64 fill with a hex part -> v2 writes ["NaN", 1.5] (v2 has no bit patterns)', async () => {
    const src = join(dir, "c-src");
    const dst = join(dir, "c-dst");
    await createArray(new FileSystemStore(src), "c", {
      shape: [2],
      dataType: "complex64",
      chunkShape: [2],
      fillValue: ["0x7fc00001", 1.5],
    });
    await ok("copy", src, dst, "--format", "2", "-q");
    expect(zarray(dst, "c").fill_value).toEqual(["NaN", 1.5]);
  });
});

describe("zarr create --fill-value", () => {
  it("keeps integers beyond 2^53 exactly (uint64 max, int64 min)", async () => {
    const root = join(dir, "create");
    await ok(
      "create",
      root,
      "u",
      "--format",
      "2",
      "--shape",
      "3",
      "--dtype",
      "<u8",
      "--fill-value",
      "18446744073709551615",
    );
    expect(readFileSync(join(root, "u", ".zarray"), "utf8")).toContain(
      '"fill_value": 18446744073709551615',
    );
    await ok(
      "create",
      root,
      "i",
      "--shape",
      "3",
      "--dtype",
      "int64",
      "--fill-value=-9223372036854775808",
    );
    expect(readFileSync(join(root, "i", "zarr.json"), "utf8")).toContain(
      '"fill_value": -9223372036854775808',
    );
  });

  it('takes JSON forms with strings inside a list (complex ["Infinity", -1.5])', async () => {
    const root = join(dir, "create");
    await ok(
      "create",
      root,
      "c",
      "--format",
      "2",
      "--shape",
      "3",
      "--dtype",
      "<c16",
      "--fill-value",
      '["Infinity", -1.5]',
    );
    expect(zarray(root, "c").fill_value).toEqual(["Infinity", -1.5]);
  });
});

describe("zarr copy layouts", () => {
  it("a filter survives when a codec has no v2 form (categorize on |O with --compressor gzip:1+crc32c)", async () => {
    const src = join(dir, "cat-src");
    const dst = join(dir, "cat-dst");
    const filters = [{ id: "categorize", labels: ["a", "b"], dtype: "|O", astype: "|u1" }];
    const a = await createArrayV2(new FileSystemStore(src), "s", {
      shape: [3],
      dtype: "|O",
      filters,
    });
    await a.set(null, { data: ["a", "b", "a"], shape: [3] });
    await ok("copy", src, dst, "--compressor", "gzip:1+crc32c", "-q");
    const z = zarray(dst, "s");
    expect(z.filters).toEqual(filters);
    expect(z.compressor).toEqual({ id: "gzip", level: 1 });
    const got = await (await openArray(new FileSystemStore(dst), "s")).get();
    expect(got.data).toEqual(["a", "b", "a"]);
  });

  for (const [name, codecs] of [
    [
      "gzip after sharding",
      [
        {
          name: "sharding_indexed",
          configuration: {
            chunk_shape: [2, 2],
            codecs: [{ name: "bytes", configuration: { endian: "little" } }],
            index_codecs: [
              { name: "bytes", configuration: { endian: "little" } },
              { name: "crc32c" },
            ],
            index_location: "start",
          },
        },
        { name: "gzip", configuration: { level: 1 } },
      ],
    ],
    [
      "sharding in sharding",
      [
        {
          name: "sharding_indexed",
          configuration: {
            chunk_shape: [2, 2],
            codecs: [
              {
                name: "sharding_indexed",
                configuration: {
                  chunk_shape: [1, 1],
                  codecs: [
                    { name: "bytes", configuration: { endian: "little" } },
                    { name: "zstd", configuration: { level: 1, checksum: true } },
                  ],
                  index_codecs: [{ name: "bytes", configuration: { endian: "little" } }],
                  index_location: "end",
                },
              },
            ],
            index_codecs: [
              { name: "bytes", configuration: { endian: "little" } },
              { name: "crc32c" },
            ],
            index_location: "end",
          },
        },
      ],
    ],
  ] as const) {
    it(`re-lays out a source with ${name} (--key-encoding v2, --endian big, --chunks)`, async () => {
      const src = join(dir, `shard-${name.replace(/ /g, "-")}`);
      const a = await createArray(new FileSystemStore(src), "x", {
        shape: [5, 6],
        dataType: "int16",
        chunkShape: [4, 4],
        codecs: codecs as never,
      });
      const data = Int16Array.from({ length: 30 }, (_, i) => i * 7 - 50);
      await a.set(null, { data, shape: [5, 6] });
      for (const [i, flags] of [
        ["--key-encoding", "v2"],
        ["--endian", "big", "--compressor", "gzip:3"],
        ["--chunks", "2,3", "--shards", "4,6"],
        ["--format", "2"],
      ].entries()) {
        const dst = join(dir, `shard-dst-${name.replace(/ /g, "-")}-${i}`);
        await ok("copy", src, dst, "-q", ...flags);
        const got = await (await openArray(new FileSystemStore(dst), "x")).get();
        expect([...(got.data as Int16Array)]).toEqual([...data]);
      }
    });
  }
});

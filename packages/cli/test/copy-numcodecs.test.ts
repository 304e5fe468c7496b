// zarr copy between v2 and v3 with numcodecs codecs that have both forms:
// zfpy and pcodec are v2 compressors and zarr-python 3 array -> bytes codecs
// (`numcodecs.zfpy` in place of `bytes`); checksums and the other compressors
// are bytes -> bytes in both. Conversions keep them instead of dropping them,
// and zarr-python 2.13 reads the v2 results.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "@zarr/codec-zfp/register";
import "@zarr/codec-checksums/register";
import "@zarr/codec-lzma/register";
import { createArray } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { findPython, pythonSkipReason, runPython } from "@zarr/test-utils";
import { createArrayV2 } from "@zarr/v2-compat";
import "@zarr/v2-compat/register";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "zarr-cli-numcodecs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const values = Float64Array.from({ length: 6 * 10 }, (_, i) => Math.sin(i) * 100);
const json = (path: string) => JSON.parse(readFileSync(path, "utf8"));

beforeAll(async () => {
  const v2 = new FileSystemStore(join(dir, "v2.zarr"));
  const a = await createArrayV2(v2, "zfp", {
    shape: [6, 10],
    dtype: "<f8",
    chunks: [4, 4],
    compressor: { id: "zfpy", mode: 5 }, // reversible: exact
  });
  await a.set(null, values);
  const v3 = new FileSystemStore(join(dir, "v3.zarr"));
  const common = { shape: [6, 10], dataType: "float64", chunkShape: [4, 4] } as const;
  const zfp = await createArray(v3, "zfp", {
    ...common,
    codecs: [{ name: "numcodecs.zfpy", configuration: { mode: 5 } }],
  });
  await zfp.set(null, values);
  const checked = await createArray(v3, "zfp-crc", {
    ...common,
    codecs: [{ name: "numcodecs.zfpy", configuration: { mode: 5 } }, { name: "numcodecs.crc32" }],
  });
  await checked.set(null, values);
});

async function read(store: string, path: string): Promise<number[]> {
  const r = await run("get", store, path, "--json");
  expect(r.err).toBe("");
  return JSON.parse(r.out).data;
}

describe("zarr copy keeps numcodecs codecs across formats", () => {
  it("v2 zfpy → v3: numcodecs.zfpy replaces bytes (as zarr-python 3 writes it), same values", async () => {
    const r = await run(
      "copy",
      join(dir, "v2.zarr"),
      join(dir, "to3.zarr"),
      "--path",
      "zfp",
      "--format",
      "3",
    );
    expect(r.code, r.err).toBe(0);
    const meta = json(join(dir, "to3.zarr", "zfp", "zarr.json"));
    expect(meta.codecs).toEqual([
      { name: "numcodecs.zfpy", configuration: expect.objectContaining({ mode: 5 }) },
    ]);
    expect(await read(join(dir, "to3.zarr"), "zfp")).toEqual([...values]);
  });

  it("v3 numcodecs.zfpy → v2: the zfpy compressor, same values", async () => {
    const r = await run(
      "copy",
      join(dir, "v3.zarr"),
      join(dir, "to2.zarr"),
      "--path",
      "zfp",
      "--format",
      "2",
    );
    expect(r.code, r.err).toBe(0);
    const z = json(join(dir, "to2.zarr", "zfp", ".zarray"));
    expect(z.compressor).toEqual(expect.objectContaining({ id: "zfpy", mode: 5 }));
    expect(z.dtype).toBe("<f8");
    expect(await read(join(dir, "to2.zarr"), "zfp")).toEqual([...values]);
  });

  it("v3 numcodecs.zfpy + numcodecs.crc32 → v2 keeps zfpy (v2 has one compressor) and says what it dropped", async () => {
    const r = await run(
      "copy",
      join(dir, "v3.zarr"),
      join(dir, "to2-crc.zarr"),
      "--path",
      "zfp-crc",
      "--format",
      "2",
    );
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain("numcodecs.crc32");
    expect(json(join(dir, "to2-crc.zarr", "zfp-crc", ".zarray")).compressor).toEqual(
      expect.objectContaining({ id: "zfpy" }),
    );
    expect(await read(join(dir, "to2-crc.zarr"), "zfp-crc")).toEqual([...values]);
  });

  it("a v2 compressor id in --codecs (lzma) is written as the v2 compressor, not dropped", async () => {
    const codecs = JSON.stringify([
      { name: "bytes", configuration: { endian: "little" } },
      { name: "lzma", configuration: { preset: 3 } },
    ]);
    const r = await run(
      "copy",
      join(dir, "v2.zarr"),
      join(dir, "lzma.zarr"),
      "--path",
      "zfp",
      "--format",
      "2",
      "--codecs",
      codecs,
    );
    expect(r.code, r.err).toBe(0);
    expect(json(join(dir, "lzma.zarr", "zfp", ".zarray")).compressor).toEqual(
      expect.objectContaining({ id: "lzma", preset: 3 }),
    );
    expect(await read(join(dir, "lzma.zarr"), "zfp")).toEqual([...values]);
  });

  const MODULES = ["zarr", "numcodecs.zfpy", "numpy"];
  const python = findPython(MODULES);
  if (!python) console.warn(pythonSkipReason(MODULES));
  it.skipIf(!python)("zarr-python 2.13 reads the v2 zfpy copy element for element", () => {
    const out = runPython(
      python!,
      `import json, zarr\nprint(json.dumps(zarr.open_array(${JSON.stringify(join(dir, "to2.zarr", "zfp"))}, mode="r")[...].ravel().tolist()))`,
    );
    expect(JSON.parse(out.toString())).toEqual([...values]);
  });
});

describe("--codecs without an array -> bytes codec", () => {
  it("a compressor first is a usage error naming it and the fix, for either format", async () => {
    for (const format of ["2", "3"]) {
      const r = await run(
        "copy",
        join(dir, "v2.zarr"),
        join(dir, `bare-${format}.zarr`),
        "--path",
        "zfp",
        "--format",
        format,
        "--codecs",
        '[{"name":"lzma","configuration":{"preset":3}}]',
      );
      expect(r.code).toBe(1);
      expect(r.err).toContain('"lzma" works on bytes');
      expect(r.err).toContain('{"name":"bytes"');
    }
  });
});

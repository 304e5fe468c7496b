// Issue 16: an xarray dataset (CF scale_factor/add_offset on int16, _FillValue,
// a datetime coordinate with NaT, strings with "", |S bytes, an int8 mask, a
// bool, float with NaN and -0.0, a 0-d variable) round-trips through `zarr copy`
// with and without --compressor, --format and rechunking; xarray compares every
// v2 result with the original, decoded and with decode_cf=False. v3
// intermediates are compared after their copy back to v2 (xarray 2023 opens v2).
import "@zarr/codec-blosc/register";
import "@zarr/codec-bz2/register";
import "@zarr/codec-gzip/register";
import "@zarr/codec-lz4/register";
import "@zarr/codec-lzma/register";
import "@zarr/codec-zstd/register";
import "@zarr/v2-compat/register";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileSystemStore } from "@zarr/store-fs";
import { consolidate } from "@zarr/v2-compat";
import { afterAll, describe, expect, it } from "vitest";
import { zarr } from "../src/cli-cases.js";
import { pythonWith, runPyJson } from "../src/python.js";

const PY = pythonWith(["xarray", "pandas", "zarr", "numcodecs", "numpy"]);
if (!PY.exe) {
  // Under CI the reference implementations are required: fail, never skip.
  if (process.env.CI) throw new Error(`CI: ${PY.skipReason}`);
  console.warn(PY.skipReason);
}

/** Each copy: its steps (zarr copy arguments after SRC DST) from the dataset to a v2 result. */
const COPIES: Record<string, string[][]> = {
  plain: [[]],
  "gzip:1": [["--compressor", "gzip:1"]],
  "zstd:3": [["--compressor", "zstd:3"]],
  "blosc:zstd:5:bitshuffle": [["--compressor", "blosc:zstd:5:bitshuffle"]],
  "none+order F": [["--compressor", "none", "--order", "F"]],
  "format 3, back to 2": [
    ["--format", "3"],
    ["--format", "2"],
  ],
  "format 3 zstd:3+crc32c, back to 2 gzip:9": [
    ["--format", "3", "--compressor", "zstd:3+crc32c"],
    ["--format", "2", "--compressor", "gzip:9"],
  ],
  "format 3 blosc:lz4, back to 2": [
    ["--format", "3", "--compressor", "blosc:lz4:5:shuffle"],
    ["--format", "2"],
  ],
};

/** Rechunked copies: every 2-d variable gets --chunks, and the group is consolidated again. */
const RECHUNKED: Record<string, { chunks: string; extra: string[]; viaV3?: boolean }> = {
  "rechunk 2,3": { chunks: "2,3", extra: [] },
  "rechunk 7,1 + zstd:1": { chunks: "7,1", extra: ["--compressor", "zstd:1"] },
  "rechunk 3,5 via v3 shards": { chunks: "3,5", extra: [], viaV3: true },
};

describe.skipIf(!PY.exe)("xarray round trip through zarr copy (issue 16)", () => {
  const dir = mkdtempSync(join(tmpdir(), "zarr-xarray-"));
  const src = join(dir, "src.zarr");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("every copy opens in xarray identical to the dataset, decoded and raw", async () => {
    runPyJson(PY.exe!, "xarray_roundtrip.py", ["make", src]);
    const results: string[] = [];
    let n = 0;
    for (const steps of Object.values(COPIES)) {
      let from = src;
      for (const [i, args] of steps.entries()) {
        const to = join(dir, `${n}-${i}.zarr`);
        await zarr("copy", from, to, "-q", ...args);
        from = to;
      }
      results.push(from);
      n++;
    }
    for (const r of Object.values(RECHUNKED)) {
      const base = join(dir, `${n}-rechunk.zarr`);
      await zarr("copy", src, base, "-q", ...r.extra);
      for (const v of ["temp", "prec", "mask"]) {
        if (r.viaV3) {
          const mid = join(dir, `${n}-${v}-v3.zarr`);
          await zarr(
            "copy",
            base,
            mid,
            "--path",
            v,
            "-q",
            "--format",
            "3",
            "--chunks",
            r.chunks,
            "--shards",
            "6,5",
          );
          await zarr("copy", mid, base, "--path", v, "-q", "--format", "2", "--overwrite");
        } else {
          await zarr(
            "copy",
            src,
            base,
            "--path",
            v,
            "-q",
            "--chunks",
            r.chunks,
            "--overwrite",
            ...r.extra,
          );
        }
      }
      // (copies of single arrays leave the group's .zmetadata as it was)
      await consolidate(new FileSystemStore(base));
      results.push(base);
      n++;
    }
    const names = [...Object.keys(COPIES), ...Object.keys(RECHUNKED)];
    const compared = runPyJson<Record<string, string[]>>(PY.exe!, "xarray_roundtrip.py", [
      "compare",
      src,
      ...results,
    ]);
    const bad = results.flatMap((p, i) =>
      compared[p]?.length ? [`${names[i]}: ${compared[p].join(" | ")}`] : [],
    );
    console.info(
      `write interop: xarray ${results.length - bad.length}/${results.length} copies identical (${names.join("; ")})`,
    );
    expect(bad).toEqual([]);
  });
});

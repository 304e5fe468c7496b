// Speed of decompressWithDictionary on Icechunk-like virtual chunk locations:
// a 4 KiB dictionary trained by the zstd CLI on 200 URLs, frames written by
// `zstd -D` (content size and checksum). Needs the built package (pnpm --filter
// @zarr/codec-zstd build), the zstd CLI and Node >= 22.19 / 24.6:
//   node packages/codec-zstd/bench/dictionary.mjs
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as zlib from "node:zlib";
import { decompressWithDictionary } from "../dist/index.js";

const dir = mkdtempSync(join(tmpdir(), "zstd-dict-bench-"));
try {
  const url = (i) =>
    `s3://esgf-world/CMIP6/ScenarioMIP/NCAR/CESM2/ssp585/r1i1p1f1/day/tas/gn/v2019${10 + (i % 12)}/` +
    `tas_day_CESM2_ssp585_r1i1p1f1_gn_${1980 + (i % 40)}0101-${1980 + (i % 40)}1231_${i}.nc`;
  mkdirSync(join(dir, "s"));
  for (let i = 0; i < 200; i++) writeFileSync(join(dir, "s", String(i)), url(i * 37));
  const run = (args) => {
    const r = spawnSync("zstd", ["-q", "-f", ...args], { cwd: dir });
    if (r.status !== 0) throw new Error(String(r.stderr));
  };
  run(["--train", "-r", "s", "-o", "dict", "--maxdict=4096"]);
  const dictionary = readFileSync(join(dir, "dict"));
  const frames = [];
  for (let i = 0; i < 50; i++) {
    writeFileSync(join(dir, "u"), url(10_000 + i));
    run(["-D", "dict", "u", "-o", "u.zst"]);
    frames.push(new Uint8Array(readFileSync(join(dir, "u.zst"))));
  }
  const plain = new TextEncoder().encode(url(10_000)).length;
  const packed = frames.reduce((n, f) => n + f.length, 0) / frames.length;
  const n = 20_000;
  const time = async (decode) => {
    for (let i = 0; i < 2000; i++) await decode(frames[i % 50]);
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await decode(frames[i % 50]);
    return ((performance.now() - t0) * 1000) / n;
  };
  const us = await time((f) => decompressWithDictionary(f, dictionary, 65536));
  // the floor: node:zlib alone (a new context and a dictionary load per call)
  const floor = await time((f) => zlib.zstdDecompressSync(f, { dictionary }));
  console.log(
    `Node ${process.version}: ${us.toFixed(1)} µs per location (${plain} bytes -> ${packed.toFixed(1)}-byte frame, ` +
      `dictionary ${dictionary.length} bytes), ${Math.round(1e6 / us)} locations/s; ` +
      `node:zlib's zstdDecompressSync alone: ${floor.toFixed(1)} µs`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

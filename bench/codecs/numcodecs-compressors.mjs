#!/usr/bin/env node
// numcodecs' LZ4, BZ2 and LZMA: @zarr/codec-lz4, @zarr/codec-bz2 and
// @zarr/codec-lzma vs numcodecs (liblz4, libbzip2, liblzma), encode and decode
// of the same 1 MiB chunks, one thread each side.
//
//   pnpm --filter "@zarr/codec-lz4..." --filter "@zarr/codec-bz2..." --filter "@zarr/codec-lzma..." build
//   node bench/codecs/numcodecs-compressors.mjs [chunks=4]
//
// Data: float32 random walk (smooth, partly compressible) and int32 slowly varying.
// Python side: /usr/bin/python3 (or $ZARR_TEST_PYTHON) with numcodecs.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const load = (p) => import(join(root, `packages/${p}/dist/index.js`));
const { lz4Codec } = await load("codec-lz4");
const { bz2Codec } = await load("codec-bz2");
const { lzmaCodec } = await load("codec-lzma");
const chunks = Number(process.argv[2] ?? 4);
const python = process.env.ZARR_TEST_PYTHON ?? "/usr/bin/python3";
const N = 1 << 18; // 1 MiB of 4-byte elements
const context = { path: "bench", format: 2 };

function data(kind) {
  if (kind === "float32") {
    const a = new Float32Array(N);
    let x = 0;
    let s = 1;
    for (let i = 0; i < N; i++) {
      s = (s * 1103515245 + 12345) >>> 0;
      x += (s / 2 ** 32 - 0.5) * 0.01;
      a[i] = x;
    }
    return new Uint8Array(a.buffer);
  }
  return new Uint8Array(Int32Array.from({ length: N }, (_, i) => Math.floor(i / 100)).buffer);
}

const CASES = [
  ["lz4", lz4Codec, { acceleration: 1 }, "numcodecs.LZ4(acceleration=1)"],
  ["bz2 1", bz2Codec, { level: 1 }, "numcodecs.BZ2(level=1)"],
  ["bz2 9", bz2Codec, { level: 9 }, "numcodecs.BZ2(level=9)"],
  ["lzma xz 1", lzmaCodec, { preset: 1 }, "numcodecs.LZMA(preset=1)"],
  ["lzma xz 6", lzmaCodec, { preset: 6 }, "numcodecs.LZMA(preset=6)"],
];

async function ms(fn) {
  await fn();
  let best = Infinity;
  for (let r = 0; r < 3; r++) {
    const t = performance.now();
    for (let i = 0; i < chunks; i++) await fn();
    best = Math.min(best, performance.now() - t);
  }
  return best / chunks;
}

const rows = [];
for (const kind of ["float32", "int32"]) {
  const chunk = data(kind);
  for (const [name, factory, config, py] of CASES) {
    const codec = await factory.fromConfig(config, context);
    const enc = await codec.encode(chunk);
    const script = `
import sys, time, numpy as np, numcodecs
chunk = sys.stdin.buffer.read()
c = ${py}
enc = bytes(c.encode(chunk))
def best(fn):
    fn(); b = 1e9
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(${chunks}): fn()
        b = min(b, time.perf_counter() - t)
    return b / ${chunks} * 1000
print(best(lambda: c.encode(chunk)), best(lambda: c.decode(enc)), len(enc))
`;
    const r = spawnSync(python, ["-c", script], { input: chunk, maxBuffer: 1 << 26 });
    const [pe, pd, plen] = r.status === 0 ? r.stdout.toString().trim().split(" ").map(Number) : [];
    rows.push([
      kind,
      name,
      await ms(() => codec.encode(chunk)),
      pe,
      await ms(() => codec.decode(enc, chunk.length)),
      pd,
      enc.length,
      plen,
    ]);
  }
}
console.log(`Node ${process.version}; ${chunks} chunks of 1 MiB; ms per chunk (best of 3)`);
console.log(
  "| data | codec | encode ours | encode numcodecs | decode ours | decode numcodecs | size ours | size numcodecs |",
);
console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
const f = (v) => (v === undefined || Number.isNaN(v) ? "-" : v.toFixed(1));
for (const [k, n, e, pe, d, pd, l, pl] of rows) {
  console.log(`| ${k} | ${n} | ${f(e)} | ${f(pe)} | ${f(d)} | ${f(pd)} | ${l} | ${pl ?? "-"} |`);
}

// Encode/decode throughput of @zarr/codec-gzip and @zarr/codec-zstd against
// numcodecs (C zlib / libzstd, in a python subprocess) on the same data: a
// smooth float32 field in 1 MiB chunks. Needs `pnpm build` first.
//
//   node bench/codecs/gzip-zstd.mjs            (python: $ZARR_TEST_PYTHON or /usr/bin/python3)
import { spawnSync } from "node:child_process";
import { engine as pakoEngine } from "../../packages/codec-gzip/dist/engine/browser.js";
import { engine as nodeEngine } from "../../packages/codec-gzip/dist/engine/node.js";
import { DeflateCodec } from "../../packages/codec-gzip/dist/index.js";
import { useNativeZstd, zstdEngine } from "../../packages/codec-zstd/dist/engine.js";
import { ZstdCodec } from "../../packages/codec-zstd/dist/index.js";

const MiB = 1 << 20;
const CHUNKS = 8;
const python = process.env.ZARR_TEST_PYTHON ?? "/usr/bin/python3";

/** A smooth 2-D float32 field, 1 MiB per chunk. */
function smoothChunk(k) {
  const f = new Float32Array(MiB / 4);
  for (let i = 0; i < 512; i++) {
    for (let j = 0; j < 512; j++) {
      f[i * 512 + j] = Math.sin((i + 512 * k) / 37) * Math.cos(j / 23) * 100 + i * 0.01;
    }
  }
  return new Uint8Array(f.buffer);
}
const chunks = Array.from({ length: CHUNKS }, (_, k) => smoothChunk(k));

async function time(fn, minMs = 400) {
  await fn(); // warm-up
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < minMs) {
    await fn();
    n++;
  }
  return (performance.now() - start) / n;
}

const rows = [];
async function measure(label, codec, { parallel = false } = {}) {
  const encoded = [];
  for (const c of chunks) encoded.push(await codec.encode(c));
  const run = (f) => (parallel ? Promise.all(chunks.map(f)) : sequential(f));
  const sequential = async (f) => {
    for (let i = 0; i < chunks.length; i++) await f(chunks[i], i);
  };
  const encMs = await time(() => run((c) => codec.encode(c)));
  const decMs = await time(() => run((_, i) => codec.decode(encoded[i], MiB)));
  const ratio = (CHUNKS * MiB) / encoded.reduce((n, e) => n + e.length, 0);
  rows.push({ label, enc: (CHUNKS / encMs) * 1000, dec: (CHUNKS / decMs) * 1000, ratio });
}

const gz = (level, engine, format = "gzip") => new DeflateCodec(format, { level, engine });
await measure("gzip 1  node:zlib", gz(1, nodeEngine));
await measure("gzip 1  node:zlib 8 chunks in parallel", gz(1, nodeEngine), { parallel: true });
await measure("gzip 1  pako", gz(1, pakoEngine));
await measure("gzip 5  node:zlib", gz(5, nodeEngine));
await measure("gzip 5  node:zlib 8 chunks in parallel", gz(5, nodeEngine), { parallel: true });
await measure("gzip 5  pako", gz(5, pakoEngine));
await measure("zlib 1  node:zlib", gz(1, nodeEngine, "zlib"));
await measure("zlib 1  pako", gz(1, pakoEngine, "zlib"));
// zstd on each engine this Node has: node:zlib's libzstd (Node >= 22.15) and WebAssembly.
const zstdEngines = zstdEngine() === "native" ? ["native", "wasm"] : ["wasm"];
for (const engine of zstdEngines) {
  useNativeZstd(engine === "native");
  const name = engine === "native" ? "node:zlib" : "wasm";
  for (const level of [-5, 1, 3, 9, 19]) {
    await measure(`zstd ${level}  ${name}`, new ZstdCodec({ level }));
  }
  await measure(`zstd 3 + checksum  ${name}`, new ZstdCodec({ level: 3, checksum: true }));
}
useNativeZstd(true);

// The same through numcodecs (C).
const script = `
import sys, time, json, numcodecs
data = sys.stdin.buffer.read(); MiB = 1 << 20
chunks = [data[i:i + MiB] for i in range(0, len(data), MiB)]
def t(fn, min_s=0.4):
    fn(); n = 0; s = time.perf_counter()
    while time.perf_counter() - s < min_s:
        fn(); n += 1
    return (time.perf_counter() - s) / n
out = []
for label, codec in [("gzip 1", numcodecs.GZip(1)), ("gzip 5", numcodecs.GZip(5)), ("zlib 1", numcodecs.Zlib(1))] + [
        (f"zstd {lv}", numcodecs.Zstd(lv)) for lv in (-5, 1, 3, 9, 19)]:
    enc = [codec.encode(c) for c in chunks]
    e = t(lambda: [codec.encode(c) for c in chunks]); d = t(lambda: [codec.decode(x) for x in enc])
    out.append({"label": label + "  numcodecs", "enc": len(chunks) / e, "dec": len(chunks) / d,
                "ratio": len(data) / sum(len(x) for x in enc)})
print(json.dumps(out))
`;
const all = new Uint8Array(CHUNKS * MiB);
for (const [i, c] of chunks.entries()) all.set(c, i * MiB);
const py = spawnSync(python, ["-c", script], { input: all, maxBuffer: 1 << 26 });
if (py.status === 0) rows.push(...JSON.parse(py.stdout.toString()));
else console.warn(`numcodecs skipped: ${py.stderr}`);

rows.sort((a, b) => a.label.localeCompare(b.label, "en", { numeric: true }));
console.log(
  `${CHUNKS} x 1 MiB chunks of a smooth float32 field, MB/s (1 MB = 2^20 bytes), node ${process.version}`,
);
console.log("| codec | encode MB/s | decode MB/s | ratio |\n| --- | ---: | ---: | ---: |");
for (const r of rows) {
  console.log(`| ${r.label} | ${r.enc.toFixed(0)} | ${r.dec.toFixed(0)} | ${r.ratio.toFixed(3)} |`);
}

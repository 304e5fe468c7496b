// Measures encode and decode throughput of the built package (run `pnpm build` first):
//   node scripts/bench.mjs
// Data: 2^20 numbers per chunk, the kinds numcodecs' tests use.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ZstdCodec } from "../../codec-zstd/dist/index.js";
import { decodeStandalone, numberTypeNamed, PcodecCodec } from "../dist/index.js";

const N = 1 << 20;
function rng(seed) {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}
const r = rng(7);
const gauss = () => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
const cases = [
  ["float64", "normal(1000, 1)", new Float64Array(N).map(() => 1000 + gauss())],
  ["float64", "linspace(1000, 1001)", new Float64Array(N).map((_, i) => 1000 + i / (N - 1))],
  ["float64", "prices (2 decimals)", new Float64Array(N).map(() => Math.round(r() * 1e6) / 100)],
  ["float64", "float32 values", new Float64Array(N).map(() => Math.fround(1000 + gauss()))],
  [
    "int64",
    "ns timestamps at seconds",
    BigInt64Array.from(
      { length: N },
      (_, i) => (1_700_000_000n + BigInt(i * 60 + Math.floor(r() * 60))) * 1_000_000_000n,
    ),
  ],
  ["float32", "sin + noise", new Float32Array(N).map((_, i) => Math.sin(i / 100) * 50 + gauss())],
  [
    "int64",
    "random walk",
    BigInt64Array.from(
      { length: N },
      (
        (s) => () =>
          (s += BigInt(Math.round(gauss() * 100)))
      )(0n),
    ),
  ],
  ["int32", "arange", Int32Array.from({ length: N }, (_, i) => i)],
  ["uint16", "uniform 0..4095", Uint16Array.from({ length: N }, () => Math.floor(r() * 4096))],
];

function time(f, minMs = 400) {
  let runs = 0;
  const start = performance.now();
  let now = start;
  while (now - start < minMs || runs < 3) {
    f();
    runs++;
    now = performance.now();
  }
  return (now - start) / runs;
}

async function timeAsync(f, minMs = 400) {
  let runs = 0;
  const start = performance.now();
  let now = start;
  while (now - start < minMs || runs < 3) {
    await f();
    runs++;
    now = performance.now();
  }
  return (now - start) / runs;
}

console.log(`node ${process.version}, ${N} numbers per chunk`);
console.log(
  "| data type | data | pcodec ratio | encode MB/s | decode MB/s | zstd 3 ratio | zstd encode MB/s | zstd decode MB/s |",
);
console.log("|---|---|---|---|---|---|---|---|");
const zstd = new ZstdCodec({ level: 3 });
await zstd.encode(new Uint8Array(8));
for (const [dataType, name, values] of cases) {
  const raw = new Uint8Array(values.buffer);
  const codec = new PcodecCodec({ dataType });
  const enc = codec.encode(raw);
  const back = codec.decode(enc, raw.length);
  if (Buffer.compare(Buffer.from(back), Buffer.from(raw)) !== 0) throw new Error("mismatch");
  const tEnc = time(() => codec.encode(raw));
  const tDec = time(() => codec.decode(enc, raw.length));
  const mb = raw.length / 1e6;
  const zEnc = await zstd.encode(raw);
  const tzEnc = await timeAsync(() => zstd.encode(raw));
  const tzDec = await timeAsync(() => zstd.decode(zEnc, raw.length));
  const rate = (t) => (mb / (t / 1000)).toFixed(0);
  console.log(
    `| ${dataType} | ${name} | ${(raw.length / enc.length).toFixed(2)} | ${rate(tEnc)} | ${rate(tDec)} | ${(raw.length / zEnc.length).toFixed(2)} | ${rate(tzEnc)} | ${rate(tzDec)} |`,
  );
}

// Real pco output (numcodecs' fixture, pcodec 1.x): decode only.
const fixtures = join(import.meta.dirname, "..", "test", "fixtures", "numcodecs", "codec.10");
const f64 = numberTypeNamed("f64");
const enc = readFileSync(join(fixtures, "encoded.06.dat"));
const t = time(() => decodeStandalone(enc, f64, 1000), 300);
console.log(
  `numcodecs fixture codec.10/encoded.06 (1000 f64 normal): ${(8000 / 1e6 / (t / 1000)).toFixed(0)} MB/s decode`,
);

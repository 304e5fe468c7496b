#!/usr/bin/env node
// Checksum codec throughput: @zarr/codec-checksums vs numcodecs, encode and
// decode (verify) of 1 MiB chunks of random bytes, one thread each side.
//
//   pnpm --filter @zarr/codec-checksums... build && node bench/codecs/checksums.mjs [MiB=64]
//
// Python side: /usr/bin/python3 (or $ZARR_TEST_PYTHON) with numcodecs; numcodecs 0.11
// has only adler32 and crc32, so set ZARR_TEST_NUMCODECS_PATH to a directory holding a
// newer numcodecs (pip install --target DIR numcodecs typing_extensions) for the others.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const { ChecksumCodec } = await import(join(root, "packages/codec-checksums/dist/index.js"));

const MIB = 1 << 20;
const total = Number(process.argv[2] ?? 64);
const IDS = ["adler32", "crc32", "crc32c", "fletcher32", "jenkins_lookup3"];
const python = process.env.ZARR_TEST_PYTHON ?? "/usr/bin/python3";

const chunk = new Uint8Array(MIB);
for (let i = 0, x = 12345; i < MIB; i++) {
  x = (x * 1103515245 + 12345) >>> 0;
  chunk[i] = x >>> 24;
}

function measure(fn) {
  for (let i = 0; i < 4; i++) fn(); // warm up
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const t = performance.now();
    for (let i = 0; i < total; i++) fn();
    best = Math.min(best, performance.now() - t);
  }
  return total / (best / 1000);
}

const ours = {};
for (const id of IDS) {
  const codec = new ChecksumCodec(id);
  const enc = codec.encode(chunk);
  ours[id] = {
    encode: measure(() => codec.encode(chunk)),
    decode: measure(() => codec.decode(enc)),
  };
}

const script = `
import json, sys, time, numpy as np, numcodecs
total = ${total}
rng = np.random.default_rng(1)
chunk = rng.integers(0, 256, ${MIB}, dtype="u1").tobytes()
out = {"version": numcodecs.__version__}
for cid in ${JSON.stringify(IDS)}:
    try:
        c = numcodecs.get_codec({"id": cid})
    except Exception:
        continue
    enc = bytes(np.asarray(c.encode(chunk)).view("u1").tobytes()) if not isinstance(c.encode(chunk), bytes) else c.encode(chunk)
    def best(fn):
        for _ in range(4): fn()
        b = 1e9
        for _ in range(3):
            t = time.perf_counter()
            for _ in range(total): fn()
            b = min(b, time.perf_counter() - t)
        return total / b
    out[cid] = {"encode": best(lambda: c.encode(chunk)), "decode": best(lambda: c.decode(enc))}
print(json.dumps(out))
`;
const env = { ...process.env };
if (process.env.ZARR_TEST_NUMCODECS_PATH) env.PYTHONPATH = process.env.ZARR_TEST_NUMCODECS_PATH;
const r = spawnSync(python, ["-W", "ignore", "-c", script], { env, maxBuffer: 1 << 26 });
const theirs = r.status === 0 ? JSON.parse(r.stdout.toString()) : {};
if (r.status !== 0) console.warn(`python failed: ${r.stderr}`);

console.log(
  `Node ${process.version}, numcodecs ${theirs.version ?? "-"}; ${total} x 1 MiB random, MiB/s (best of 3)`,
);
console.log("| codec | encode ours | encode numcodecs | decode ours | decode numcodecs |");
console.log("| --- | ---: | ---: | ---: | ---: |");
const f = (v) => (v === undefined ? "-" : v.toFixed(0));
for (const id of IDS) {
  const t = theirs[id] ?? {};
  console.log(
    `| ${id} | ${f(ours[id].encode)} | ${f(t.encode)} | ${f(ours[id].decode)} | ${f(t.decode)} |`,
  );
}

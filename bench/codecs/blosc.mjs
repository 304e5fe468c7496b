#!/usr/bin/env node
// Blosc encode/decode throughput: @zarr/codec-blosc vs numcodecs' Blosc (c-blosc),
// both single-threaded, on the same data: a smooth float32 field cut into 1 MiB chunks.
//
//   pnpm build && node bench/codecs/blosc.mjs [MiB=64] [cname,cname,...]
//
// The WebAssembly kernels are loaded first (encoding does not wait for them);
// ZARR_BLOSC_KERNELS=off measures the TypeScript path instead.
//
// Python side: /usr/bin/python3 (or $ZARR_TEST_PYTHON) with numcodecs.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const blosc = await import(join(root, "packages/codec-blosc/dist/index.js"));
// By package name: in Node that is the package's bundle, where the register modules below register.
const core = await import("@zarr/core/codec");
const kernels = await import(join(root, "packages/codec-blosc/dist/kernels.js"));
if (process.env.ZARR_BLOSC_KERNELS === "off") kernels.useBlockKernels(false);
else if (!(await kernels.loadBlockKernels())) console.warn("the WebAssembly kernels did not load");

const MIB = 1 << 20;
const totalMiB = Number(process.argv[2] ?? 64);
const cnames = (process.argv[3] ?? "blosclz,lz4,lz4hc,snappy,zlib,zstd").split(",");
const shuffles = ["noshuffle", "shuffle", "bitshuffle"];
const CLEVEL = 5;
const python = process.env.ZARR_TEST_PYTHON ?? "/usr/bin/python3";

// zlib and zstd engines come from their packages when built.
for (const pkg of ["codec-gzip", "codec-zstd"]) {
  try {
    await import(`@zarr/${pkg}/register`);
  } catch {
    /* not built: those rows are skipped */
  }
}

// A smooth 2-D float32 field (like a climate variable), row-major.
const n = (totalMiB * MIB) / 4;
const field = new Float32Array(n);
const width = 4096;
for (let i = 0; i < n; i++) {
  const x = i % width;
  const y = Math.floor(i / width);
  field[i] = 280 + 15 * Math.sin(x / 300) * Math.cos(y / 200) + 0.001 * ((i * 7919) % 101);
}
const data = new Uint8Array(field.buffer);
const chunks = [];
for (let off = 0; off < data.length; off += MIB) chunks.push(data.subarray(off, off + MIB));

const context = {
  spec: { shape: [MIB / 4], dataType: { name: "float32", itemSize: 4 }, fillValue: {} },
  path: "bench",
  format: 3,
  resolve: async () => [],
};

// CPU time of this process, not wall time: the machine may be shared, and
// both sides are measured the same way (python: time.process_time()).
function cpuSeconds() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

async function bestAsync(runs, fn) {
  await fn(); // warm up the JIT
  let t = Number.POSITIVE_INFINITY;
  for (let r = 0; r < runs; r++) {
    const t0 = cpuSeconds();
    await fn();
    t = Math.min(t, cpuSeconds() - t0);
  }
  return t;
}

const ours = {};
for (const cname of cnames) {
  if ((cname === "zlib" || cname === "zstd") && !core.codecRegistry.has(cname)) {
    console.warn(
      `skipping ${cname}: @zarr/codec-${cname === "zlib" ? "gzip" : "zstd"} is not built`,
    );
    continue;
  }
  for (const shuffle of shuffles) {
    const codec = blosc.bloscCodecFactory.fromConfig(
      { cname, clevel: CLEVEL, shuffle, typesize: 4, blocksize: 0 },
      context,
    );
    let encoded = [];
    const enc = await bestAsync(2, async () => {
      encoded = [];
      for (const c of chunks) encoded.push(await codec.encode(c));
    });
    const dec = await bestAsync(3, async () => {
      for (const e of encoded) await codec.decode(e, MIB);
    });
    // Decoding into one reused buffer shows what fresh output memory costs.
    let decInto;
    if (cname !== "zlib" && cname !== "zstd") {
      const reuse = new Uint8Array(MIB);
      decInto = await bestAsync(3, async () => {
        for (const e of encoded) blosc.bloscDecompressInto(e, reuse);
      });
    }
    for (let i = 0; i < chunks.length; i++) {
      const d = await codec.decode(encoded[i], MIB);
      if (Buffer.compare(d, chunks[i]) !== 0)
        throw new Error(`${cname}/${shuffle}: round trip differs`);
    }
    const size = encoded.reduce((s, e) => s + e.length, 0);
    ours[`${cname}/${shuffle}`] = {
      enc: totalMiB / enc,
      dec: totalMiB / dec,
      decInto: decInto && totalMiB / decInto,
      ratio: data.length / size,
    };
  }
}

const dir = mkdtempSync(join(tmpdir(), "blosc-bench-"));
writeFileSync(join(dir, "data.bin"), data);
const script = `
import sys, json, time
import numcodecs
from numcodecs import blosc
blosc.set_nthreads(1)
blosc.use_threads = False
d = sys.argv[1]
data = open(d + '/data.bin', 'rb').read()
MIB = 1 << 20
chunks = [data[o:o + MIB] for o in range(0, len(data), MIB)]
have = set(blosc.list_compressors())
out = {}
for cname in sys.argv[2].split(','):
    if cname not in have:
        continue
    for s, name in [(0, 'noshuffle'), (1, 'shuffle'), (2, 'bitshuffle')]:
        codec = numcodecs.Blosc(cname=cname, clevel=${CLEVEL}, shuffle=s, blocksize=0)
        te = 1e9
        for _ in range(3):
            t0 = time.process_time(); encoded = [codec.encode(numcodecs.compat.ensure_ndarray(c).view('f4')) for c in chunks]; te = min(te, time.process_time() - t0)
        td = 1e9
        for _ in range(3):
            t0 = time.process_time(); [codec.decode(e) for e in encoded]; td = min(td, time.process_time() - t0)
        mib = len(data) / MIB
        out[cname + '/' + name] = {'enc': mib / te, 'dec': mib / td, 'ratio': len(data) / sum(len(e) for e in encoded)}
print(json.dumps(out))
`;
const r = spawnSync(python, ["-c", script, dir, cnames.join(",")], {
  encoding: "utf8",
  maxBuffer: 1 << 26,
});
rmSync(dir, { recursive: true, force: true });
let ref = {};
if (r.status === 0) ref = JSON.parse(r.stdout);
else console.warn(`numcodecs reference unavailable: ${r.stderr || r.error}`);

const pct = (a, b) => (a && b ? `${Math.round((100 * a) / b)}%` : "-");
const f = (x) => (x === undefined ? "-" : x.toFixed(0));
console.log(
  `Blosc clevel ${CLEVEL}, typesize 4, ${totalMiB} MiB smooth float32 field in 1 MiB chunks, single thread, MiB/s of uncompressed data per CPU second`,
);
console.log(
  "| cname/shuffle | ours enc | c-blosc enc | enc % | ours dec | c-blosc dec | dec % | ours dec into reused buffer | ratio ours / c-blosc |",
);
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const [key, o] of Object.entries(ours)) {
  const c = ref[key] ?? {};
  console.log(
    `| ${key} | ${f(o.enc)} | ${f(c.enc)} | ${pct(o.enc, c.enc)} | ${f(o.dec)} | ${f(c.dec)} | ${pct(o.dec, c.dec)} | ${o.decInto ? `${f(o.decInto)} (${pct(o.decInto, c.dec)})` : "-"} | ${o.ratio.toFixed(2)} / ${c.ratio ? c.ratio.toFixed(2) : "-"} |`,
  );
}

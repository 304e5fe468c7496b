// Speed of zfpCompress / zfpDecompress on a smooth n^3 float32 field (n = 256:
// 64 MiB), best of 3 runs; writes the field to /tmp/zfp-bench-<n>.f32 so that
// scripts/bench-zfpy.py times libzfp (zfpy) on the same values.
// Run after `pnpm --filter @zarr/codec-zfp build`:
//   node packages/codec-zfp/scripts/bench.mjs [n]
import { writeFileSync } from "node:fs";
import {
  accuracyParams,
  precisionParams,
  rateParams,
  reversibleParams,
  zfpCompress,
  zfpDecompress,
} from "../dist/index.js";

const n = Number(process.argv[2] ?? 256);
const a = new Float32Array(n * n * n);
for (let i = 0; i < n; i++)
  for (let j = 0; j < n; j++)
    for (let k = 0; k < n; k++) {
      const [x, y, z] = [i, j, k].map((v) => (8 * v) / (n - 1));
      a[(i * n + j) * n + k] = Math.sin(x) * Math.cos(y) + z * 0.1;
    }
writeFileSync(`/tmp/zfp-bench-${n}.f32`, new Uint8Array(a.buffer));

const best = (f) => {
  let t = Number.POSITIVE_INFINITY;
  let out;
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    out = f();
    t = Math.min(t, (performance.now() - t0) / 1000);
  }
  return [t, out];
};
const mb = a.byteLength / 1e6;
for (const [name, params] of [
  ["tolerance=1e-3", accuracyParams(1e-3)],
  ["rate=8", rateParams(8, undefined, 3)],
  ["precision=16", precisionParams(16)],
  ["reversible", reversibleParams()],
]) {
  const [enc, c] = best(() => zfpCompress(a, [n, n, n], params, { wordBits: 8 }));
  const [dec] = best(() => zfpDecompress(c, { type: "float32", shape: [n, n, n] }));
  console.log(
    `${name}\t${c.length} B\tencode ${(mb / enc).toFixed(0)} MB/s\tdecode ${(mb / dec).toFixed(0)} MB/s`,
  );
}

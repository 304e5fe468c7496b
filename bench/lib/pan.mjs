// The panning row: a viewer's repeated, overlapping region reads (a window
// moving a little at a time over the blosc lz4 array), read with and without a
// decoded-chunk cache (`ChunkCache` of @zarr/core). Run alone with
// `node bench/pan.mjs [--quick]`; `bench/run.mjs` adds it to RESULTS.md (row id
// `pan-lz4`).

/** Windows of `size`² panning over a `bound`² array: each moves by up to `step` along each axis. */
export function panWindows(count, size, bound, seed = 11, step = 64) {
  let s = seed >>> 0;
  const rnd = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const clamp = (v) => Math.max(0, Math.min(bound - size, v));
  let r = Math.floor(rnd() * (bound - size));
  let c = Math.floor(rnd() * (bound - size));
  return Array.from({ length: count }, () => {
    r = clamp(r + Math.round((rnd() * 2 - 1) * step));
    c = clamp(c + Math.round((rnd() * 2 - 1) * step));
    return [r, c, size, size];
  });
}

/** Cache size of the cached runs. */
export const PAN_CACHE_BYTES = 64 * 2 ** 20;

/**
 * Measures the row with `runImpl(impl, job)` (a js_bench.mjs job runner) and
 * returns { lines, failures }: a markdown section for RESULTS.md.
 */
export function panSection(runImpl, { path, n, quick, log = () => {} }) {
  const count = 200;
  const windows = panWindows(count, 256, n);
  const cases = [
    { label: "ours, no cache", impl: "ours", cacheBytes: 0 },
    {
      label: `ours, ChunkCache ${PAN_CACHE_BYTES / 2 ** 20} MiB`,
      impl: "ours",
      cacheBytes: PAN_CACHE_BYTES,
    },
    { label: "ours-1t, no cache", impl: "ours-1t", cacheBytes: 0 },
    {
      label: `ours-1t, ChunkCache ${PAN_CACHE_BYTES / 2 ** 20} MiB`,
      impl: "ours-1t",
      cacheBytes: PAN_CACHE_BYTES,
    },
  ];
  const lines = [
    "",
    `## Panning region reads (${count} overlapping 256×256 windows, blosc lz4, ms)`,
    "",
    `A viewer's pattern: a 256×256 window moving by up to 64 elements along each axis per read over the float32 ${n}×${n} blosc lz4 array of the main table (512×512 chunks), array opened once, one untimed warm-up read of the first window; \`ChunkCache\` passed as \`chunkCache\` to every read (decoded chunks kept across reads). Requests: store reads (\`CountingStore\`) of the ${count} timed reads.`,
    "",
    "| case | total ms | median / p90 ms per read | store reads | MiB read | chunks cached |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
  ];
  const failures = [];
  let check;
  for (const c of cases) {
    log(`bench: pan ${c.label}`);
    const r = runImpl(c.impl, { op: "pan", path, windows, cacheBytes: c.cacheBytes });
    if (r.error) {
      failures.push(`- pan-lz4 ${c.label}: ${r.error}`);
      lines.push(`| ${c.label} | fails | | | | |`);
      continue;
    }
    if (check === undefined) check = r.check;
    else if (Math.abs(r.check - check) > 1e-6 * Math.max(1, Math.abs(check))) {
      failures.push(`- pan-lz4 ${c.label}: checksum ${r.check}, expected ${check}`);
    }
    const sorted = [...r.times].sort((a, b) => a - b);
    const total = r.times.reduce((a, b) => a + b, 0) * 1000;
    const med = sorted[sorted.length >> 1] * 1000;
    const p90 = sorted[Math.floor(sorted.length * 0.9)] * 1000;
    lines.push(
      `| ${c.label} | ${total.toFixed(0)} | ${med.toFixed(2)} / ${p90.toFixed(2)} | ${r.reads} | ${(r.readBytes / 2 ** 20).toFixed(1)} | ${r.cached ?? ""} |`,
    );
  }
  if (quick) lines.push("", "(quick run: smaller array)");
  return { lines, failures };
}

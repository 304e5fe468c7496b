// CLI start-up time (issue 18): wall time of whole `zarr` processes against
// `node -e 0`, median of --reps runs (default 15), on this machine. Prints a
// Markdown table; `pnpm bench` includes it in RESULTS.md.
//
//   node bench/startup.mjs [--reps N]
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const bin = fileURLToPath(new URL("../packages/cli/bin/zarr.js", import.meta.url));

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function time(args, reps) {
  const ms = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, args, { encoding: "utf8" });
    ms.push(performance.now() - t);
    if (r.status !== 0) throw new Error(`${args.join(" ")}: exit ${r.status}\n${r.stderr}`);
  }
  return median(ms);
}

/** Rows of [what, median ms, ms above `node -e 0`]. */
export function measureStartup(reps = 15) {
  const dir = mkdtempSync(join(tmpdir(), "zarr-startup-"));
  try {
    const store = join(dir, "a.zarr");
    spawnSync(process.execPath, [
      bin,
      "create",
      store,
      "a",
      "--shape",
      "100",
      "--dtype",
      "float32",
    ]);
    const base = time(["-e", "0"], reps);
    const cases = [
      ["zarr --help", [bin, "--help"]],
      ["zarr --version", [bin, "--version"]],
      ["zarr info --help", [bin, "info", "--help"]],
      ["zarr info (local v3 array)", [bin, "info", store, "a"]],
    ];
    return [
      ["node -e 0", base, 0],
      ...cases.map(([label, args]) => {
        const ms = time(args, reps);
        return [label, ms, ms - base];
      }),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The rows as a Markdown table. */
export function startupTable(rows) {
  return [
    "| process | median ms | ms above `node -e 0` |",
    "| --- | ---: | ---: |",
    ...rows.map(([label, ms, above]) => `| ${label} | ${ms.toFixed(0)} | ${above.toFixed(0)} |`),
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--reps");
  const reps = i > 0 ? Number(process.argv[i + 1]) : 15;
  console.log(`Node ${process.version}, median of ${reps} runs\n`);
  console.log(startupTable(measureStartup(reps)));
}

// `pnpm demo`: the CLI on the bundled dataset, then the library demo. Each step
// is headed with the command it runs, so the output reads as a transcript.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const zarr = fileURLToPath(new URL("../../packages/cli/bin/zarr.js", import.meta.url));
const data = "examples/data/weather.zarr";
const copy = "node_modules/.cache/zarr-demo/weather-v2.zarr";

/** The steps: what the heading shows, and the arguments given to node. */
export const STEPS = [
  [`zarr tree ${data}`, [zarr, "tree", data]],
  [`zarr info ${data} temperature`, [zarr, "info", data, "temperature"]],
  [
    `zarr get ${data} temperature --select 0,::8,::12 --json`,
    [zarr, "get", data, "temperature", "--select", "0,::8,::12", "--json"],
  ],
  [
    `zarr copy ${data} ${copy} --format 2 --overwrite`,
    [zarr, "copy", data, copy, "--format", "2", "--overwrite"],
  ],
  [`zarr verify ${copy}`, [zarr, "verify", copy]],
  ["node examples/quickstart/demo.mjs", [fileURLToPath(new URL("demo.mjs", import.meta.url))]],
];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [heading, args] of STEPS) {
    process.stdout.write(`\n$ ${heading}\n`);
    const r = spawnSync(process.execPath, args, { cwd: root, stdio: "inherit" });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
}

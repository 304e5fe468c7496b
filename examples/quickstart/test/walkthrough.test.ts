// `pnpm demo` (examples/quickstart/walkthrough.mjs): every step is headed with
// the command it runs, in order, and the wording says what the chunks are.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs example without declarations
import { STEPS } from "../walkthrough.mjs";

const script = fileURLToPath(new URL("../walkthrough.mjs", import.meta.url));

describe("pnpm demo", () => {
  it("runs every step under a '$ command' heading, in order, and exits 0", () => {
    const r = spawnSync(process.execPath, [script], { encoding: "utf8", timeout: 120_000 });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const headings = r.stdout.split("\n").filter((line) => line.startsWith("$ "));
    expect(headings).toEqual((STEPS as [string, string[]][]).map(([h]) => `$ ${h}`));
    expect(r.stdout).toMatch(/\n\$ zarr tree examples\/data\/weather.zarr\n\/\n├── legacy/);
    expect(r.stdout).toMatch(
      /wrote a 1000×1000 float32 array as a 10×10 grid of 100×100 chunks to /,
    );
  });
});

// Start-up cost (issue 18): help, version and usage errors load no library
// code: not core, no codec, no store package and no cloud SDK. A module hook
// makes any such import throw, so the process fails if one is loaded. The
// time it takes is measured by `node bench/startup.mjs`, not here.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const bin = fileURLToPath(new URL("../bin/zarr.js", import.meta.url));
const hook = fileURLToPath(new URL("./fixtures/forbid-imports.mjs", import.meta.url));

function zarr(...args: string[]) {
  return spawnSync(process.execPath, ["--import", hook, bin, ...args], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
}

describe("zarr start-up loads no library code", () => {
  it("the hook works: a command that runs fails under it", () => {
    const r = zarr("info", "nowhere.zarr");
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/forbidden import at start-up: @zarr\//);
  });

  it.each([
    ["--help"],
    ["help"],
    ["help", "copy"],
    ["copy", "--help"],
    ["info", "-h"],
    ["diff", "--help"],
    ["consolidate", "--help"],
    ["rm", "--help"],
    ["attrs", "-h"],
    ["--version"],
  ])("zarr %s", (...args) => {
    const r = zarr(...args);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(0);
  });

  it.each([
    [["nonsense"], /unknown command/],
    [["info"], /needs more arguments/],
    [["info", "a", "b", "c"], /too many arguments/],
    [["info", "a", "--bogus"], /usage: /],
  ])("usage error %j exits 1 with its message", (args, message) => {
    const r = zarr(...args);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/forbidden/);
  });
});

describe("zarr's compile cache (Node >= 22.1)", () => {
  const version = (env: NodeJS.ProcessEnv) => {
    const { NODE_COMPILE_CACHE: _, NODE_DISABLE_COMPILE_CACHE: __, ...inherited } = process.env;
    return spawnSync(process.execPath, [bin, "--version"], {
      encoding: "utf8",
      env: { ...inherited, ...env },
      timeout: 15_000,
      killSignal: "SIGKILL",
    });
  };

  it("a TMPDIR where no directory can be made (/proc) means no cache, not a hang", () => {
    // Node's own recursive mkdir of the default cache directory loops forever
    // there (attack, 2026-11-27): the CLI creates it without `recursive` first.
    const r = version({ TMPDIR: "/proc" });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/\d+\.\d+\.\d+/);
  });

  it("a TMPDIR that is missing or a file: the command runs the same", () => {
    for (const tmp of ["/nonexistent/zarr-test", bin]) {
      const r = version({ TMPDIR: tmp });
      expect(r.status, tmp).toBe(0);
      expect(r.stdout).toMatch(/\d+\.\d+\.\d+/);
    }
  });
});

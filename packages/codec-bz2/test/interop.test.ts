// numcodecs BZ2 against zarr-python 2.13 + numcodecs 0.11, both directions
// (v2 spec: "Compressors"; numcodecs BZ2 = a bzip2 stream as Python's bz2 writes it).
import "@zarr/v2-compat/register";
import "../src/register.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type JsonObject, openArray } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { findPython, pythonSkipReason, runPython } from "@zarr/test-utils";
import { createArrayV2 } from "@zarr/v2-compat";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromJsonValues, jsonValues } from "./helpers.js";

const MODULES = ["zarr", "numcodecs", "numpy", "bz2"];
const python = findPython(MODULES);
if (!python) console.warn(pythonSkipReason(MODULES));
const script = fileURLToPath(new URL("./python/compressors.py", import.meta.url));

interface Case {
  dtype: string;
  n: number;
  chunk: number;
  compressor: JsonObject;
  expected: unknown[];
}

function run(args: string[]): string {
  const argv = JSON.stringify(["m", ...args]);
  return runPython(
    python!,
    `import runpy, sys; sys.argv = ${argv}; runpy.run_path(${JSON.stringify(script)}, run_name="__main__")`,
  ).toString();
}

describe.skipIf(!python)("bz2: zarr-python 2.13 interop", () => {
  const dir = mkdtempSync(join(tmpdir(), "v2-compress-"));
  let spec: Record<string, Case> = {};
  beforeAll(() => {
    spec = JSON.parse(run(["write", join(dir, "py")]));
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads every array zarr-python wrote (levels 1 and 9, a 250 kB chunk)", async () => {
    const store = new FileSystemStore(join(dir, "py"));
    const failures: string[] = [];
    for (const [name, c] of Object.entries(spec)) {
      try {
        const a = await openArray(store, name);
        const got = jsonValues(await a.get());
        if (JSON.stringify(got) !== JSON.stringify(c.expected))
          failures.push(`${name}: values differ`);
      } catch (e) {
        failures.push(`${name}: ${(e as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
    expect(Object.keys(spec).length).toBe(3);
  });

  it("zarr-python reads every array we write with the same compressor configuration", async () => {
    const store = new FileSystemStore(join(dir, "js"));
    const failures: string[] = [];
    for (const [name, c] of Object.entries(spec)) {
      try {
        const a = await createArrayV2(store, name, {
          shape: [c.n],
          chunks: [c.chunk],
          dtype: c.dtype,
          compressor: c.compressor,
        });
        await a.set(null, { data: fromJsonValues(a.dataType, c.expected), shape: [c.n] });
      } catch (e) {
        failures.push(`${name}: ${(e as Error).message}`);
      }
    }
    const specPath = join(dir, "spec.json");
    writeFileSync(specPath, JSON.stringify(spec));
    const result = JSON.parse(run(["check", join(dir, "js"), specPath]));
    expect(failures).toEqual([]);
    expect(result.bad).toEqual({});
  });
});

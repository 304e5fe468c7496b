/**
 * Running the python peers: one process per batch. Under CI a missing python
 * module fails the suite; elsewhere the suite is skipped with the reason.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { findPython, pythonSkipReason } from "@zarr/test-utils";

/** The directory of the python helpers. */
export const PY_DIR = fileURLToPath(new URL("../python/", import.meta.url));

/** The python executable with `modules`, or null (then `skipReason` says why). */
export function pythonWith(modules: readonly string[]): { exe: string | null; skipReason: string } {
  const exe = findPython(modules);
  return { exe, skipReason: exe ? "" : pythonSkipReason(modules) };
}

/** Runs `python/<script> ...args`; returns its stdout parsed as JSON. Throws with stderr on failure. */
export function runPyJson<T>(exe: string, script: string, args: string[], timeoutMs = 300_000): T {
  const r = spawnSync(exe, [`${PY_DIR}${script}`, ...args], {
    maxBuffer: 1 << 30,
    timeout: timeoutMs,
    encoding: "utf8",
  });
  if (r.status !== 0)
    throw new Error(`python ${script} failed (${r.status ?? r.signal}): ${r.stderr?.slice(-4000)}`);
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(
      `python ${script} printed no JSON: ${r.stdout.slice(0, 2000)}\n${r.stderr?.slice(-2000)}`,
    );
  }
}

/**
 * Locating the Python reference implementation (zarr-python, numcodecs, c-blosc)
 * for interop tests. Debian's python3-* packages install into /usr/bin/python3,
 * which may differ from the `python3` first on PATH.
 *
 * @module
 */
import { spawnSync } from "node:child_process";

const CANDIDATES = [process.env.ZARR_TEST_PYTHON, "/usr/bin/python3", "python3"].filter(
  (p): p is string => typeof p === "string" && p.length > 0,
);

const cache = new Map<string, string | null>();

/**
 * Returns a python executable that can import every module in `modules`, or
 * `null` (with the reason in {@link pythonSkipReason}) when none can.
 */
export function findPython(modules: readonly string[]): string | null {
  const key = modules.join(",");
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  for (const exe of CANDIDATES) {
    const r = spawnSync(exe, ["-c", modules.map((m) => `import ${m}`).join("; ")], {
      encoding: "utf8",
    });
    if (r.status === 0) {
      cache.set(key, exe);
      return exe;
    }
  }
  cache.set(key, null);
  return null;
}

/** Why interop tests needing `modules` are skipped, for printing. */
export function pythonSkipReason(modules: readonly string[]): string {
  return `skipping: no python3 with ${modules.join(", ")} (tried ${CANDIDATES.join(", ")}); install Debian's python3-zarr python3-numcodecs python3-blosc python3-zstd python3-lz4 python3-crc32c python3-xarray`;
}

/** Runs a python script with `input` on stdin; returns stdout bytes. Throws on failure. */
export function runPython(exe: string, script: string, input?: Uint8Array): Buffer {
  const r = spawnSync(exe, ["-c", script], { input, maxBuffer: 1 << 30 });
  if (r.status !== 0) {
    throw new Error(`python failed (${r.status}): ${r.stderr?.toString() ?? ""}`);
  }
  return r.stdout;
}

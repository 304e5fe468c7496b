/**
 * Huge pages for large fresh arrays (src/memory/huge-pages.ts, native/huge-pages.c):
 * the advice reaches the kernel where it can (x86-64 Linux, transparent huge
 * pages in `madvise` or `always` mode), and nothing else changes anywhere:
 * values, errors, and processes that cannot or must not load the addon.
 * Checks in child processes use the built package (`pnpm build` first).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createArray, MemoryStore } from "../src/index.js";
import { adviseHugePages, HUGE_PAGE_MIN_BYTES } from "../src/memory/huge-pages.js";

const MiB = 1024 * 1024;
const packageRoot = fileURLToPath(new URL("..", import.meta.url));

/** Why huge pages cannot be observed here, or undefined when they can. */
function unsupported(): string | undefined {
  if (process.platform !== "linux" || process.arch !== "x64") {
    return `the addon is built for x86-64 Linux only (this is ${process.platform} ${process.arch})`;
  }
  const mode = "/sys/kernel/mm/transparent_hugepage/enabled";
  if (!existsSync(mode)) return `${mode} is missing: no transparent huge pages`;
  const selected = /\[(\w+)\]/.exec(readFileSync(mode, "utf8"))?.[1];
  if (selected !== "madvise" && selected !== "always") {
    return `transparent huge pages are "${selected}" here`;
  }
  return undefined;
}

/** Runs an ES module in a child Node process (built package); returns its stdout, trimmed. */
function child(source: string, options: { env?: Record<string, string>; flags?: string[] } = {}) {
  return execFileSync(
    process.execPath,
    [...(options.flags ?? []), "--input-type=module", "-e", source],
    {
      cwd: packageRoot,
      encoding: "utf8",
      env: { ...process.env, ...options.env },
      timeout: 30_000,
    },
  ).trim();
}

/** A child's script: huge pages (kB) gained by writing a fresh array read from core. */
const READ_AND_COUNT = `
import { readFileSync } from "node:fs";
import { createArray, MemoryStore } from "@zarr/core";
const hugeKiB = () => Number(/AnonHugePages:\\s+(\\d+)/.exec(readFileSync("/proc/self/smaps_rollup", "utf8"))[1]);
const store = new MemoryStore();
const a = await createArray(store, "", { shape: [4096, 4096], dataType: "float32", chunkShape: [512, 512], fillValue: 0 });
const value = new Float32Array(4096 * 4096);
for (let i = 0; i < value.length; i += 4099) value[i] = i;
await a.set(null, value);
const before = hugeKiB();
const { data } = await a.get(null);
let same = data.length === value.length;
for (let i = 0; i < value.length && same; i += 1) same = data[i] === value[i];
console.log(JSON.stringify({ gainedKiB: hugeKiB() - before, same }));
`;

describe("huge pages for large fresh arrays", () => {
  it("advises only ArrayBuffers of 4 MiB or more", () => {
    expect(HUGE_PAGE_MIN_BYTES).toBe(4 * MiB);
    expect(adviseHugePages(new ArrayBuffer(HUGE_PAGE_MIN_BYTES - 1))).toBe(false);
    expect(adviseHugePages(new ArrayBuffer(0))).toBe(false);
    expect(adviseHugePages(new SharedArrayBuffer(8 * MiB))).toBe(false);
  });

  const why = unsupported();
  it.skipIf(why !== undefined)(
    `backs a fresh 64 MiB array with huge pages once written${why ? ` (skipped: ${why})` : ""}`,
    () => {
      const buffer = new ArrayBuffer(64 * MiB);
      expect(adviseHugePages(buffer)).toBe(true);
    },
  );
  if (why !== undefined) console.log(`huge-pages.test: kernel checks skipped: ${why}`);

  it.skipIf(why !== undefined)(
    "a full read's output lands in huge pages and holds the values written",
    () => {
      const on = JSON.parse(child(READ_AND_COUNT));
      expect(on.same).toBe(true);
      // 64 MiB of output: at least half of it in 2 MiB pages (edges and the
      // kernel's own choices aside).
      expect(on.gainedKiB).toBeGreaterThanOrEqual(32 * 1024);
    },
  );

  // Without advice, a kernel in "madvise" mode backs the output with 4 KiB pages.
  const madviseMode =
    why === undefined &&
    /\[madvise\]/.test(readFileSync("/sys/kernel/mm/transparent_hugepage/enabled", "utf8"));

  it("ZARR_MADVISE_HUGEPAGE=0 turns the advice off, as NUMPY_MADVISE_HUGEPAGE=0 does NumPy's", () => {
    const off = JSON.parse(child(READ_AND_COUNT, { env: { ZARR_MADVISE_HUGEPAGE: "0" } }));
    expect(off.same).toBe(true);
    if (madviseMode) expect(off.gainedKiB).toBeLessThan(8 * 1024);
  });

  it("a process that may not load addons reads the same values, without advice", () => {
    // Node's permission model refuses addons unless --allow-addons is given.
    const major = Number(process.versions.node.split(".")[0]);
    const permission = major >= 22 ? "--permission" : "--experimental-permission";
    const flags = [permission, "--allow-fs-read=*", "--no-warnings"];
    const refused = JSON.parse(child(READ_AND_COUNT, { flags }));
    expect(refused.same).toBe(true);
    if (madviseMode) expect(refused.gainedKiB).toBeLessThan(8 * 1024);
    const out = child(
      `
import { createArray, MemoryStore } from "@zarr/core";
const a = await createArray(new MemoryStore(), "", { shape: [2048, 2048], dataType: "float64", chunkShape: [1024, 1024], fillValue: 7 });
await a.set([0, 0], 3);
const { data } = await a.get(null);
console.log(JSON.stringify({ first: data[0], second: data[1], last: data[data.length - 1], length: data.length }));
`,
      { flags },
    );
    expect(JSON.parse(out)).toEqual({ first: 3, second: 7, last: 7, length: 2048 * 2048 });
    if (why === undefined) {
      // The same process allowed addons takes the advice.
      const allowed = JSON.parse(child(READ_AND_COUNT, { flags: [...flags, "--allow-addons"] }));
      expect(allowed.gainedKiB).toBeGreaterThanOrEqual(32 * 1024);
    }
  });

  it("reads into advised memory give what was written, for every fixed-size type width", async () => {
    for (const dataType of ["uint8", "int16", "float32", "float64", "complex128"] as const) {
      const store = new MemoryStore();
      const shape = [1100, 1000];
      const a = await createArray(store, "", {
        shape,
        dataType,
        chunkShape: [300, 256],
        fillValue: 0,
      });
      const { data: zeros } = await a.get(null);
      expect(zeros.byteLength).toBeGreaterThanOrEqual(HUGE_PAGE_MIN_BYTES / 4);
      await a.set([500, 600], 1);
      const { data } = await a.get(null);
      const width = dataType === "complex128" ? 2 : 1;
      const at = (500 * 1000 + 600) * width;
      expect(Number(data[at])).toBe(1);
      let nonzero = 0;
      for (let i = 0; i < data.length; i++) if (Number(data[i]) !== 0) nonzero++;
      expect(nonzero).toBe(1);
    }
  });
});

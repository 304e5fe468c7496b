// Gather writes (`setFrom`): whole uncompressed chunks go from the rows of the
// caller's value to the chunk file (`writev`), with no chunk buffer. A hostile
// caller tries to make them write memory outside the value, tear a chunk
// between two writers, write through a linked directory, or overflow the
// 1,024 views one `writev` takes. Each attack runs in a fresh Node process
// under the watchdog; what it writes is read back by zarr-python element by
// element.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findPython, pythonSkipReason } from "@zarr/test-utils";
import { afterAll, describe, expect, it } from "vitest";
import { ATTACKS_DIR, describeRun, runGuarded } from "../src/index.js";

const root = mkdtempSync(join(tmpdir(), "zarr-gather-attack-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function run(script: string, env: Record<string, string>) {
  const r = await runGuarded(
    process.execPath,
    ["--input-type=module", "-e", script],
    { maxRssMiB: 1200, timeoutMs: 120_000 },
    { cwd: ATTACKS_DIR, env: { ...process.env, ...env } },
  );
  expect(r.code, describeRun(r)).toBe(0);
  return r.stdout.trim();
}

const HOSTILE_STRIDES = `
import { createArray, IndexError } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { readdirSync } from "node:fs";
const dir = process.env.DIR;
const a = await createArray(new FileSystemStore(dir), "a", {
  shape: [8, 1024], dataType: "float32", chunkShape: [4, 512],
});
// Values whose strides point past their data, before it, at 2^52 elements,
// or are not integers: the gather path must never turn them into views.
const big = new Float32Array(1 << 16).fill(7);
const data = big.subarray(0, 8192);
const strides = [[1 << 20, 1], [2 ** 52, 1], [-1024, 1], [1024, -1], [Number.NaN, 1],
  [1024.5, 1], [Infinity, 1], [1024, 1, 1], "1024,1", null];
let refused = 0;
for (const stride of strides) {
  const e = await a.set(null, { data, shape: [8, 1024], stride }).catch((e) => e);
  if (stride === null) { if (e !== undefined) throw e; continue; }
  if (!(e instanceof IndexError)) throw new Error("stride " + JSON.stringify(stride) + ": " + e);
  refused++;
}
// The one valid write (stride null = C order) is the only data that exists.
const chunks = readdirSync(dir + "/a/c", { recursive: true }).filter((f) => /^\\d+\\/\\d+$/.test(f));
if (chunks.length !== 4) throw new Error("chunk files: " + chunks);
const got = (await a.get(null)).data;
if (!got.every((v) => v === 7)) throw new Error("values changed by a refused write");
console.log("refused " + refused);
`;

const MANY_VIEWS_AND_TWO_WRITERS = `
import { openArray } from "@zarr/core";
import { createArrayV2 } from "@zarr/v2-compat";
import "@zarr/v2-compat/register";
import { FileSystemStore } from "@zarr/store-fs";
const dir = process.env.DIR;
// 3,000 rows of 512 bytes per chunk: three writev batches of at most 1,024 views.
const [rows, cols] = [3000, 1536];
const a = await createArrayV2(new FileSystemStore(dir), "many", {
  shape: [rows, cols], chunks: [rows, 512], dtype: "|u1", compressor: null, fillValue: 0,
});
const values = new Uint8Array(rows * cols).map((_, k) => ((Math.floor(k / cols) * 7 + (k % cols) * 13) % 251) + 1);
await a.set(null, values);
// Two store objects on one directory write whole chunks of two generations,
// over and over: every chunk read afterwards is wholly one generation.
const shape = [64, 1024];
const gens = [1, 2].map((g) => new Float64Array(64 * 1024).fill(g));
for (const [i, s] of [new FileSystemStore(dir), new FileSystemStore(dir)].entries()) {
  if (i === 0) await createArrayV2(s, "two", { shape, chunks: [32, 512], dtype: "<f8", compressor: null, fillValue: 0 });
}
const handles = await Promise.all([new FileSystemStore(dir), new FileSystemStore(dir)].map((s) => openArray(s, "two")));
for (let round = 0; round < 40; round++) {
  await Promise.all(handles.map((h, g) => h.set(null, gens[g])));
  const { data } = await handles[0].get(null);
  for (let c = 0; c < 4; c++) {
    const r0 = (c >> 1) * 32, c0 = (c & 1) * 512;
    const first = data[r0 * 1024 + c0];
    for (let r = r0; r < r0 + 32; r++) for (let k = c0; k < c0 + 512; k++) {
      if (data[r * 1024 + k] !== first) throw new Error("round " + round + ": chunk " + c + " torn");
    }
  }
}
console.log("ok");
`;

const THROUGH_A_LINK = `
import { createArray, openArray, StoreError } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
const store = new FileSystemStore(process.env.DIR);
if (process.env.STEP === "create") {
  await createArray(store, "a", { shape: [4, 512], dataType: "float32", chunkShape: [4, 512] });
  console.log("created");
} else {
  const a = await openArray(store, "a");
  const e = await a.set(null, new Float32Array(2048).fill(3)).catch((e) => e);
  if (!(e instanceof StoreError)) throw new Error("a write through a linked directory: " + e);
  console.log("refused");
}
`;

describe("gather writes under attack", () => {
  it("hostile strides are an IndexError, and nothing but the valid write reaches the files", async () => {
    const dir = join(root, "strides");
    expect(await run(HOSTILE_STRIDES, { DIR: dir })).toBe("refused 9");
  });

  it("3,000 views per chunk and two writers on one directory: zarr-python reads every element; no chunk is torn", async () => {
    const dir = join(root, "many");
    expect(await run(MANY_VIEWS_AND_TWO_WRITERS, { DIR: dir })).toBe("ok");
    const python = findPython(["zarr", "numpy"]);
    if (!python) {
      if (process.env.CI) throw new Error(pythonSkipReason(["zarr", "numpy"]));
      console.log(pythonSkipReason(["zarr", "numpy"]));
      return;
    }
    const check = spawnSync(
      python,
      [
        "-c",
        `import sys, zarr, numpy as np
a = zarr.open_array(sys.argv[1] + "/many", mode="r")[:]
i = np.arange(3000)[:, None]; j = np.arange(1536)[None, :]
expected = ((i * 1536 + j) // 1536 * 7 + (i * 1536 + j) % 1536 * 13) % 251 + 1
assert a.dtype == np.uint8 and a.shape == (3000, 1536)
assert (a == expected).all(), int((a != expected).sum())
print("equal")`,
        dir,
      ],
      { encoding: "utf8" },
    );
    expect(check.stdout.trim(), check.stderr).toBe("equal");
  });

  it("a chunk directory replaced by a link out of the root is a StoreError; nothing is written outside", async () => {
    const dir = join(root, "linked");
    const outside = join(root, "outside");
    mkdirSync(outside, { recursive: true });
    expect(await run(THROUGH_A_LINK, { DIR: dir, STEP: "create" })).toBe("created");
    // The chunk directory becomes a link to a directory outside the store.
    symlinkSync(outside, join(dir, "a", "c"));
    expect(await run(THROUGH_A_LINK, { DIR: dir, STEP: "write" })).toBe("refused");
    expect(readdirSync(outside)).toEqual([]);
  });
});

// Which destination chunks a copy writes and which part writes them: on a
// sparse source, the units are exactly the destination chunks that overlap a
// stored source chunk (checked against a brute force over the whole grid, for
// chunkings smaller, larger, misaligned and sharded), parts split the grid into
// disjoint ranges whose union is the whole, and a source that cannot list falls
// back to the grid. End to end, sparse rechunking copies preserve every value.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AnyStore,
  createArray,
  MemoryStore,
  open,
  openArray,
  type ZarrArray,
} from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import { FileSystemStore } from "@zarr/store-fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planCopy } from "../src/copy/plan.js";
import { partRange, planUnits } from "../src/copy/units.js";
import { defaultChunks } from "../src/run/create.js";
import { run } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "zarr-cli-units-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SHAPE = [23, 17];
const STORED: [number, number][] = [
  [0, 0],
  [3, 2],
  [22, 16],
  [10, 9],
];

/** A sparse source: a few elements set, so only their chunks are stored. */
async function source(store: AnyStore, chunkShape: number[]): Promise<ZarrArray> {
  const a = await createArray(store, "a", { shape: SHAPE, dataType: "int32", chunkShape });
  for (const [i, j] of STORED) await a.set([i, j], i * 100 + j + 1);
  return a;
}

/** Destination chunks overlapping a stored source chunk, by brute force over the whole grid. */
function expected(src: ZarrArray, dstChunks: readonly number[]): string[] {
  const stored = STORED.map(([i, j]) => [
    Math.floor(i / src.chunkShape[0]),
    Math.floor(j / src.chunkShape[1]),
  ]);
  const out: string[] = [];
  const grid = SHAPE.map((s, d) => Math.ceil(s / dstChunks[d]));
  for (let a = 0; a < grid[0]; a++)
    for (let b = 0; b < grid[1]; b++) {
      const hit = stored.some(([x, y]) =>
        [
          [a, x],
          [b, y],
        ].every(([dc, sc], d) => {
          const lo = Math.max(dc * dstChunks[d], sc * src.chunkShape[d]);
          const hi = Math.min((dc + 1) * dstChunks[d], (sc + 1) * src.chunkShape[d], SHAPE[d]);
          return lo < hi;
        }),
      );
      if (hit) out.push(`${a},${b}`);
    }
  return out;
}

async function units(
  store: AnyStore,
  flags: Record<string, string>,
  part = 0,
  parts = 1,
  resume = false,
  dst: AnyStore = new MemoryStore(),
) {
  const root = await open(resolveStore(store), "a");
  const plan = await planCopy(root, "a", flags, () => {});
  const [u] = await planUnits(plan, resolveStore(dst), { part, parts, resume });
  return { u, coords: [...u.coords()].map((c) => c.join(",")), plan };
}

describe("units of a sparse copy", () => {
  let store: MemoryStore;
  let src: ZarrArray;
  beforeAll(async () => {
    store = new MemoryStore();
    src = await source(store, [4, 3]);
  });

  for (const [name, flags, dstChunks] of [
    ["same chunks", {}, [4, 3]],
    ["smaller chunks", { chunks: "2,1" }, [2, 1]],
    ["larger chunks", { chunks: "12,9" }, [12, 9]],
    ["misaligned chunks", { chunks: "5,5" }, [5, 5]],
    ["sharded (units are shards)", { chunks: "2,3", shards: "6,6" }, [6, 6]],
    ["one chunk", { chunks: "23,17" }, [23, 17]],
  ] as const) {
    it(`${name}: exactly the destination chunks overlapping stored source chunks`, async () => {
      const { u, coords } = await units(store, flags as Record<string, string>);
      expect([...coords].sort(byCoords)).toEqual(expected(src, dstChunks));
      expect(u.count).toBe(coords.length);
      expect(u.sources?.length).toBe(3); // (0,0) and (3,2) share a source chunk
    });
  }

  it("parts own disjoint grid ranges; their units together are the whole copy's", async () => {
    const flags = { chunks: "2,2" };
    const whole = (await units(store, flags)).coords;
    for (const n of [2, 3, 7, 200]) {
      const seen: string[] = [];
      for (let i = 0; i < n; i++) {
        const { coords, plan } = await units(store, flags, i, n);
        const grid = plan.arrays[0].plan.gridShape;
        const [lo, hi] = partRange(BigInt(grid[0] * grid[1]), i, n);
        for (const c of coords) {
          const [x, y] = c.split(",").map(Number);
          const linear = BigInt(x * grid[1] + y);
          expect(linear >= lo && linear < hi, `${c} in part ${i}/${n}`).toBe(true);
        }
        seen.push(...coords);
      }
      expect(new Set(seen).size).toBe(seen.length); // disjoint
      expect(seen.sort(byCoords)).toEqual([...whole].sort(byCoords)); // complete
    }
  });

  it("--resume adds the destination's own stored chunks in the part's range", async () => {
    const dst = new MemoryStore();
    const d = await createArray(dst, "a", { shape: SHAPE, dataType: "int32", chunkShape: [4, 3] });
    await d.set([20, 1], 5); // chunk 5,0: no stored source chunk there
    const plain = await units(store, {}, 0, 1, false, dst);
    expect(plain.coords).not.toContain("5,0");
    const resumed = await units(store, {}, 0, 1, true, dst);
    expect([...resumed.coords].sort(byCoords)).toEqual([...plain.coords, "5,0"].sort(byCoords));
    expect(resumed.u.count).toBe(plain.u.count + 1);
  });

  it("a source store that cannot list: every position of the grid is a unit", async () => {
    const unlistable: AnyStore = {
      get: (key, range) => store.get(key, range),
    };
    const { u } = await units(unlistable, { chunks: "5,5" });
    expect(u.sources).toBeUndefined();
    expect(u.count).toBe(5 * 4);
  });
});

function byCoords(a: string, b: string): number {
  const [x, y] = a.split(",").map(Number);
  const [p, q] = b.split(",").map(Number);
  return x - p || y - q;
}

describe("sparse copies end to end", () => {
  for (const [name, flags] of [
    ["rechunk smaller", ["--chunks", "2,1"]],
    ["rechunk larger", ["--chunks", "12,9"]],
    ["misaligned", ["--chunks", "5,5"]],
    ["reshard", ["--chunks", "2,3", "--shards", "6,6"]],
    ["to v2", ["--format", "2", "--chunks", "7,7"]],
  ] as const) {
    it(`${name}: every value equals the source's; only chunks holding data are stored`, async () => {
      const srcDir = join(dir, `src-${name}.zarr`);
      const a = await source(new FileSystemStore(srcDir), [4, 3]);
      const dstDir = join(dir, `dst-${name}.zarr`);
      const r = await run("copy", srcDir, dstDir, "--path", "a", ...flags);
      expect(r.err).toBe("");
      expect(r.code).toBe(0);
      const b = await openArray(new FileSystemStore(dstDir), "a");
      expect([...((await b.get()).data as Int32Array)]).toEqual([
        ...((await a.get()).data as Int32Array),
      ]);
      let stored = 0;
      for await (const _ of b.storedChunks()) stored++;
      const holding = new Set(
        STORED.map(([i, j]) =>
          [Math.floor(i / b.chunkShape[0]), Math.floor(j / b.chunkShape[1])].join(),
        ),
      );
      expect(stored).toBe(holding.size);
    });
  }
});

describe("--max-memory", () => {
  it("a chunk that alone exceeds it is refused before any data moves (exit 2)", async () => {
    const srcDir = join(dir, "src-memory.zarr");
    await source(new FileSystemStore(srcDir), [4, 3]);
    const dst = join(dir, "dst-memory.zarr");
    const big = await run(
      "copy",
      srcDir,
      dst,
      "--path",
      "a",
      "--chunks",
      "23,17",
      "--max-memory",
      "1K",
    );
    expect(big.code).toBe(2);
    expect(big.err).toMatch(
      /^zarr: TooLargeError: \/a: one destination chunk \[23, 17\] is 1\.5 KiB decoded, more than --max-memory 1\.0 KiB/,
    );
    expect(existsSync(dst)).toBe(false); // refused before any metadata was written
    const src = await run(
      "copy",
      srcDir,
      dst,
      "--path",
      "a",
      "--chunks",
      "1,1",
      "--max-memory",
      "40",
    );
    expect(src.code).toBe(2);
    expect(src.err).toMatch(/one source chunk \[4, 3\] is 48 B decoded/);
    const ok = await run("copy", srcDir, dst, "--path", "a", "--max-memory", "1K");
    expect(ok.code).toBe(0);
  });
});

describe("zarr create's default chunks", () => {
  it("the whole array up to 64 MiB; else longest sides halved down to at most 16 MiB", () => {
    expect(defaultChunks([1000, 1000], 8)).toEqual([1000, 1000]);
    expect(defaultChunks([0, 5], 4)).toEqual([1, 5]);
    expect(defaultChunks([], 8)).toEqual([]);
    const big = defaultChunks([1e15], 8);
    expect(big[0] * 8).toBeLessThanOrEqual(16 * 2 ** 20);
    expect(big[0] * 8).toBeGreaterThan(8 * 2 ** 20);
    const cube = defaultChunks([10000, 10000, 10000], 4);
    expect(cube.reduce((x, y) => x * y, 4)).toBeLessThanOrEqual(16 * 2 ** 20);
    expect(Math.max(...cube) / Math.min(...cube)).toBeLessThanOrEqual(2);
    const max = 2 ** 53 - 1;
    const sq = defaultChunks([max, max], 1);
    expect(sq.reduce((x, y) => x * y, 1)).toBeLessThanOrEqual(16 * 2 ** 20);
  });
});

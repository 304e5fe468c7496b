// Concurrent writers on one FileSystemStore: 8 Node processes write one array
// at the same time. Writers that own disjoint whole chunks (or whole shards)
// produce exactly the expected array, including when they share chunk
// directories; writers that all replace the same whole chunks leave each chunk
// equal to one writer's value, never a mix. (Writers sharing a chunk or shard
// through partial writes are not safe: see RELIABILITY.md.)
import { createArray, type JsonValue, openArray } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ensureBuilt, spawnFixture } from "./fixtures/children.js";
import { tempDir } from "./helpers.js";

const WRITERS = 8;
const SHAPE = [250, 200]; // not a multiple of the chunks: edge chunks are partial
const value = (i: number, j: number) => i * 65536 + j + 1;

let dir: { root: string; cleanup: () => Promise<void> };
beforeAll(() => ensureBuilt());
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(() => dir.cleanup());

/** Starts `WRITERS` processes on `path`, releases them together, and waits for all to finish. */
async function runWriters(path: string, mode: "own" | "same"): Promise<void> {
  const children = Array.from({ length: WRITERS }, (_, id) =>
    spawnFixture("region-writer.mjs", [dir.root, path, String(id), String(WRITERS), mode]),
  );
  await Promise.all(children.map((c) => c.waitFor((l) => l === "ready")));
  for (const c of children) c.process.stdin!.write("go\n");
  await Promise.all(children.map((c) => c.waitFor((l) => l === "done")));
  const codes = await Promise.all(children.map((c) => c.exited));
  expect(codes, children.map((c) => c.stderr()).join("")).toEqual(children.map(() => 0));
}

async function expectPattern(path: string): Promise<void> {
  const array = await openArray(new FileSystemStore(dir.root), path);
  const { data, shape } = await array.get(null);
  expect(shape).toEqual(SHAPE);
  let wrong = 0;
  for (let i = 0; i < SHAPE[0]; i++) {
    for (let j = 0; j < SHAPE[1]; j++) if (data[i * SHAPE[1] + j] !== value(i, j)) wrong++;
  }
  expect(wrong).toBe(0);
}

const sharding = (inner: number[]): JsonValue[] => [
  {
    name: "sharding_indexed",
    configuration: {
      chunk_shape: inner,
      codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }],
    },
  },
];

describe(`FileSystemStore with ${WRITERS} concurrent writer processes`, () => {
  it("disjoint chunk-aligned regions (interleaved ownership, shared chunk directories) give the expected array", async () => {
    const store = new FileSystemStore(dir.root);
    // 13 x 10 = 130 chunks; writer w owns chunks w, w + 8, ... so every c/<i>/ directory is shared.
    await createArray(store, "plain", { shape: SHAPE, dataType: "int32", chunkShape: [20, 20] });
    await runWriters("plain", "own");
    await expectPattern("plain");
  });

  it("disjoint shard-aligned regions of a sharded array give the expected array", async () => {
    const store = new FileSystemStore(dir.root);
    // Shards of 40 x 50 (7 x 4 = 28 shards) holding 10 x 10 inner chunks.
    await createArray(store, "sharded", {
      shape: SHAPE,
      dataType: "int32",
      chunkShape: [40, 50],
      codecs: sharding([10, 10]),
    });
    await runWriters("sharded", "own");
    await expectPattern("sharded");
  });

  it("writers replacing the same whole chunks leave every chunk equal to one writer's value", async () => {
    const store = new FileSystemStore(dir.root);
    await createArray(store, "same", { shape: SHAPE, dataType: "int32", chunkShape: [50, 50] });
    await runWriters("same", "same");
    const array = await openArray(store, "same");
    const [gr, gc] = array.gridShape;
    const winners = new Set<number>();
    for (let i = 0; i < gr; i++) {
      for (let j = 0; j < gc; j++) {
        const chunk = await array.getChunk([i, j]);
        const distinct = new Set(chunk!.data as Int32Array);
        expect(distinct.size).toBe(1);
        const [v] = distinct;
        expect(v).toBeGreaterThanOrEqual(1);
        expect(v).toBeLessThanOrEqual(WRITERS);
        winners.add(v);
      }
    }
    console.info(
      `same-chunk writers: chunks ended with values of ${winners.size} different writers`,
    );
  });
});

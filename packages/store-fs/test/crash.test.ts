// Crash safety of FileSystemStore writes: a writer process is SIGKILLed at
// random points while it rewrites every chunk, shard and the metadata of two
// arrays, many times over. Afterwards the metadata is valid JSON metadata,
// every chunk and every shard holds exactly one generation (its old value or
// its new one, never a torn or mixed file), no generation reported as complete
// is lost, and leftover temporary files are invisible to readers.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { createArray, openArray, type ZarrArray, ZarrError } from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import { FileSystemStore } from "@zarr/store-fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, spawnFixture } from "./fixtures/children.js";
import { tempDir } from "./helpers.js";

const KILLS = Number(process.env.CRASH_KILLS) || 25;
/** Kills land up to this long after the writer is ready (a generation takes ~10-60 ms). */
const MAX_DELAY_MS = 250;
/** Generations of kill `k` are k * SPAN + 1, k * SPAN + 2, ... so values identify the run. */
const SPAN = 1_000_000;

/** Seeded PRNG (mulberry32), so the delays are the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let dir: { root: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  ensureBuilt();
  dir = await tempDir();
  const store = new FileSystemStore(dir.root);
  // 16 chunks of 64 KiB (one file each) and 4 shards of 256 KiB with 16 inner chunks each.
  await createArray(store, "plain", {
    shape: [512, 512],
    dataType: "uint32",
    chunkShape: [128, 128],
    attributes: { generation: 0 },
  });
  await createArray(store, "sharded", {
    shape: [512, 512],
    dataType: "uint32",
    chunkShape: [256, 256],
    codecs: [
      {
        name: "sharding_indexed",
        configuration: {
          chunk_shape: [64, 64],
          codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }],
        },
      },
    ],
  });
});
afterAll(() => dir?.cleanup());

/** The single value of every chunk (0: not written yet); throws if a chunk mixes values. */
async function chunkValues(array: ZarrArray): Promise<number[]> {
  const values: number[] = [];
  const [gr, gc] = array.gridShape;
  for (let i = 0; i < gr; i++) {
    for (let j = 0; j < gc; j++) {
      const chunk = await array.getChunk([i, j]);
      if (chunk === undefined) {
        values.push(0);
        continue;
      }
      const data = chunk.data as Uint32Array;
      const distinct = new Set(data);
      expect(distinct.size, `chunk ${i},${j} of ${array.path} mixes values`).toBe(1);
      values.push(data[0]);
    }
  }
  return values;
}

async function listTempFiles(root: string): Promise<number> {
  let count = 0;
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      if (e.isDirectory()) await walk(join(d, e.name));
      else if (e.name.startsWith(".zarr-tmp.")) count++;
    }
  };
  await walk(root);
  return count;
}

describe("FileSystemStore crash safety (SIGKILL during writes)", () => {
  it(`after each of ${KILLS} kills at random points, every chunk and shard holds one whole generation`, async () => {
    const random = prng(2024);
    const store = new FileSystemStore(dir.root);
    let lastDone = 0; // the newest generation a writer reported complete
    let killedMidGeneration = 0;
    // On a loaded machine a generation can outlast every delay; kills go on (with
    // longer delays, up to 4 times as many) until one has landed mid-generation.
    for (let k = 1; k <= KILLS || (killedMidGeneration === 0 && k <= 4 * KILLS); k++) {
      const first = k * SPAN + 1;
      const child = spawnFixture("crash-writer.mjs", [dir.root, String(first)]);
      await child.waitFor((l) => l === "ready");
      const stretch = k > KILLS ? 4 : 1;
      await new Promise((r) => setTimeout(r, random() * MAX_DELAY_MS * stretch));
      child.process.kill("SIGKILL");
      expect(await child.exited).toBe("SIGKILL");
      const done = child.lines.filter((l) => l.startsWith("done ")).map((l) => Number(l.slice(5)));
      if (done.length > 0) lastDone = Math.max(lastDone, ...done);

      // Metadata: both documents parse and validate; the attribute names a real generation.
      const plain = await openArray(store, "plain");
      const sharded = await openArray(store, "sharded");
      const gen = plain.attrs.generation as number;
      expect(gen === 0 || (gen >= SPAN && gen < (k + 1) * SPAN)).toBe(true);
      expect(gen).toBeGreaterThanOrEqual(lastDone);

      // Data: one generation per chunk and per shard, none older than the last completed one.
      const values = [...(await chunkValues(plain)), ...(await chunkValues(sharded))];
      for (const v of values) {
        expect(v === 0 || v < (k + 1) * SPAN).toBe(true);
        expect(v).toBeGreaterThanOrEqual(lastDone);
      }
      if (new Set(values).size > 1) killedMidGeneration++;

      // Readers never see temporary files of interrupted writes.
      for await (const key of resolveStore(store).list()) expect(key).not.toContain(".zarr-tmp.");
    }
    const leftovers = await listTempFiles(dir.root);
    console.info(
      `crash test: ${KILLS} kills, ${killedMidGeneration} left chunks from two generations, last completed generation ${lastDone}, ${leftovers} temporary files left behind (never listed)`,
    );
    // The kills did land in the middle of generations, and writers did complete some.
    expect(killedMidGeneration).toBeGreaterThan(0);
    expect(lastDone).toBeGreaterThan(0);
  });

  it("control: the same checks catch torn metadata or chunks when files are written in place", async () => {
    const control = await tempDir();
    try {
      const store = new FileSystemStore(control.root);
      await createArray(store, "plain", {
        shape: [512, 512],
        dataType: "uint32",
        chunkShape: [128, 128],
        codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }],
      });
      await createArray(store, "sharded", { shape: [8], dataType: "uint32", chunkShape: [8] });
      const random = prng(7);
      let kills = 0;
      let caught: unknown;
      while (caught === undefined && kills < 60) {
        kills++;
        const child = spawnFixture("crash-writer.mjs", [
          control.root,
          String(kills * SPAN + 1),
          "in-place",
        ]);
        await child.waitFor((l) => l.startsWith("done "));
        await new Promise((r) => setTimeout(r, random() * 20));
        child.process.kill("SIGKILL");
        await child.exited;
        try {
          await chunkValues(await openArray(store, "plain"));
        } catch (e) {
          caught = e;
        }
      }
      console.info(
        `crash control: in-place writes left a torn file after ${kills} kills: ${String(caught)}`,
      );
      // A truncated zarr.json (MetadataError) or chunk (CodecError: length or checksum).
      expect(caught).toBeInstanceOf(ZarrError);
    } finally {
      await control.cleanup();
    }
  });
});

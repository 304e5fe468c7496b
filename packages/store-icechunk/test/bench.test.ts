// Measurements for the README (skipped unless BENCH=1):
//   BENCH=1 npx vitest run packages/store-icechunk/test/bench.test.ts
// 1. a 2048 x 2048 float32 array in 256 chunks of 128 x 128 (64 KiB, bytes codec
//    only), read whole through zarr from a local directory: as a plain Zarr v3
//    hierarchy (FileSystemStore) and as an Icechunk repository (native chunks,
//    one manifest); the time includes opening the store.
// 2. chunk reference lookups in a manifest of 262,144 refs (getSize of every key).
// 3. lookups of 4096 virtual refs, plain and zstd-dictionary-compressed locations
//    (a dictionary trained by the zstd CLI; Node >= 22.19 / 24.6 for the latter).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as zlib from "node:zlib";
import { hasZstdDictionarySupport } from "@zarr/codec-zstd";
import { openArray } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { IcechunkStore } from "@zarr/store-icechunk";
import { describe, expect, it } from "vitest";
import { encodeId } from "../src/ids.js";
import { type BuiltChunk, buildRepository, compressLocations, makeId } from "./builder.js";

const N = 2048;
const C = 128;
const G = N / C;
const meta = {
  zarr_format: 3,
  node_type: "array",
  shape: [N, N],
  data_type: "float32",
  chunk_grid: { name: "regular", configuration: { chunk_shape: [C, C] } },
  chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
  fill_value: 0,
  codecs: [{ name: "bytes", configuration: { endian: "little" } }],
};

async function time(label: string, runs: number, f: () => Promise<unknown>): Promise<number> {
  await f();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await f();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(runs / 2)];
  console.log(`${label}: median ${median.toFixed(1)} ms of ${runs}`);
  return median;
}

describe.skipIf(!process.env.BENCH)("store-icechunk measurements", () => {
  it("reading a 16 MiB array: plain Zarr directory vs Icechunk repository", async () => {
    const dir = mkdtempSync(join(tmpdir(), "icechunk-bench-"));
    try {
      const chunk = new Uint8Array(C * C * 4);
      for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 7) & 0xff;
      const plain = new FileSystemStore(join(dir, "plain"));
      await plain.set("a/zarr.json", new TextEncoder().encode(JSON.stringify(meta)));
      const nodeId = makeId(1, 8);
      const manifestId = makeId(2);
      const refs: BuiltChunk[] = [];
      const chunks: Record<string, Uint8Array> = {};
      for (let i = 0; i < G; i++) {
        for (let j = 0; j < G; j++) {
          await plain.set(`a/c/${i}/${j}`, chunk);
          const id = makeId(1000 + i * G + j);
          chunks[encodeId(id)] = chunk;
          refs.push({ index: [i, j], chunkId: id, offset: 0, length: chunk.length });
        }
      }
      const { store: memory } = await buildRepository({
        specVersion: 2,
        nodes: [
          {
            path: "/a",
            id: nodeId,
            zarrJson: meta,
            shape: [
              [N, C],
              [N, C],
            ],
            manifests: [{ id: manifestId, extents: [] }],
          },
        ],
        manifests: [{ id: manifestId, arrays: [{ nodeId, refs }] }],
        chunks,
      });
      const repo = new FileSystemStore(join(dir, "repo"));
      for await (const k of memory.list()) await repo.set(k, (await memory.get(k)) as Uint8Array);
      const read = async (store: FileSystemStore | IcechunkStore) => {
        const a = await openArray(store, "a");
        const { data } = await a.get();
        expect((data as Float32Array).length).toBe(N * N);
      };
      await time("plain Zarr directory", 15, () => read(new FileSystemStore(join(dir, "plain"))));
      await time("Icechunk repository", 15, async () =>
        read(await IcechunkStore.open(new FileSystemStore(join(dir, "repo")))),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("chunk reference lookups in a 262,144-ref manifest", async () => {
    const nodeId = makeId(1, 8);
    const manifestId = makeId(2);
    const refs: BuiltChunk[] = [];
    const side = 512;
    for (let i = 0; i < side; i++)
      for (let j = 0; j < side; j++)
        refs.push({ index: [i, j], inline: Uint8Array.of(i & 255, j & 255) });
    const { store: memory } = await buildRepository({
      specVersion: 2,
      nodes: [
        {
          path: "/a",
          id: nodeId,
          zarrJson: meta,
          shape: [
            [side, 1],
            [side, 1],
          ],
          manifests: [{ id: manifestId, extents: [] }],
        },
      ],
      manifests: [{ id: manifestId, arrays: [{ nodeId, refs }] }],
    });
    console.log(
      `manifest file: ${(await memory.getSize?.(`manifests/${encodeId(manifestId)}`)) ?? "?"} bytes (zstd)`,
    );
    const store = await IcechunkStore.open(memory);
    await time("first lookup (reads, decompresses, checks the sort order)", 1, async () => {
      await IcechunkStore.open(memory).then((s) => s.getSize("a/c/0/0"));
    });
    const ms = await time("262,144 lookups", 3, async () => {
      for (let i = 0; i < side; i++)
        for (let j = 0; j < side; j++) await store.getSize(`a/c/${i}/${j}`);
    });
    console.log(`${((side * side) / ms / 1000).toFixed(2)} M lookups/s`);
  }, 300_000);

  it.skipIf(!hasZstdDictionarySupport())(
    "lookups of 4096 virtual refs: plain and compressed locations",
    async () => {
      const side = 64;
      const url = (i: number) =>
        `s3://era5-pds/reanalysis/single-levels/year=${1980 + (i % 40)}/month=${(i % 12) + 1}/` +
        `air_temperature_at_2_metres_${i}.nc`;
      const training = Array.from({ length: 200 }, (_, i) => url(i * 37 + 5000));
      const { dictionary } = compressLocations(["x"], training)!;
      const compress = (zlib as unknown as Record<string, unknown>).zstdCompressSync as (
        d: Uint8Array,
        o: object,
      ) => Uint8Array;
      for (const compressed of [false, true]) {
        const nodeId = makeId(1, 8);
        const manifestId = makeId(2);
        const refs: BuiltChunk[] = [];
        for (let k = 0; k < side * side; k++) {
          const index = [Math.floor(k / side), k % side];
          refs.push(
            compressed
              ? {
                  index,
                  offset: 0,
                  length: 100,
                  compressedLocation: compress(new TextEncoder().encode(url(k)), { dictionary }),
                }
              : { index, offset: 0, length: 100, location: url(k) },
          );
        }
        const { store: memory } = await buildRepository({
          specVersion: 2,
          nodes: [
            {
              path: "/a",
              id: nodeId,
              zarrJson: meta,
              shape: [
                [side, 1],
                [side, 1],
              ],
              manifests: [{ id: manifestId, extents: [] }],
            },
          ],
          manifests: [
            {
              id: manifestId,
              arrays: [{ nodeId, refs }],
              ...(compressed ? { locationDictionary: dictionary, compressionAlgorithm: 1 } : {}),
            },
          ],
        });
        const size = await memory.getSize?.(`manifests/${encodeId(manifestId)}`);
        const store = await IcechunkStore.open(memory);
        await store.getSize("a/c/0/0");
        const label = compressed ? "compressed locations" : "plain locations";
        const ms = await time(
          `${label} (manifest ${size} bytes zstd): 4096 lookups`,
          5,
          async () => {
            for (let k = 0; k < side * side; k++)
              await store.getSize(`a/c/${Math.floor(k / side)}/${k % side}`);
          },
        );
        console.log(`${label}: ${((ms * 1000) / (side * side)).toFixed(1)} µs per lookup`);
      }
    },
    120_000,
  );
});

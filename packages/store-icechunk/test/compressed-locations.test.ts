// Virtual chunk locations compressed with a zstd dictionary (manifest.fbs:
// ChunkRef.compressed_location, Manifest.location_dictionary and
// compression_algorithm = 1; spec version 2), which Icechunk 2 writes by
// default in manifests of 1000 or more virtual chunks. The manifests here are
// written by test/builder.ts, their dictionary trained and their locations
// compressed by the zstd CLI as Icechunk does. Reading them needs node:zlib's
// zstd with dictionaries (Node >= 22.19 / 24.6): Node 20 must get an
// UnsupportedError naming that. CI runs this file on both Nodes.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import "@zarr/store-fs/register";
import { hasZstdDictionarySupport, ZSTD_DICTIONARY_REQUIREMENT } from "@zarr/codec-zstd";
import {
  type MemoryStore,
  openArray,
  type StoreError,
  UnsupportedError,
  ZarrError,
} from "@zarr/core";
import { IcechunkFormatError, IcechunkStore } from "@zarr/store-icechunk";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { encodeId } from "../src/ids.js";
import {
  type BuiltChunk,
  buildRepository,
  compressLocations,
  makeId,
  type RepoSpec,
} from "./builder.js";

const supported = hasZstdDictionarySupport();

const dir = mkdtempSync(join(tmpdir(), "icechunk-compressed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const container = `${pathToFileURL(dir).href}/`;

// 12 chunks of 4 bytes, chunk i in its own "NetCDF file" at byte 8 + i
const N = 12;
const fileOf = (i: number) =>
  `era5/reanalysis/single-levels/year=${2000 + i}/month=${(i % 12) + 1}/t2m_${i}.nc`;
mkdirSync(join(dir, "era5"), { recursive: true });
for (let i = 0; i < N; i++) {
  const bytes = new Uint8Array(8 + i + 4 + 3);
  bytes.set([10 * i, 10 * i + 1, 10 * i + 2, 10 * i + 3], 8 + i);
  mkdirSync(join(dir, fileOf(i), ".."), { recursive: true });
  writeFileSync(join(dir, fileOf(i)), bytes);
}
const EXPECTED = Array.from({ length: 4 * N }, (_, k) => 10 * Math.floor(k / 4) + (k % 4));

// Icechunk trains on a sample of the manifest's own locations: here 200 like them
const trainingSet = Array.from({ length: 200 }, (_, i) => `${container}${fileOf(i * 7 + 100)}`);
const urls = Array.from({ length: N }, (_, i) => `${container}${fileOf(i)}`);
const compressed = compressLocations(
  [...urls, "s3://elsewhere/x.nc", `${container}../outside.nc`],
  trainingSet,
);
const otherDictionary = compressLocations(
  ["x"],
  trainingSet.map((u) => u.replace("era5", "cmip6").toUpperCase()),
)?.dictionary;
if (!compressed) console.warn("the zstd CLI is not installed: compressed-location tests skip");

const arrayId = makeId(1, 8);
const manifestId = makeId(4);
const manifestFile = `manifests/${encodeId(manifestId)}`;

/** A repository with one 1-d array of 12 virtual chunks; `refs` replaces chunk refs by index. */
function repo(
  change: (refs: BuiltChunk[]) => void = () => {},
  compression: Pick<
    RepoSpec["manifests"][number],
    "locationDictionary" | "compressionAlgorithm"
  > = {
    locationDictionary: compressed?.dictionary,
    compressionAlgorithm: 1,
  },
  fileCompression: 0 | 1 = 1,
): Promise<{ store: MemoryStore }> {
  const refs: BuiltChunk[] = urls.map((_, i) => ({
    index: [i],
    compressedLocation: compressed!.frames[i],
    offset: 8 + i,
    length: 4,
  }));
  change(refs);
  return buildRepository({
    specVersion: 2,
    compression: fileCompression,
    nodes: [
      { path: "/", id: makeId(0, 8), zarrJson: { zarr_format: 3, node_type: "group" } },
      {
        path: "/t2m",
        id: arrayId,
        zarrJson: {
          zarr_format: 3,
          node_type: "array",
          shape: [4 * N],
          data_type: "uint8",
          chunk_grid: { name: "regular", configuration: { chunk_shape: [4] } },
          chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
          fill_value: 255,
          codecs: [{ name: "bytes", configuration: {} }],
        },
        shape: [[4 * N, 4]],
        manifests: [{ id: manifestId, extents: [[0, N]] }],
      },
    ],
    manifests: [{ id: manifestId, arrays: [{ nodeId: arrayId, refs }], ...compression }],
  });
}

const open = async (built: { store: MemoryStore }) =>
  IcechunkStore.open(built.store, {
    virtualChunkContainers: [{ urlPrefix: container }],
    allowLocalFiles: true,
  });

describe.skipIf(!compressed || !supported)(
  "compressed virtual locations (Node >= 22.19 / 24.6)",
  () => {
    it("reads every virtual chunk through zarr, as with plain locations", async () => {
      // the frames are what Icechunk writes: dictionary id, content size, no checksum
      for (const [i, frame] of compressed!.frames.slice(0, N).entries()) {
        expect(frame[4]! & 0x03).not.toBe(0); // Dictionary_ID_flag
        expect(frame[4]! & 0x04).toBe(0); // no Content_Checksum_flag
        expect(frame.length).toBeLessThan(urls[i]!.length / 2);
      }
      const store = await open(await repo());
      const t2m = await openArray(store, "t2m");
      expect(Array.from((await t2m.get()).data as Uint8Array)).toEqual(EXPECTED);
      expect(await store.get("t2m/c/5")).toEqual(Uint8Array.of(50, 51, 52, 53));
    });

    it("mixes compressed and plain locations and inline chunks in one manifest", async () => {
      const store = await open(
        await repo((refs) => {
          refs[2] = { index: [2], location: urls[2], offset: 10, length: 4 };
          refs[3] = { index: [3], inline: Uint8Array.of(30, 31, 32, 33) };
          refs[4]!.etag = '"abc"';
        }),
      );
      const t2m = await openArray(store, "t2m");
      expect(Array.from((await t2m.get()).data as Uint8Array)).toEqual(EXPECTED);
    });

    it("a decompressed URL passes the same container checks as a plain one", async () => {
      const outside = await open(
        await repo((refs) => (refs[0]!.compressedLocation = compressed!.frames[N])),
      );
      await expect(outside.get("t2m/c/0")).rejects.toThrow(/lies in no virtual chunk container/);
      const escaping = await open(
        await repo((refs) => (refs[0]!.compressedLocation = compressed!.frames[N + 1])),
      );
      await expect(escaping.get("t2m/c/0")).rejects.toThrow(/could leave it/);
    });

    it("a corrupt frame is a StoreError naming the manifest file and the chunk", async () => {
      const truncated = compressed!.frames[7]!.subarray(0, 10);
      const damaged = compressed!.frames[7]!.slice();
      // a byte of the frame's compressed sequences: libzstd 1.5.4's frame fails to decode
      // (a damaged literal could decode to another URL: Icechunk writes no checksum)
      damaged[damaged.length - 3]! ^= 0xff;
      for (const [frame, reason] of [
        [truncated, /truncated/],
        [Uint8Array.of(1, 2, 3, 4, 5, 6), /bad magic number/],
        [damaged, /libzstd: |bytes but holds/],
      ] as const) {
        const store = await open(await repo((refs) => (refs[7]!.compressedLocation = frame)));
        const e = await store.get("t2m/c/7").catch((x: unknown) => x);
        expect(e).toBeInstanceOf(IcechunkFormatError);
        expect((e as StoreError).path).toBe(manifestFile);
        expect((e as Error).message).toContain(
          `icechunk file ${manifestFile}: chunk t2m/c/7: its compressed_location cannot be decompressed`,
        );
        expect((e as Error).message).toMatch(reason);
        // the other chunks still read
        expect(await store.get("t2m/c/6")).toEqual(Uint8Array.of(60, 61, 62, 63));
      }
    });

    it("a location_dictionary other than the one the frames were written with is a StoreError", async () => {
      const store = await open(
        await repo(undefined, { locationDictionary: otherDictionary, compressionAlgorithm: 1 }),
      );
      const e = await store.get("t2m/c/1").catch((x: unknown) => x);
      expect(e).toBeInstanceOf(IcechunkFormatError);
      expect((e as Error).message).toMatch(/chunk t2m\/c\/1: .*needs dictionary \d+/);
    });

    it("a URL longer than 64 KiB is refused (the output bound)", async () => {
      const long = compressLocations([`${container}${"a/".repeat(40_000)}x.nc`], trainingSet)!;
      const store = await open(
        await repo((refs) => (refs[0]!.compressedLocation = long.frames[0]), {
          locationDictionary: long.dictionary,
        }),
      );
      await expect(store.get("t2m/c/0")).rejects.toThrow(/more than the allowed 65536/);
    });
  },
);

describe.skipIf(!compressed)(
  "manifests whose compressed locations cannot be decoded (any Node)",
  () => {
    it("a missing location_dictionary is a StoreError naming the manifest and chunk", async () => {
      for (const compression of [
        {},
        { compressionAlgorithm: 1 },
        { locationDictionary: new Uint8Array(0) },
      ]) {
        const store = await open(await repo(undefined, compression));
        const e = await store.get("t2m/c/3").catch((x: unknown) => x);
        expect(e).toBeInstanceOf(IcechunkFormatError);
        expect((e as Error).message).toContain(
          `icechunk file ${manifestFile}: chunk t2m/c/3 has a compressed_location, but the manifest has no location_dictionary`,
        );
      }
    });

    it("a compression_algorithm other than 1 is a StoreError", async () => {
      for (const [algorithm, name] of [
        [0, "none"],
        [2, "unknown"],
      ] as const) {
        const store = await open(
          await repo(undefined, {
            locationDictionary: compressed!.dictionary,
            compressionAlgorithm: algorithm,
          }),
        );
        await expect(store.get("t2m/c/0")).rejects.toThrow(
          new RegExp(
            `chunk t2m/c/0 has a compressed_location, but the manifest's compression_algorithm is ${algorithm} \\(${name}\\)`,
          ),
        );
      }
    });

    it("plain locations still read where the platform cannot decompress (compression_algorithm 0)", async () => {
      const store = await open(
        await repo(
          (refs) => {
            for (const r of refs) {
              r.location = urls[r.index[0]!];
              r.compressedLocation = undefined;
            }
          },
          { compressionAlgorithm: 0 },
        ),
      );
      expect(Array.from((await (await openArray(store, "t2m")).get()).data as Uint8Array)).toEqual(
        EXPECTED,
      );
    });
  },
);

describe.skipIf(!compressed)("fuzz", () => {
  it("mutated manifests with compressed locations give values of their reported size or a ZarrError", async () => {
    // uncompressed manifest file, so that edits reach the dictionary and the frames
    const built = await repo(undefined, undefined, 0);
    const original = (await built.store.get(manifestFile))!;
    const edits = fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), {
      minLength: 1,
      maxLength: 4,
    });
    await fc.assert(
      fc.asyncProperty(edits, async (changes) => {
        const bytes = original.slice();
        for (const [at, value] of changes) bytes[at % bytes.length] = value;
        await built.store.set(manifestFile, bytes);
        try {
          const store = await open(built);
          for (let i = 0; i < N; i++) {
            try {
              const size = await store.getSize(`t2m/c/${i}`);
              const value = await store.get(`t2m/c/${i}`);
              expect(value?.length).toBe(size);
            } catch (e) {
              if (!(e instanceof ZarrError)) throw e;
            }
          }
        } catch (e) {
          if (!(e instanceof ZarrError)) throw e;
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe.runIf(!!compressed && !supported)(
  "without node:zlib dictionaries (Node 20, browsers)",
  () => {
    it("reading a compressed location is an UnsupportedError naming the requirement, not a crash", async () => {
      const store = await open(await repo());
      // the repository, its tree and metadata open; only the compressed refs fail
      const t2m = await openArray(store, "t2m");
      const e = await t2m.get().catch((x: unknown) => x);
      expect(e).toBeInstanceOf(UnsupportedError);
      expect((e as Error).message).toContain(ZSTD_DICTIONARY_REQUIREMENT);
      expect((e as Error).message).toContain(manifestFile);
      expect((e as Error).message).toMatch(
        /chunk t2m\/c\/\d+ has a zstd-dictionary-compressed virtual location/,
      );
    });
  },
);

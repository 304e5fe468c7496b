// Repositories written byte for byte from the specification by test/builder.ts
// (spec v2 "Binary File Format", snapshot.fbs, manifest.fbs, repo.fbs; spec v1
// refs layout), read back through zarr: chunks of every kind (native, also
// several in one chunk file; inline; virtual), split manifests, 0-d arrays,
// byte ranges, sizes and the errors of each kind of damage.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import "@zarr/store-fs/register";
import { openArray, StoreError, ValueTooLargeError } from "@zarr/core";
import { IcechunkFormatError, IcechunkStore } from "@zarr/store-icechunk";
import { afterAll, describe, expect, it } from "vitest";
import { encodeId } from "../src/ids.js";
import {
  type BuiltNode,
  buildRepository,
  FILE_TYPE,
  icechunkFile,
  makeId,
  manifestPayload,
  type RepoSpec,
  repoPayload,
  snapshotPayload,
} from "./builder.js";
import { collect, text } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "icechunk-virtual-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// the virtual target: a "NetCDF file" holding chunk (1, 1) at byte 3
writeFileSync(join(dir, "target.nc"), Uint8Array.of(0, 0, 0, 13, 14, 15, 16, 0));
const container = `${pathToFileURL(dir).href}/`;

const arrayMeta = (shape: number[], chunks: number[]) => ({
  zarr_format: 3,
  node_type: "array",
  shape,
  data_type: "uint8",
  chunk_grid: { name: "regular", configuration: { chunk_shape: chunks } },
  chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
  fill_value: 255,
  codecs: [{ name: "bytes", configuration: {} }],
  attributes: { units: "K" },
});

const dataId = makeId(1, 8);
const scalarId = makeId(2, 8);
const chunkFile = makeId(3);
const manifestA = makeId(4);
const manifestB = makeId(5);

function spec(specVersion: 1 | 2, compression: 0 | 1 = 1): RepoSpec {
  const nodes: BuiltNode[] = [
    {
      path: "/",
      id: makeId(0, 8),
      zarrJson: { zarr_format: 3, node_type: "group", attributes: { title: "t" } },
    },
    {
      path: "/g/data",
      id: dataId,
      zarrJson: arrayMeta([4, 4], [2, 2]),
      shape: [
        [4, 2],
        [4, 2],
      ],
      // split along dimension 0: rows of chunks 0 in manifest A, 1 in manifest B
      manifests: [
        {
          id: manifestA,
          extents: [
            [0, 1],
            [0, 2],
          ],
        },
        {
          id: manifestB,
          extents: [
            [1, 2],
            [0, 2],
          ],
        },
      ],
    },
    {
      path: "/g",
      id: makeId(6, 8),
      zarrJson: { zarr_format: 3, node_type: "group", attributes: {} },
    },
    {
      path: "/scalar",
      id: scalarId,
      zarrJson: arrayMeta([], []),
      shape: [],
      manifests: [{ id: manifestA, extents: [] }],
    },
  ];
  return {
    specVersion,
    compression,
    nodes,
    manifests: [
      {
        id: manifestA,
        arrays: [
          {
            nodeId: dataId,
            refs: [
              // two chunks in one chunk file, at offsets 0 and 4
              { index: [0, 1], chunkId: chunkFile, offset: 4, length: 4 },
              { index: [0, 0], chunkId: chunkFile, offset: 0, length: 4 },
            ],
          },
          { nodeId: scalarId, refs: [{ index: [], inline: Uint8Array.of(42) }] },
        ].sort((a, b) => encodeId(a.nodeId).localeCompare(encodeId(b.nodeId))),
      },
      {
        id: manifestB,
        arrays: [
          {
            nodeId: dataId,
            refs: [
              { index: [1, 0], inline: Uint8Array.of(9, 10, 11, 12) },
              { index: [1, 1], location: `${container}target.nc`, offset: 3, length: 4 },
            ],
          },
        ],
      },
    ],
    chunks: { [encodeId(chunkFile)]: Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8) },
    containersYaml: `inline_chunk_threshold_bytes: 512\nvirtual_chunk_containers:\n  local:\n    name: local\n    url_prefix: '${container}'\n    store: !local_file_system ''\nmanifest: null\n`,
  };
}

const EXPECTED = [1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 13, 14, 11, 12, 15, 16];

describe.each([
  ["spec v2, zstd", 2, 1],
  ["spec v2, uncompressed", 2, 0],
  ["spec v1, zstd", 1, 1],
] as const)("a repository built from the specification (%s)", (_, specVersion, compression) => {
  const containers =
    specVersion === 2
      ? { virtualChunkContainers: [{ urlPrefix: container }] }
      : { allowLocalFiles: true };

  it("reads native (two in one file), inline and virtual chunks through zarr", async () => {
    const { store: repo } = await buildRepository(spec(specVersion, compression));
    const store = await IcechunkStore.open(repo, containers);
    expect(store.info.specVersion).toBe(specVersion);
    const data = await openArray(store, "g/data");
    expect(data.attrs).toEqual({ units: "K" });
    expect(Array.from((await data.get()).data as Uint8Array)).toEqual(EXPECTED);
    const scalar = await openArray(store, "scalar");
    expect(Array.from((await scalar.get()).data as Uint8Array)).toEqual([42]);
  });

  it("resolves branch main, tag v1 and the snapshot id; lists keys", async () => {
    const { store: repo, snapshotId } = await buildRepository(spec(specVersion, compression));
    for (const version of [{ branch: "main" }, { tag: "v1" }, { snapshot: snapshotId }]) {
      expect((await IcechunkStore.open(repo, { version })).info.snapshotId).toBe(snapshotId);
    }
    await expect(IcechunkStore.open(repo, { version: { tag: "v2" } })).rejects.toThrow(
      /has no tag "v2"/,
    );
    await expect(IcechunkStore.open(repo, { version: { snapshot: "not-an-id" } })).rejects.toThrow(
      /Crockford/,
    );
    await expect(
      IcechunkStore.open(repo, { version: { snapshot: encodeId(makeId(7)) } }),
    ).rejects.toThrow(/has no snapshot/);
    const store = await IcechunkStore.open(repo);
    expect(await collect(store.list())).toEqual([
      "g/data/c/0/0",
      "g/data/c/0/1",
      "g/data/c/1/0",
      "g/data/c/1/1",
      "g/data/zarr.json",
      "g/zarr.json",
      "scalar/c",
      "scalar/zarr.json",
      "zarr.json",
    ]);
    expect(await store.listDir("")).toEqual({ keys: ["zarr.json"], prefixes: ["g", "scalar"] });
    expect(await store.listDir("scalar/")).toEqual({ keys: ["c", "zarr.json"], prefixes: [] });
    expect(await store.listDir("g/data/c/1/")).toEqual({ keys: ["0", "1"], prefixes: [] });
  });

  it("honours byte ranges, sizes and maxBytes of every kind of chunk", async () => {
    const { store: repo } = await buildRepository(spec(specVersion, compression));
    const store = await IcechunkStore.open(repo, containers);
    expect(await store.get("g/data/c/0/1", { offset: 1, length: 2 })).toEqual(Uint8Array.of(6, 7));
    expect(await store.get("g/data/c/1/0", { suffix: 1 })).toEqual(Uint8Array.of(12));
    expect(await store.get("g/data/c/1/1", { offset: 2 })).toEqual(Uint8Array.of(15, 16));
    expect(await store.getSize("g/data/c/1/1")).toBe(4);
    expect(await store.getSize("scalar/c")).toBe(1);
    expect(text(await store.get("zarr.json", { offset: 0, length: 1 }))).toBe("{");
    await expect(store.get("g/data/c/0/0", undefined, { maxBytes: 3 })).rejects.toThrow(
      ValueTooLargeError,
    );
    for (const missing of [
      "g/data/c/2/0",
      "g/data/c/0",
      "g/data/c/00/0",
      "g/c/0",
      "g/data/zarr.jso",
      "nope/zarr.json",
    ]) {
      expect(await store.get(missing)).toBeUndefined();
    }
  });
});

describe("virtual chunk containers (icechunk's VirtualChunkResolver)", () => {
  it("a spec v1 config.yaml container authorizes its prefix; a URL outside is a StoreError", async () => {
    const built = spec(1);
    const store = await IcechunkStore.open((await buildRepository(built)).store, {
      allowLocalFiles: true,
    });
    expect(await store.get("g/data/c/1/1")).toEqual(Uint8Array.of(13, 14, 15, 16));
    const none = await IcechunkStore.open(
      (await buildRepository({ ...built, containersYaml: "manifest: null\n" })).store,
    );
    const err = await none.get("g/data/c/1/1").catch((e) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err.message).toMatch(/lies in no virtual chunk container/);
    expect(err.message).toContain("g/data/c/1/1");
  });

  it("a file: container of the repository is honoured only with allowLocalFiles", async () => {
    const store = await IcechunkStore.open((await buildRepository(spec(1))).store);
    const err = await store.get("g/data/c/1/1").catch((e) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err.message).toMatch(/local files are read only with allowLocalFiles: true/);
    // a container the caller names is its own choice
    const named = await IcechunkStore.open((await buildRepository(spec(1))).store, {
      virtualChunkContainers: [{ urlPrefix: container }],
    });
    expect(await named.get("g/data/c/1/1")).toEqual(Uint8Array.of(13, 14, 15, 16));
  });

  // Found by an attack: `zip:///abs/` opened archives on disk and `c://` a "drive" path.
  it("containers that reach local files through another scheme are local too", async () => {
    for (const prefix of [
      "zip:///tmp/secret.docx!/word/",
      "c://tmp/",
      "icechunk://tmp/repo/",
      "reference+json://tmp/refs/",
    ]) {
      const built = spec(1);
      built.manifests[1].arrays[0].refs[1].location = `${prefix}target.nc`;
      built.containersYaml = built.containersYaml!.replace(container, prefix);
      const store = await IcechunkStore.open((await buildRepository(built)).store);
      const err = await store.get("g/data/c/1/1").catch((e) => e);
      expect(err, prefix).toBeInstanceOf(StoreError);
      expect(err.message, prefix).toMatch(/local files are read only with allowLocalFiles: true/);
    }
  });

  it("vcc://NAME/path locations expand with the named container's prefix", async () => {
    const built = spec(1);
    const manifest = built.manifests[1].arrays[0].refs[1];
    manifest.location = "vcc://local/target.nc";
    const store = await IcechunkStore.open((await buildRepository(built)).store, {
      allowLocalFiles: true,
    });
    expect(await store.get("g/data/c/1/1")).toEqual(Uint8Array.of(13, 14, 15, 16));
  });

  it("a virtual target shorter than offset + length is a StoreError, never short data", async () => {
    const built = spec(1);
    built.manifests[1].arrays[0].refs[1].offset = 6;
    const store = await IcechunkStore.open((await buildRepository(built)).store, {
      allowLocalFiles: true,
    });
    await expect(store.get("g/data/c/1/1")).rejects.toThrow(StoreError);
  });
});

describe("damaged repository files are IcechunkFormatErrors naming the file", () => {
  const snapshotKey = (id: string) => `snapshots/${id}`;

  async function damaged(edit: (bytes: Uint8Array) => Uint8Array | Promise<Uint8Array>) {
    const { store, snapshotId } = await buildRepository(spec(2));
    const key = snapshotKey(snapshotId);
    await store.set(key, await edit((await store.get(key)) as Uint8Array));
    return { store, key };
  }

  it.each([
    [
      "bad magic bytes",
      (b: Uint8Array) => Uint8Array.from(b, (x, i) => (i === 3 ? 0 : x)),
      /magic bytes/,
    ],
    [
      "spec version 3",
      (b: Uint8Array) => Uint8Array.from(b, (x, i) => (i === 36 ? 3 : x)),
      /spec version 3/,
    ],
    [
      "a manifest file type",
      (b: Uint8Array) => Uint8Array.from(b, (x, i) => (i === 37 ? 2 : x)),
      /is a manifest, expected a snapshot/,
    ],
    [
      "compression 7",
      (b: Uint8Array) => Uint8Array.from(b, (x, i) => (i === 38 ? 7 : x)),
      /compression algorithm 7/,
    ],
    ["a truncated header", (b: Uint8Array) => b.slice(0, 20), /fewer than the 39-byte header/],
    [
      "a truncated zstd frame",
      (b: Uint8Array) => b.slice(0, b.length - 5),
      /cannot be decompressed/,
    ],
  ])("%s", async (_, edit, message) => {
    const { store, key } = await damaged(edit);
    const err = await IcechunkStore.open(store).catch((e) => e);
    expect(err).toBeInstanceOf(IcechunkFormatError);
    expect(err.message).toContain(key);
    expect(err.message).toMatch(message);
  });

  it("a truncated flatbuffer names what lies outside it", async () => {
    const { store, key } = await damaged(async () => {
      const payload = snapshotPayload(makeId(99), spec(2).nodes);
      return icechunkFile(FILE_TYPE.snapshot, payload.slice(0, payload.length - 40), {
        compression: 0,
      });
    });
    const err = await IcechunkStore.open(store).catch((e) => e);
    expect(err).toBeInstanceOf(IcechunkFormatError);
    expect(err.message).toMatch(/outside the \d+-byte flatbuffer/);
    expect(err.message).toContain(key);
  });

  it("a snapshot file holding another snapshot id", async () => {
    const { store, key } = await damaged(() =>
      icechunkFile(FILE_TYPE.snapshot, snapshotPayload(makeId(98), spec(2).nodes)),
    );
    await expect(IcechunkStore.open(store)).rejects.toThrow(new RegExp(`${key}.*holds snapshot`));
  });

  it("unsorted chunk refs in a manifest (manifest.fbs: MUST be sorted) fail instead of missing chunks", async () => {
    const { store } = await buildRepository(spec(2));
    const refs = [
      { index: [0, 1], chunkId: chunkFile, offset: 4, length: 4 },
      { index: [0, 0], chunkId: chunkFile, offset: 0, length: 4 },
    ];
    await store.set(
      `manifests/${encodeId(manifestA)}`,
      await icechunkFile(
        FILE_TYPE.manifest,
        manifestPayload(manifestA, [{ nodeId: dataId, refs }], { sort: false }),
      ),
    );
    const ice = await IcechunkStore.open(store);
    await expect(ice.get("g/data/c/0/0")).rejects.toThrow(/not sorted by chunk index/);
  });

  it("a missing manifest or chunk file is a StoreError naming it", async () => {
    const { store } = await buildRepository(spec(2));
    await store.erase(`manifests/${encodeId(manifestB)}`);
    await store.erase(`chunks/${encodeId(chunkFile)}`);
    const ice = await IcechunkStore.open(store);
    await expect(ice.get("g/data/c/1/0")).rejects.toThrow(
      `manifests/${encodeId(manifestB)} is missing`,
    );
    await expect(ice.get("g/data/c/0/0")).rejects.toThrow(
      `chunks/${encodeId(chunkFile)} is missing`,
    );
  });

  it("a repo info branch pointing past the snapshot list", async () => {
    const { store } = await buildRepository(spec(2));
    await store.set(
      "repo",
      await icechunkFile(FILE_TYPE.repo, repoPayload([makeId(99)], { main: 5 })),
    );
    await expect(IcechunkStore.open(store)).rejects.toThrow(/points to snapshot 5 of 1/);
  });

  it("a deleted tag of the repo info is not found", async () => {
    const { store } = await buildRepository(spec(2));
    await store.set(
      "repo",
      await icechunkFile(
        FILE_TYPE.repo,
        repoPayload([makeId(99)], { main: 0 }, { old: 0 }, ["old"]),
      ),
    );
    await expect(IcechunkStore.open(store, { version: { tag: "old" } })).rejects.toThrow(
      /has no tag "old"/,
    );
  });

  // compressed locations with their dictionary: test/compressed-locations.test.ts
  it("a compressed_location in a manifest without location_dictionary is an IcechunkFormatError", async () => {
    const { store } = await buildRepository(spec(2));
    // hand-made ChunkRef with only index and compressed_location (field 8)
    const { flatbuffer } = await import("./builder.js");
    const refs = [
      [
        { vector: new Uint8Array(8), elementSize: 4, align: 4, length: 2 },
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        { bytes: Uint8Array.of(1, 2) },
      ],
    ];
    const payload = flatbuffer([
      { struct: manifestA, align: 1 },
      { tables: [[{ struct: dataId, align: 1 }, { tables: refs }]] },
    ]);
    await store.set(
      `manifests/${encodeId(manifestA)}`,
      await icechunkFile(FILE_TYPE.manifest, payload),
    );
    const ice = await IcechunkStore.open(store);
    await expect(ice.get("g/data/c/0/0")).rejects.toThrow(IcechunkFormatError);
    await expect(ice.get("g/data/c/0/0")).rejects.toThrow(
      /chunk g\/data\/c\/0\/0 has a compressed_location, but the manifest has no location_dictionary/,
    );
  });
});

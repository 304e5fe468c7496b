/**
 * A test-only writer of Icechunk repositories, built from the specification
 * (spec v2 "Binary File Format" and the `*.fbs` schemas; FlatBuffers wire
 * format from https://flatbuffers.dev/internals/), not from Icechunk's code.
 * It lays a flatbuffer out front to back: root offset, then each table's
 * vtable followed by the table, then what the table points to (offsets are
 * unsigned and point forward), every scalar aligned to its size.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ZstdCodec } from "@zarr/codec-zstd";
import { MemoryStore } from "@zarr/core";
import { encodeId } from "../src/ids.js";

/** A field value of a table (by field id; `undefined` leaves the field absent). */
export type FbValue =
  | { u8: number }
  | { u16: number }
  | { u32: number }
  | { i32: number }
  | { u64: number | bigint }
  | { struct: Uint8Array; align: number }
  | { table: (FbValue | undefined)[] }
  | { string: string }
  | { bytes: Uint8Array }
  | { vector: Uint8Array; elementSize: number; align: number; length: number }
  | { tables: (FbValue | undefined)[][] }
  | { strings: string[] };

class Writer {
  bytes = new Uint8Array(1024);
  length = 0;
  ensure(n: number) {
    if (this.length + n <= this.bytes.length) return;
    const next = new Uint8Array(Math.max(this.bytes.length * 2, this.length + n));
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }
  align(a: number) {
    while (this.length % a !== 0) this.put(new Uint8Array(1));
  }
  put(b: Uint8Array): number {
    this.ensure(b.length);
    const at = this.length;
    this.bytes.set(b, at);
    this.length += b.length;
    return at;
  }
  view() {
    return new DataView(this.bytes.buffer);
  }
  patchOffset(at: number, target: number) {
    this.view().setUint32(at, target - at, true);
  }
}

const le = (size: number, set: (v: DataView) => void) => {
  const b = new Uint8Array(size);
  set(new DataView(b.buffer));
  return b;
};

function scalar(v: FbValue): { bytes: Uint8Array; align: number } | undefined {
  if ("u8" in v) return { bytes: Uint8Array.of(v.u8), align: 1 };
  if ("u16" in v) return { bytes: le(2, (d) => d.setUint16(0, v.u16, true)), align: 2 };
  if ("u32" in v) return { bytes: le(4, (d) => d.setUint32(0, v.u32, true)), align: 4 };
  if ("i32" in v) return { bytes: le(4, (d) => d.setInt32(0, v.i32, true)), align: 4 };
  if ("u64" in v) return { bytes: le(8, (d) => d.setBigUint64(0, BigInt(v.u64), true)), align: 8 };
  if ("struct" in v) return { bytes: v.struct, align: v.align };
  return undefined;
}

function writeTable(w: Writer, fields: (FbValue | undefined)[]): number {
  // table body layout: soffset, then fields in id order, each aligned (relative to an 8-aligned start)
  const layout: { id: number; at: number; size: number }[] = [];
  let size = 4;
  for (let id = 0; id < fields.length; id++) {
    const f = fields[id];
    if (f === undefined) continue;
    const s = scalar(f);
    const fieldSize = s ? s.bytes.length : 4;
    const align = s ? s.align : 4;
    size = Math.ceil(size / align) * align;
    layout.push({ id, at: size, size: fieldSize });
    size += fieldSize;
  }
  const vtable = new Uint8Array(4 + 2 * fields.length);
  const vt = new DataView(vtable.buffer);
  vt.setUint16(0, vtable.length, true);
  vt.setUint16(2, size, true);
  for (const l of layout) vt.setUint16(4 + 2 * l.id, l.at, true);
  w.align(2);
  const vtablePos = w.put(vtable);
  w.align(8);
  const table = w.put(new Uint8Array(Math.ceil(size / 8) * 8));
  w.view().setInt32(table, table - vtablePos, true);
  const later: [number, FbValue][] = [];
  for (const l of layout) {
    const f = fields[l.id] as FbValue;
    const s = scalar(f);
    if (s) w.bytes.set(s.bytes, table + l.at);
    else later.push([table + l.at, f]);
  }
  for (const [at, f] of later) w.patchOffset(at, writeReferenced(w, f));
  return table;
}

function writeReferenced(w: Writer, f: FbValue): number {
  if ("table" in f) return writeTable(w, f.table);
  if ("string" in f || "bytes" in f) {
    const b = "string" in f ? new TextEncoder().encode(f.string) : f.bytes;
    w.align(4);
    const at = w.put(le(4, (d) => d.setUint32(0, b.length, true)));
    w.put(b);
    if ("string" in f) w.put(new Uint8Array(1));
    return at;
  }
  if ("vector" in f) {
    // the elements start 4 bytes after the length and must be aligned
    while ((w.length + 4) % Math.max(f.align, 4) !== 0) w.put(new Uint8Array(1));
    const at = w.put(le(4, (d) => d.setUint32(0, f.length, true)));
    w.put(f.vector);
    return at;
  }
  const items: FbValue[] =
    "tables" in f
      ? f.tables.map((t) => ({ table: t }))
      : "strings" in f
        ? f.strings.map((s) => ({ string: s }))
        : [];
  w.align(4);
  const at = w.put(le(4, (d) => d.setUint32(0, items.length, true)));
  const slots = w.put(new Uint8Array(4 * items.length));
  items.forEach((item, i) => {
    w.patchOffset(slots + 4 * i, writeReferenced(w, item));
  });
  return at;
}

/** The flatbuffer whose root table has `fields`. */
export function flatbuffer(fields: (FbValue | undefined)[]): Uint8Array {
  const w = new Writer();
  w.put(new Uint8Array(8)); // root uoffset (+ padding)
  w.patchOffset(0, writeTable(w, fields));
  return w.bytes.slice(0, w.length);
}

export const FILE_TYPE = { snapshot: 1, manifest: 2, repo: 6 } as const;

/** The file header (spec v2, "Binary File Format") and payload, zstd-compressed unless `compression` is 0. */
export async function icechunkFile(
  type: number,
  payload: Uint8Array,
  { specVersion = 2, compression = 1, writer = "ic-test-builder" } = {},
): Promise<Uint8Array> {
  const header = new Uint8Array(39);
  header.set(new TextEncoder().encode("ICE🧊CHUNK"), 0);
  header.set(new TextEncoder().encode(writer.padEnd(24, " ")).subarray(0, 24), 12);
  header[36] = specVersion;
  header[37] = type;
  header[38] = compression;
  const body = compression === 1 ? await new ZstdCodec({ level: 3 }).encode(payload) : payload;
  const out = new Uint8Array(39 + body.length);
  out.set(header);
  out.set(body, 39);
  return out;
}

const u32s = (values: number[]) => {
  const b = new Uint8Array(4 * values.length);
  values.forEach((v, i) => {
    new DataView(b.buffer).setUint32(4 * i, v, true);
  });
  return { vector: b, elementSize: 4, align: 4, length: values.length };
};

/** A deterministic id of `n` bytes from `seed`. */
export function makeId(seed: number, n = 12): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (seed * 31 + i * 17 + 7) & 0xff;
  return b;
}

export interface BuiltChunk {
  index: number[];
  inline?: Uint8Array;
  chunkId?: Uint8Array;
  location?: string;
  /** A zstd frame of the location, written with the manifest's `locationDictionary` (see {@link compressLocations}). */
  compressedLocation?: Uint8Array;
  offset?: number;
  length?: number;
  etag?: string;
}

export interface BuiltNode {
  path: string;
  id: Uint8Array;
  /** The zarr.json document (serialized as JSON) or its bytes as they are. */
  zarrJson: unknown;
  /** Arrays: per dimension [array length, chunk length]; groups leave it out. */
  shape?: [number, number][];
  manifests?: { id: Uint8Array; extents: [number, number][] }[];
}

/** A snapshot flatbuffer (`snapshot.fbs`), with v1 (`shape`) or v2 (`shape_v2`) shapes. */
export function snapshotPayload(
  id: Uint8Array,
  nodes: BuiltNode[],
  { specVersion = 2, message = "a commit" } = {},
): Uint8Array {
  const sorted = [...nodes].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const nodeTables = sorted.map((n): (FbValue | undefined)[] => {
    const userData =
      n.zarrJson instanceof Uint8Array
        ? n.zarrJson
        : new TextEncoder().encode(JSON.stringify(n.zarrJson));
    const isArray = n.shape !== undefined;
    let data: (FbValue | undefined)[] = [];
    if (isArray) {
      const shape = n.shape ?? [];
      const v1 = new Uint8Array(16 * (specVersion === 1 ? shape.length : 0));
      if (specVersion === 1) {
        shape.forEach(([len, chunk], i) => {
          new DataView(v1.buffer).setBigUint64(16 * i, BigInt(len), true);
          new DataView(v1.buffer).setBigUint64(16 * i + 8, BigInt(chunk), true);
        });
      }
      data = [
        { vector: v1, elementSize: 16, align: 8, length: v1.length / 16 },
        undefined,
        {
          tables: (n.manifests ?? []).map((m) => {
            const ext = new Uint8Array(8 * m.extents.length);
            m.extents.forEach(([from, to], i) => {
              new DataView(ext.buffer).setUint32(8 * i, from, true);
              new DataView(ext.buffer).setUint32(8 * i + 4, to, true);
            });
            return [
              { struct: m.id, align: 1 },
              { vector: ext, elementSize: 8, align: 4, length: m.extents.length },
            ];
          }),
        },
        specVersion === 2
          ? { tables: shape.map(([len, chunk]) => [{ u64: len }, { u32: Math.ceil(len / chunk) }]) }
          : undefined,
      ];
    }
    return [
      { struct: n.id, align: 1 },
      { string: n.path },
      { bytes: userData },
      { u8: isArray ? 1 : 2 },
      { table: data },
    ];
  });
  return flatbuffer([
    { struct: id, align: 1 },
    undefined,
    { tables: nodeTables },
    { u64: 1_700_000_000_000_000 },
    { string: message },
    { tables: [] },
    { vector: new Uint8Array(0), elementSize: 24, align: 8, length: 0 },
    specVersion === 2 ? { tables: [] } : undefined,
  ]);
}

/** The location compression fields of a manifest (`Manifest.location_dictionary`, `compression_algorithm`). */
export interface LocationCompression {
  /** `location_dictionary`; absent when left out. */
  locationDictionary?: Uint8Array;
  /** `compression_algorithm`; absent (the schema's default, 1) when left out. */
  compressionAlgorithm?: number;
}

/** A manifest flatbuffer (`manifest.fbs`); refs are sorted by index as the spec requires. */
export function manifestPayload(
  id: Uint8Array,
  arrays: { nodeId: Uint8Array; refs: BuiltChunk[] }[],
  {
    sort = true,
    locationDictionary,
    compressionAlgorithm,
  }: { sort?: boolean } & LocationCompression = {},
): Uint8Array {
  return flatbuffer([
    { struct: id, align: 1 },
    {
      tables: arrays.map((a) => {
        const refs = sort
          ? [...a.refs].sort((x, y) => {
              for (let i = 0; i < x.index.length; i++)
                if (x.index[i] !== y.index[i]) return x.index[i] - y.index[i];
              return 0;
            })
          : a.refs;
        return [
          { struct: a.nodeId, align: 1 },
          {
            tables: refs.map((r) => [
              u32s(r.index),
              r.inline ? { bytes: r.inline } : undefined,
              r.offset !== undefined ? { u64: r.offset } : undefined,
              r.length !== undefined ? { u64: r.length } : undefined,
              r.chunkId ? { struct: r.chunkId, align: 1 } : undefined,
              r.location !== undefined ? { string: r.location } : undefined,
              r.etag !== undefined ? { string: r.etag } : undefined,
              undefined,
              r.compressedLocation !== undefined ? { bytes: r.compressedLocation } : undefined,
            ]),
          },
        ];
      }),
    },
    locationDictionary !== undefined ? { bytes: locationDictionary } : undefined,
    compressionAlgorithm !== undefined ? { u8: compressionAlgorithm } : undefined,
  ]);
}

/**
 * Compresses `locations` as Icechunk 2 does (manifest.fbs `compressed_location`;
 * its `train_location_dictionary` and `compress_locations`): a ZDICT
 * dictionary trained on `trainingSet` (Icechunk samples up to 100 of a
 * manifest's locations; `--maxdict=2048`, its default size), then one frame
 * per location with that dictionary, with content size and dictionary id and
 * without checksum (libzstd's defaults for a bulk compressor). Uses the zstd
 * CLI; `undefined` when it is not installed.
 */
export function compressLocations(
  locations: string[],
  trainingSet: string[],
): { dictionary: Uint8Array; frames: Uint8Array[] } | undefined {
  if (spawnSync("zstd", ["--version"]).status !== 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "icechunk-locations-"));
  try {
    const run = (args: string[]) => {
      const r = spawnSync("zstd", ["-q", "-f", ...args], { cwd: dir });
      if (r.status !== 0) throw new Error(`zstd ${args.join(" ")}: ${r.stderr}`);
    };
    mkdirSync(join(dir, "samples"));
    trainingSet.forEach((s, i) => {
      writeFileSync(join(dir, "samples", String(i)), s);
    });
    run(["--train", "-r", "samples", "-o", "dict", "--maxdict=2048"]);
    const frames = locations.map((location, i) => {
      writeFileSync(join(dir, `l${i}`), location);
      run(["-D", "dict", "--no-check", `l${i}`, "-o", `l${i}.zst`]);
      return new Uint8Array(readFileSync(join(dir, `l${i}.zst`)));
    });
    return { dictionary: new Uint8Array(readFileSync(join(dir, "dict"))), frames };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A repo info flatbuffer (`repo.fbs`): every snapshot, branches and tags by snapshot index. */
export function repoPayload(
  snapshots: Uint8Array[],
  branches: Record<string, number>,
  tags: Record<string, number> = {},
  deletedTags: string[] = [],
): Uint8Array {
  const order = snapshots
    .map((s, i) => ({ s, i }))
    .sort((a, b) => encodeId(a.s).localeCompare(encodeId(b.s)));
  const position = new Map(order.map((o, p) => [o.i, p]));
  const refs = (r: Record<string, number>) =>
    Object.keys(r)
      .sort()
      .map(
        (name) =>
          [{ string: name }, { u32: position.get(r[name]) ?? r[name] }] as (FbValue | undefined)[],
      );
  return flatbuffer([
    { u8: 2 },
    { tables: refs(tags) },
    { tables: refs(branches) },
    { strings: [...deletedTags].sort() },
    {
      tables: order.map((o) => [
        { struct: o.s, align: 1 },
        { i32: -1 },
        { u64: 0 },
        { string: "commit" },
      ]),
    },
    { table: [{ u8: 0 }, { u64: 0 }] },
    undefined,
    { tables: [] },
  ]);
}

/** A small repository description: one array and one group, chunks of every kind. */
export interface RepoSpec {
  specVersion: 1 | 2;
  nodes: BuiltNode[];
  manifests: ({
    id: Uint8Array;
    arrays: { nodeId: Uint8Array; refs: BuiltChunk[] }[];
  } & LocationCompression)[];
  chunks?: Record<string, Uint8Array>;
  compression?: 0 | 1;
  containersYaml?: string;
}

/** Writes a repository (snapshot on branch `main` and tag `v1`) into a MemoryStore. */
export async function buildRepository(
  spec: RepoSpec,
): Promise<{ store: MemoryStore; snapshotId: string }> {
  const store = new MemoryStore();
  const opts = { specVersion: spec.specVersion, compression: spec.compression ?? 1 };
  const snapId = makeId(99);
  const snapshotId = encodeId(snapId);
  await store.set(
    `snapshots/${snapshotId}`,
    await icechunkFile(
      FILE_TYPE.snapshot,
      snapshotPayload(snapId, spec.nodes, { specVersion: spec.specVersion }),
      opts,
    ),
  );
  for (const m of spec.manifests) {
    await store.set(
      `manifests/${encodeId(m.id)}`,
      await icechunkFile(FILE_TYPE.manifest, manifestPayload(m.id, m.arrays, m), opts),
    );
  }
  for (const [id, bytes] of Object.entries(spec.chunks ?? {}))
    await store.set(`chunks/${id}`, bytes);
  const ref = new TextEncoder().encode(JSON.stringify({ snapshot: snapshotId }));
  if (spec.specVersion === 2) {
    await store.set(
      "repo",
      await icechunkFile(FILE_TYPE.repo, repoPayload([snapId], { main: 0 }, { v1: 0 }), opts),
    );
  } else {
    await store.set("refs/branch.main/ref.json", ref);
    await store.set("refs/tag.v1/ref.json", ref);
    if (spec.containersYaml !== undefined)
      await store.set("config.yaml", new TextEncoder().encode(spec.containersYaml));
  }
  return { store, snapshotId };
}

/**
 * Writes the matrix with our implementation and records, per array, what we
 * wrote: the values read back through a fresh open (the expected values every
 * peer must read), the input values (for the re-encode check of lossy
 * filters), the fill value's stored bytes and the layout. Fixed-size values
 * go to one binary file (stored form, little-endian where the dtype has a
 * byte order) referenced by offset; variable-size values are JSON.
 *
 * @module
 */
import { writeFileSync } from "node:fs";
import {
  createArray,
  type DataArray,
  type DataType,
  type FillValue,
  type JsonValue,
  type NDArray,
  openArray,
  type Store,
} from "@zarr/core";
import { createArrayV2, parseV2DType } from "@zarr/v2-compat";
import type { V2Case } from "./v2-cases.js";
import type { V3Case } from "./v3-cases.js";
import { chunkPositions, sampleData, seedOf } from "./values.js";

/** Where a case's values are: a byte range of the blob, or JSON. */
export type ValuesRef = { off: number; len: number } | { json: JsonValue[] };

/** One array as written, for the peers. */
export interface Entry {
  format: 2 | 3;
  /** Path under its format's root. */
  path: string;
  group: string;
  shape: number[];
  /** v2: the dtype JSON; v3: the data type name. */
  dtype: JsonValue;
  /** "fixed" (stored-form bytes), "string", "bytes" (base64 JSON), "json" (json2 values). */
  repr: "fixed" | "string" | "bytes" | "json";
  expected: ValuesRef;
  /** The input values (when they may differ from `expected`: lossy filters). */
  input?: ValuesRef;
  /** Fill value: hex of its stored bytes (fixed), the JSON value (variable), or null (none). */
  fill: string | JsonValue | null;
  lossy: boolean;
  /** Written by the CLI (`create`/`copy`), with the command. */
  cli?: string;
  /** Free-form facts for the zarrita unsupported list (compressor id, filter ids, codec names...). */
  features: string[];
}

/** Collects the binary blob and the manifest. */
export class Recorder {
  readonly entries: Entry[] = [];
  /** Our own readback per entry path (format:path), for the JS-side peers. */
  readonly readback = new Map<string, NDArray>();
  #parts: Uint8Array[] = [];
  #size = 0;

  blob(bytes: Uint8Array): ValuesRef {
    const ref = { off: this.#size, len: bytes.length };
    this.#parts.push(bytes);
    this.#size += bytes.length;
    return ref;
  }

  save(blobPath: string, manifestPath: string): void {
    writeFileSync(blobPath, Buffer.concat(this.#parts));
    writeFileSync(manifestPath, JSON.stringify(this.entries));
  }
}

const toHex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
const toB64 = (b: Uint8Array) =>
  Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("base64");

/** How the values of `dt` travel to python. */
export function reprOf(dt: DataType): Entry["repr"] {
  if (dt.kind === "string") return "string";
  if (dt.kind === "bytes") return "bytes";
  if (dt.itemSize === null) return "json";
  return "fixed";
}

/** The values of `data` as python receives them. */
export function valuesRef(rec: Recorder, dt: DataType, data: DataArray): ValuesRef {
  const repr = reprOf(dt);
  if (repr === "fixed") return rec.blob(dt.toBytes!(data, true));
  if (repr === "bytes") return { json: (data as Uint8Array[]).map(toB64) };
  return { json: [...(data as JsonValue[])] };
}

/** The fill value as python receives it. */
export function fillRef(dt: DataType, fill: FillValue | null): Entry["fill"] {
  if (fill === null) return null;
  const repr = reprOf(dt);
  if (repr === "fixed") {
    const one = dt.allocate(1);
    dt.fill(one, fill, 0, 1);
    return toHex(dt.toBytes!(one, true));
  }
  if (repr === "bytes") return toB64(fill.value as Uint8Array);
  return fill.value as JsonValue;
}

/** True when two arrays of `dt` hold the same values (bit for bit for fixed-size types). */
export function sameData(dt: DataType, a: DataArray, b: DataArray): boolean {
  if (a.length !== b.length) return false;
  if (reprOf(dt) === "fixed")
    return Buffer.from(dt.toBytes!(a, true)).equals(Buffer.from(dt.toBytes!(b, true)));
  return (
    JSON.stringify(a, (_k, v) => (v instanceof Uint8Array ? toB64(v) : v)) ===
    JSON.stringify(b, (_k, v) => (v instanceof Uint8Array ? toB64(v) : v))
  );
}

const count = (shape: readonly number[]) => shape.reduce((x, y) => x * y, 1);

/** What a write did: the entry, or the error (a write failure is a test failure). */
export type WriteResult = { entry: Entry; problems: string[] } | { error: string };

/**
 * Writes data into an already created array `a` at `path`, reads it back through
 * a fresh open and records it. `fillMeaning` is the fill value the first chunk is
 * set to (null arrays: the default, which must still be stored).
 */
export async function fillAndRecord(
  rec: Recorder,
  store: Store,
  format: 2 | 3,
  path: string,
  a: { dataType: DataType; fillValue: FillValue; set: NDArrayWriter },
  meta: {
    group: string;
    dtype: JsonValue;
    shape: number[];
    chunks: number[];
    noFill: boolean;
    lossy: boolean;
    values?: V2Case["values"];
    features: string[];
    cli?: string;
  },
): Promise<{ entry: Entry; problems: string[] }> {
  const dt = a.dataType;
  const n = count(meta.shape);
  const firstChunk = meta.shape.map(() => 0);
  const fill = meta.noFill ? dt.defaultFillValue() : a.fillValue;
  const input = sampleData(dt, n, seedOf(`${format}:${path}`), {
    ...meta.values,
    fill,
    fillPositions: n > 0 ? chunkPositions(meta.shape, meta.chunks, firstChunk) : [],
  });
  await a.set(null, { data: input, shape: meta.shape });
  const back = await openArray(store, path);
  const got = await back.get();
  const problems: string[] = [];
  if (!meta.lossy && !sameData(dt, input, got.data))
    problems.push(`${format}:${path}: our own readback differs from what we wrote`);
  rec.readback.set(`${format}:${path}`, got);
  const entry: Entry = {
    format,
    path,
    group: meta.group,
    shape: meta.shape,
    dtype: meta.dtype,
    repr: reprOf(dt),
    expected: valuesRef(rec, dt, got.data),
    ...(meta.lossy ? { input: valuesRef(rec, dt, input) } : {}),
    fill: fillRef(dt, meta.noFill ? null : back.fillValue),
    lossy: meta.lossy,
    ...(meta.cli ? { cli: meta.cli } : {}),
    features: [...new Set([...meta.features, ...(await fillFeatures(store, path, format))])],
  };
  rec.entries.push(entry);
  return { entry, problems };
}

type NDArrayWriter = (sel: null, value: { data: DataArray; shape: number[] }) => Promise<unknown>;

/** Feature tags of a v2 case (for the zarrita unsupported list). */
export function v2Features(c: V2Case): string[] {
  const f: string[] = [`dtype:${typeof c.dtype === "string" ? c.dtype : "structured"}`];
  if (c.compressor) f.push(`compressor:${c.compressor.id}`);
  for (const x of c.filters ?? []) f.push(`filter:${x.id}`);
  f.push(`order:${c.order}`, `shape:${c.shape.length}d`);
  if (c.shape.includes(0)) f.push("shape:empty");
  return f;
}

/** Feature tags of the fill value as written in the metadata document (raw text, exact integers). */
export async function fillFeatures(store: Store, path: string, format: 2 | 3): Promise<string[]> {
  const bytes = await store.get(`${path}/${format === 2 ? ".zarray" : "zarr.json"}`);
  const text = bytes ? new TextDecoder().decode(bytes) : "";
  const m = /"fill_value":\s*(\[[^\]]*\]|"[^"]*"|[^,\s}]+)/.exec(text);
  const raw = m?.[1] ?? "";
  const tags: string[] = [];
  for (const n of raw.match(/-?\d+(?![.\deE])/g) ?? [])
    if (!raw.includes('"') && (BigInt(n) > 2n ** 53n || BigInt(n) < -(2n ** 53n)))
      tags.push("fill:beyond-2^53");
  if (/"0x/i.test(raw)) tags.push("fill:hex");
  if (raw === "null") tags.push("fill:null");
  return [...new Set(tags)];
}

/** True when the `.zarray` at `path` has `"fill_value": null` (no fill value). */
export async function v2FillIsNull(store: Store, path: string): Promise<boolean> {
  const bytes = await store.get(`${path}/.zarray`);
  if (!bytes) throw new Error(`${path}/.zarray was not written`);
  return (
    (JSON.parse(new TextDecoder().decode(bytes)) as { fill_value: unknown }).fill_value === null
  );
}

/** Writes one v2 case with createArrayV2. */
export async function writeV2(rec: Recorder, store: Store, c: V2Case): Promise<WriteResult> {
  try {
    const a = await createArrayV2(store, c.name, {
      shape: c.shape,
      chunks: c.chunks,
      dtype: c.dtype,
      compressor: c.compressor,
      filters: c.filters,
      order: c.order,
      dimensionSeparator: c.sep,
      fillValue: c.fill,
      attributes: { case: c.name },
    });
    return await fillAndRecord(rec, store, 2, c.name, a as never, {
      group: c.group,
      dtype: parseV2DType(c.dtype, "dtype").json,
      shape: c.shape,
      chunks: c.chunks,
      noFill: await v2FillIsNull(store, c.name),
      lossy: c.lossy ?? false,
      values: c.values,
      features: v2Features(c),
    });
  } catch (e) {
    return { error: `2:${c.name}: ${(e as Error).stack ?? e}` };
  }
}

/** Feature tags of a v3 layout. */
export function v3Features(
  dataType: string,
  codecs: JsonValue[],
  keyEncoding?: string,
  shape: number[] = [],
): string[] {
  const f = [
    `dtype:${dataType}`,
    `shape:${shape.length}d`,
    ...(shape.includes(0) ? ["shape:empty"] : []),
  ];
  if (keyEncoding) f.push(`key:${keyEncoding}`);
  const walk = (list: JsonValue[]) => {
    let sharded = false;
    for (const c of list) {
      if (sharded) f.push("after-sharding");
      const o = c as {
        name: string;
        configuration?: {
          codecs?: JsonValue[];
          index_location?: string;
          endian?: string;
          shuffle?: string;
        };
      };
      f.push(`codec:${o.name}`);
      if (o.name === "sharding_indexed") {
        sharded = true;
        f.push(`shard-index:${o.configuration?.index_location ?? "end"}`);
        walk(o.configuration?.codecs ?? []);
      }
      if (o.configuration?.endian) f.push(`endian:${o.configuration.endian}`);
    }
  };
  walk(codecs);
  return [...new Set(f)];
}

/** Writes one v3 case with core's createArray. */
export async function writeV3(rec: Recorder, store: Store, c: V3Case): Promise<WriteResult> {
  try {
    const a = await createArray(store, c.name, {
      shape: c.shape,
      dataType: c.dataType,
      chunkShape: c.chunks,
      codecs: c.codecs,
      chunkKeyEncoding: c.keyEncoding,
      fillValue: c.fill,
      attributes: { case: c.name },
    });
    return await fillAndRecord(rec, store, 3, c.name, a as never, {
      group: c.group,
      dtype: c.dataType,
      shape: c.shape,
      chunks: c.chunks,
      noFill: false,
      lossy: false,
      features: v3Features(
        c.dataType,
        c.codecs,
        `${c.keyEncoding.name}${c.keyEncoding.configuration.separator}`,
        c.shape,
      ),
    });
  } catch (e) {
    return { error: `3:${c.name}: ${(e as Error).stack ?? e}` };
  }
}

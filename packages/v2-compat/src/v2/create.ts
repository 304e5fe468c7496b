/**
 * Creating v2 arrays and groups (v2 spec "Groups": creating a node creates
 * groups at every ancestor path that has none).
 *
 * @module
 */
import {
  type AnyStore,
  ContainsNodeError,
  type Group,
  type JsonObject,
  type JsonValue,
  type Store,
  UnsupportedError,
  ValueError,
  type ZarrArray,
} from "@zarr/core";
import { metadataRead } from "@zarr/core/codec";
import { childKey, nodePrefix, parentPath, parseJson, showJson } from "@zarr/core/internal";
import { resolveStore } from "@zarr/core/store";
import { numcodecsConfig } from "../codecs/numcodecs-keys.js";
import { parseV2DType } from "../dtypes/typestr.js";
import { writeV2Json } from "../util/json.js";
import { dropConsolidated } from "./consolidated-cache.js";
import { v2FillValueJson } from "./fill-value.js";
import { arrayFromZArray, openV2 } from "./format.js";
import { normalizeV2Path } from "./paths.js";
import { validateZArray, type ZArray } from "./zarray.js";

/** Options of {@link createArrayV2}. */
export interface CreateArrayV2Options {
  shape: readonly number[];
  /** Chunk shape (default: the whole array, at least 1 per dimension). */
  chunks?: readonly number[];
  /** A numpy typestr (`"<f8"`, `"|S12"`, `"<M8[ns]"`, `"|O"`), a structured list, or a v3 numeric name (`"int32"`). */
  dtype: JsonValue;
  /** The compressor configuration (`{id: "blosc", ...}`) or `null` (default `null`). */
  compressor?: JsonObject | null;
  /** Filter configurations (`[{id: "delta", dtype: "<i4"}]`); object arrays need an object codec here. */
  filters?: JsonObject[] | null;
  /** Fill value as a JS scalar (`1.5`, `"abc"`, `123n`), its v2 JSON form (`"NaN"`), or `null` (none). Default zero. */
  fillValue?: unknown;
  /** "C" (default) or "F". */
  order?: "C" | "F";
  /** "." (default) or "/". */
  dimensionSeparator?: "." | "/";
  attributes?: JsonObject;
  /** Replace an existing node at the path. Default false. */
  overwrite?: boolean;
}

/** Options of {@link createGroupV2}. */
export interface CreateGroupV2Options {
  attributes?: JsonObject;
  overwrite?: boolean;
}

async function hasNode(store: Store, path: string): Promise<"array" | "group" | undefined> {
  if (await store.has(childKey(path, ".zarray"))) return "array";
  if (await store.has(childKey(path, ".zgroup"))) return "group";
  // A v3 node is a node too: a v2 array inside a v3 group gets no `.zgroup` beside
  // the group's zarr.json.
  const v3 = await store.get(childKey(path, "zarr.json"), undefined, metadataRead());
  if (v3 !== undefined) {
    const doc = parseJson(v3, childKey(path, "zarr.json"));
    return (doc as JsonObject | null)?.node_type === "array" ? "array" : "group";
  }
  return undefined;
}

async function prepare(store: Store, path: string, overwrite: boolean): Promise<void> {
  dropConsolidated(store);
  if (await hasNode(store, path)) {
    if (!overwrite) {
      throw new ContainsNodeError(
        `a node already exists at "${path || "/"}" (pass overwrite: true to replace it)`,
        { path },
      );
    }
    if (path === "") {
      for (const k of [".zarray", ".zgroup", ".zattrs"]) await store.erase(k);
    }
    await store.erasePrefix(nodePrefix(path));
  }
  const missing: string[] = [];
  for (let p = parentPath(path); p !== undefined; p = parentPath(p)) {
    const kind = await hasNode(store, p);
    if (kind === "array") {
      throw new ContainsNodeError(
        `cannot create "${path}": its ancestor "${p || "/"}" is an array`,
        { path },
      );
    }
    if (kind === "group") break;
    missing.push(p);
  }
  for (const p of missing.reverse())
    await store.set(childKey(p, ".zgroup"), writeV2Json({ zarr_format: 2 }));
}

function fillJson(dtype: JsonValue, value: unknown, path: string): JsonValue {
  const parsed = parseV2DType(dtype, `${path}: dtype`);
  if (value === null) return null;
  if (parsed.object) return value === undefined ? (null as JsonValue) : (value as JsonValue);
  const dt = parsed.dataType;
  if (value === undefined) return v2FillValueJson(dt, dt.defaultFillValue());
  const jsonForm =
    (typeof value === "string" &&
      (dt.kind === "float" || dt.kind === "complex" || dt.name === "structured")) ||
    (Array.isArray(value) && value.some((v) => typeof v === "string"));
  const fill = jsonForm
    ? dt.parseFillValue(value as JsonValue, `${path}: fill_value`)
    : dt.fromScalar(value, `${path}: fill_value`);
  return v2FillValueJson(dt, fill);
}

/**
 * An `lzma` compressor with its FILTER_LZMA1 ids exact: 0x4000000000000001 is
 * 2^62 as a JS number, and Python's lzma rejects that id.
 */
function exactLzmaFilterIds(compressor: JsonObject): JsonObject {
  if (compressor.id !== "lzma" || !Array.isArray(compressor.filters)) return compressor;
  return {
    ...compressor,
    filters: compressor.filters.map((f) =>
      typeof f === "object" && f !== null && !Array.isArray(f) && f.id === 2 ** 62
        ? { ...f, id: 0x4000000000000001n }
        : f,
    ),
  };
}

/** The `.zarray` document for `options` (validated, keys as zarr-python writes them). */
export function zarrayFor(path: string, options: CreateArrayV2Options): ZArray {
  const shape = [...options.shape];
  const doc = childKey(path, ".zarray");
  if (shape.some((n) => !Number.isSafeInteger(n) || n < 0)) {
    throw new ValueError(
      `${doc}: shape must be non-negative integers, got ${showJson(options.shape as JsonValue)}`,
      { path },
    );
  }
  const dtype = parseV2DType(options.dtype, `${doc}: dtype`).json;
  // numpy stores no datetime without a unit: zarr-python cannot open "<M8" (it reads it).
  if (typeof dtype === "string" && /^[<>|]?[mM]8$/.test(dtype)) {
    throw new ValueError(
      `${doc}: dtype ${JSON.stringify(dtype)} has no time unit, which zarr-python cannot read; give one, e.g. "${dtype}[s]"`,
      { path },
    );
  }
  // numcodecs < 0.13 rejects the key, so v2 metadata cannot record it: refused, not dropped.
  if (options.compressor?.id === "zstd" && options.compressor.checksum === true) {
    throw new UnsupportedError(
      `${doc}: compressor zstd with checksum: true cannot be recorded in v2 metadata that numcodecs before 0.13 reads; use a v3 array (zstd checksum, or crc32c)`,
      { path },
    );
  }
  const json: JsonObject = {
    chunks: [...(options.chunks ?? shape.map((n) => Math.max(n, 1)))],
    compressor: options.compressor ? numcodecsConfig(exactLzmaFilterIds(options.compressor)) : null,
    dimension_separator: options.dimensionSeparator ?? ".",
    dtype,
    fill_value: fillJson(dtype, options.fillValue, doc),
    filters:
      options.filters && options.filters.length > 0 ? options.filters.map(numcodecsConfig) : null,
    order: options.order ?? "C",
    shape,
    zarr_format: 2,
  };
  return validateZArray(json, doc);
}

/**
 * Creates a v2 array at `path` (`.zarray`, and `.zattrs` when attributes are
 * given), with `.zgroup` at every ancestor that has no node. The codec chain is
 * built before anything is written, so a bad configuration leaves the store as it was.
 */
export async function createArrayV2(
  store: AnyStore | Store,
  path: string,
  options: CreateArrayV2Options,
): Promise<ZarrArray> {
  const s = resolveStore(store);
  const p = normalizeV2Path(path);
  const z = zarrayFor(p, options);
  const attributes = { ...(options.attributes ?? {}) };
  const array = await arrayFromZArray(s, p, z, attributes);
  await prepare(s, p, options.overwrite ?? false);
  await s.set(childKey(p, ".zarray"), writeV2Json(z as JsonObject));
  if (options.attributes) await s.set(childKey(p, ".zattrs"), writeV2Json(attributes));
  return array;
}

/** Creates a v2 group at `path` (`.zgroup`), with groups at every ancestor that has no node. */
export async function createGroupV2(
  store: AnyStore | Store,
  path = "",
  options: CreateGroupV2Options = {},
): Promise<Group> {
  const s = resolveStore(store);
  const p = normalizeV2Path(path);
  await prepare(s, p, options.overwrite ?? false);
  await s.set(childKey(p, ".zgroup"), writeV2Json({ zarr_format: 2 }));
  if (options.attributes) await s.set(childKey(p, ".zattrs"), writeV2Json(options.attributes));
  return (await openV2(s, p)) as Group;
}

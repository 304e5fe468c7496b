/**
 * The v2 array metadata document `.zarray` (v2 spec "Arrays / Metadata"):
 * validation, and the v3-form description core builds arrays from.
 *
 * @module
 */
import {
  type DataType,
  type FillValue,
  type JsonObject,
  type JsonValue,
  MetadataError,
  UnsupportedError,
} from "@zarr/core";
import { bytes as bytesType, showJson, string as stringType } from "@zarr/core/internal";
import { jsonObject } from "../dtypes/object.js";
import { parseV2DType, type V2DType } from "../dtypes/typestr.js";
import { parseV2FillValue } from "./fill-value.js";

/** A validated `.zarray` document. */
export interface ZArray {
  zarr_format: 2;
  shape: number[];
  chunks: number[];
  dtype: JsonValue;
  compressor: JsonObject | null;
  fill_value: JsonValue;
  order: "C" | "F";
  filters: JsonObject[] | null;
  dimension_separator?: "." | "/";
  /** Unknown members, kept so that rewriting the document preserves them. */
  [extra: string]: JsonValue | undefined;
}

function fail(doc: string, field: string, why: string): MetadataError {
  return new MetadataError(`${doc}: ${field}: ${why}`, { path: doc });
}

function intList(value: JsonValue | undefined, doc: string, field: string, min: number): number[] {
  if (!Array.isArray(value)) throw fail(doc, field, "must be a list of integers");
  return value.map((v, i) => {
    const n = typeof v === "bigint" ? Number(v) : v;
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < min) {
      throw fail(doc, `${field}[${i}]`, `must be an integer >= ${min}, got ${String(v)}`);
    }
    return n;
  });
}

function codecConfig(value: JsonValue, doc: string, field: string): JsonObject {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw fail(doc, field, "must be an object");
  if (typeof value.id !== "string" || value.id === "")
    throw fail(doc, field, 'must have a string "id"');
  return value;
}

/** Validates a parsed `.zarray` (`doc` is its key, for errors). */
export function validateZArray(json: JsonObject, doc: string, format: 1 | 2 = 2): ZArray {
  if (json.zarr_format !== format)
    throw fail(doc, "zarr_format", `must be ${format}, got ${String(json.zarr_format)}`);
  for (const key of ["shape", "chunks", "dtype", "compressor", "fill_value", "order", "filters"]) {
    if (!(key in json)) throw fail(doc, key, "is required");
  }
  const shape = intList(json.shape, doc, "shape", 0);
  const chunks = intList(json.chunks, doc, "chunks", 1);
  if (chunks.length !== shape.length) {
    throw fail(doc, "chunks", `has ${chunks.length} dimensions, shape has ${shape.length}`);
  }
  if (json.order !== "C" && json.order !== "F")
    throw fail(doc, "order", `must be "C" or "F", got ${showJson(json.order as JsonValue)}`);
  const compressor =
    json.compressor === null ? null : codecConfig(json.compressor, doc, "compressor");
  let filters: JsonObject[] | null = null;
  if (json.filters !== null) {
    if (!Array.isArray(json.filters)) throw fail(doc, "filters", "must be a list or null");
    filters = json.filters.map((f, i) => codecConfig(f, doc, `filters[${i}]`));
  }
  const sep = json.dimension_separator;
  if (sep !== undefined && sep !== null && sep !== "." && sep !== "/") {
    throw fail(doc, "dimension_separator", `must be "." or "/", got ${showJson(sep as JsonValue)}`);
  }
  const out: ZArray = {
    ...json,
    zarr_format: 2,
    shape,
    chunks,
    dtype: json.dtype,
    compressor,
    fill_value: json.fill_value,
    order: json.order,
    filters,
  };
  if (sep === null) delete out.dimension_separator;
  return out;
}

/** Ids of numcodecs codecs that turn an object array into bytes, and the element type each gives. */
const OBJECT_CODECS: Record<string, DataType> = {
  "vlen-utf8": stringType,
  "vlen-bytes": bytesType,
  json2: jsonObject,
};

/** The v3-form description of a v2 array. */
export interface V3Form {
  dtype: V2DType;
  dataType: DataType;
  fillValue: FillValue;
  /** True when the v2 `fill_value` is null. */
  nullFill: boolean;
  /** v3 codec entries (names are numcodecs ids; configurations as in v2). */
  codecs: JsonObject[];
}

/** Codec kinds, needed to place the `bytes` codec among v2 filters. */
export type KindOf = (
  id: string,
) => Promise<"array_to_array" | "array_to_bytes" | "bytes_to_bytes">;

function configOf(entry: JsonObject): JsonObject {
  const { id: _id, ...rest } = entry;
  return rest;
}

/**
 * Refuses a filter whose input dtype (`dtype`, or `decode_dtype` for `astype`)
 * has another byte order than its input: numcodecs reinterprets the chunk's
 * bytes in the filter's dtype (`.view(dtype)`, a byte swap of every value),
 * which these filters, working on values, do not reproduce. Refused rather
 * than read or written with other values than zarr-python's.
 */
function checkInputEndian(
  entry: JsonObject,
  current: "little" | "big" | undefined,
  where: string,
): void {
  const input = entry.dtype ?? entry.decode_dtype;
  if (input === undefined || current === undefined) return;
  const endian = parseV2DType(input, `${where} (${String(entry.id)}).dtype`).endian;
  if (endian !== undefined && endian !== current) {
    throw new UnsupportedError(
      `${where}: filter "${String(entry.id)}" has dtype ${JSON.stringify(input)} (${endian}-endian) but its input is ${current}-endian: numcodecs would reinterpret the bytes (swap every value), which is not supported; use a dtype of the input's byte order`,
      { path: where },
    );
  }
}

/** The byte order a filter's output has, from its `astype`/`encode_dtype`. */
function outputEndian(
  entry: JsonObject,
  current: "little" | "big" | undefined,
  doc: string,
): "little" | "big" | undefined {
  const t = entry.astype ?? entry.encode_dtype;
  if (t === undefined) return entry.id === "packbits" ? undefined : current;
  return parseV2DType(t, `${doc}: filters (${String(entry.id)}).astype`).endian;
}

/** v2 compressors that encode the chunk's values as little-endian numbers of its dtype. */
const NUMERIC_COMPRESSORS: ReadonlySet<string> = new Set(["zfpy", "pcodec"]);

/**
 * The v3-form codec chain of a v2 array: `transpose` (reversed axes) for order
 * F, the filters, an array -> bytes codec (`bytes` with the dtype's byte order,
 * or the object codec), then the compressor.
 */
export async function v3Form(z: ZArray, doc: string, kindOf: KindOf): Promise<V3Form> {
  const dtype = parseV2DType(z.dtype, `${doc}: dtype`);
  const filters = z.filters ?? [];
  let dataType = dtype.dataType;
  if (dtype.object) {
    const objectCodec = filters.find((f) => OBJECT_CODECS[f.id as string]);
    if (objectCodec) dataType = OBJECT_CODECS[objectCodec.id as string];
    else if (filters[0]?.id === "categorize") dataType = stringType;
    else if (
      filters.some((f) => f.id === "vlen-array" || f.id === "msgpack2" || f.id === "pickle")
    ) {
      const id = filters.find(
        (f) => f.id === "vlen-array" || f.id === "msgpack2" || f.id === "pickle",
      )!.id as string;
      throw new MetadataError(
        `${doc}: filters: object codec "${id}" is not supported (vlen-utf8, vlen-bytes and json2 are)`,
        { path: doc },
      );
    } else {
      throw new MetadataError(
        `${doc}: dtype "|O" needs an object codec (vlen-utf8, vlen-bytes or json2) in filters`,
        { path: doc },
      );
    }
  }
  const codecs: JsonObject[] = [];
  const ndim = z.shape.length;
  if (z.order === "F" && ndim > 1) {
    codecs.push({
      name: "transpose",
      configuration: { order: Array.from({ length: ndim }, (_, i) => ndim - 1 - i) },
    });
  }
  let endian = dtype.endian;
  let serialized = false;
  for (let i = 0; i < filters.length; i++) {
    const f = filters[i];
    const id = f.id as string;
    const kind = await kindOf(id);
    if (kind === "array_to_array") {
      if (serialized) {
        throw new MetadataError(
          `${doc}: filters[${i}]: array filter "${id}" after a bytes-level filter is not supported`,
          { path: doc },
        );
      }
      checkInputEndian(f, endian, `${doc}: filters[${i}]`);
      codecs.push({ name: id, configuration: configOf(f) });
      endian = outputEndian(f, endian, doc);
      continue;
    }
    if (kind === "array_to_bytes") {
      if (serialized)
        throw new MetadataError(`${doc}: filters[${i}]: a second object codec "${id}"`, {
          path: doc,
        });
      codecs.push({ name: id, configuration: configOf(f) });
      serialized = true;
      continue;
    }
    if (!serialized) {
      codecs.push({ name: "bytes", configuration: { endian: endian ?? "little" } });
      serialized = true;
    }
    codecs.push({ name: id, configuration: configOf(f) });
  }
  if (!serialized) codecs.push({ name: "bytes", configuration: { endian: endian ?? "little" } });
  if (z.compressor) {
    const id = z.compressor.id as string;
    // These read the bytes as little-endian numbers of the dtype: big-endian
    // bytes would encode and decode as other values (numcodecs refuses them too).
    if (NUMERIC_COMPRESSORS.has(id) && endian === "big" && !dtype.object) {
      throw new MetadataError(
        `${doc}: compressor "${id}" with the big-endian dtype "${z.dtype}" is not supported (numcodecs cannot write it either)`,
        { path: doc },
      );
    }
    codecs.push({ name: id, configuration: configOf(z.compressor) });
  }
  const nullFill = z.fill_value === null;
  const fillValue = parseV2FillValue(dataType, z.fill_value, `${doc}: fill_value`, dtype.object);
  return { dtype, dataType, fillValue, nullFill, codecs };
}

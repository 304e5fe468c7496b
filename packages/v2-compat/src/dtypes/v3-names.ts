/**
 * The v3 names of the v2-only data types, registered with core's data type
 * registry so that arrays converted to v3 (and zarr-python 3 data) open:
 * `numpy.datetime64` / `numpy.timedelta64` `{unit, scale_factor}`,
 * `null_terminated_bytes` `{length_bytes}`, `fixed_length_utf32`
 * `{length_bytes}` and `structured` `{fields}` (v2 descr form).
 *
 * @module
 */
import { type DataType, type JsonValue, MetadataError } from "@zarr/core";
import type { DataTypeResolver } from "@zarr/core/internal";
import { DateTimeDataType } from "./datetime.js";
import { FixedBytesDataType } from "./fixed-bytes.js";
import { FixedUnicodeDataType } from "./fixed-unicode.js";
import { parseV2DType } from "./typestr.js";

type Resolving = DataType & DataTypeResolver;

function configOf(json: JsonValue): Record<string, JsonValue> | undefined {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return undefined;
  const c = json.configuration;
  return typeof c === "object" && c !== null && !Array.isArray(c) ? c : undefined;
}

function lengthBytes(
  json: JsonValue,
  path: string,
  name: string,
  multiple: number,
): number | undefined {
  const c = configOf(json);
  if (!c) return undefined;
  const n = c.length_bytes;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1 || n % multiple !== 0) {
    throw new MetadataError(
      `${path}: ${name}: configuration.length_bytes must be a positive multiple of ${multiple}`,
      { path },
    );
  }
  return n;
}

/** `null_terminated_bytes`. */
export const nullTerminatedBytesType: Resolving = Object.assign(new FixedBytesDataType("S", 1), {
  resolve(json: JsonValue, path: string) {
    const n = lengthBytes(json, path, "null_terminated_bytes", 1);
    return n === undefined ? undefined : parseV2DType(`|S${n}`, path).dataType;
  },
});

/** `fixed_length_utf32`. */
export const fixedLengthUtf32Type: Resolving = Object.assign(new FixedUnicodeDataType(1), {
  resolve(json: JsonValue, path: string) {
    const n = lengthBytes(json, path, "fixed_length_utf32", 4);
    return n === undefined ? undefined : parseV2DType(`<U${n / 4}`, path).dataType;
  },
});

/** `structured` with the v2 field list as `configuration.fields`. */
export const structuredType: Resolving = Object.assign(new FixedBytesDataType("V", 1), {
  name: "structured",
  resolve(json: JsonValue, path: string) {
    const fields = configOf(json)?.fields;
    if (!Array.isArray(fields))
      throw new MetadataError(`${path}: structured: configuration.fields must be a list`, { path });
    return parseV2DType(fields, `${path}: configuration.fields`).dataType;
  },
});

/** `numpy.datetime64`. */
export const datetime64Type: Resolving = DateTimeDataType.resolver("M");
/** `numpy.timedelta64`. */
export const timedelta64Type: Resolving = DateTimeDataType.resolver("m");

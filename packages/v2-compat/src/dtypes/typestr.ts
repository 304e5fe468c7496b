/**
 * Parsing and writing v2 `dtype` values (v2 spec "Data type encoding"): numpy
 * typestrs with byte order (`<i4`, `>f8`, `|b1`, `<M8[ns]`, `|S12`, `<U7`,
 * `|V8`, `|O`) and structured descriptions (lists of `[name, type, shape?]`,
 * nested). Numeric types map to core's data types with the byte order kept
 * apart (it becomes the `bytes` codec's `endian`); the others map to this
 * package's data types.
 *
 * @module
 */
import { type DataType, type JsonValue, MetadataError } from "@zarr/core";
import {
  bool,
  complex64,
  complex128,
  float16,
  float32,
  float64,
  int8,
  int16,
  int32,
  int64,
  showJson,
  uint8,
  uint16,
  uint32,
  uint64,
} from "@zarr/core/internal";
import { DateTimeDataType, TIME_UNITS } from "./datetime.js";
import { FixedBytesDataType, MAX_FIXED_BYTES } from "./fixed-bytes.js";
import { FixedUnicodeDataType, MAX_UNICODE_LENGTH } from "./fixed-unicode.js";
import { type StructField, StructuredDataType } from "./structured.js";

/** A parsed v2 dtype. */
export interface V2DType {
  /** The in-memory data type (for `|O`, a placeholder until the object codec decides). */
  readonly dataType: DataType;
  /** Byte order of multi-byte elements (`undefined` when it does not apply). */
  readonly endian: "little" | "big" | undefined;
  /** True for `|O` (object arrays: the element type comes from the object codec). */
  readonly object: boolean;
  /** The normalized v2 `dtype` JSON (`<i4`, not `i4`). */
  readonly json: JsonValue;
}

const NUMERIC: Record<string, DataType> = {
  b1: bool,
  i1: int8,
  i2: int16,
  i4: int32,
  i8: int64,
  u1: uint8,
  u2: uint16,
  u4: uint32,
  u8: uint64,
  f2: float16,
  f4: float32,
  f8: float64,
  c8: complex64,
  c16: complex128,
};

/** v3 names and numpy names (`int32`, `float64`) accepted where numcodecs takes a dtype. */
const NAMED: Record<string, string> = {
  bool: "|b1",
  int8: "|i1",
  int16: "<i2",
  int32: "<i4",
  int64: "<i8",
  uint8: "|u1",
  uint16: "<u2",
  uint32: "<u4",
  uint64: "<u8",
  float16: "<f2",
  float32: "<f4",
  float64: "<f8",
  complex64: "<c8",
  complex128: "<c16",
};

const TYPESTR = /^([<>|=]?)([biufcmMSUVO])(\d*)(?:\[(\d*)([A-Za-zμ]+)\])?$/;

/** Largest structured nesting depth accepted. */
const MAX_DEPTH = 16;

/**
 * Parses a v2 `dtype` (typestr or structured list). Also accepts v3 names
 * (`"int32"`), as numcodecs filter configurations written by zarr-python 3 use
 * them. Throws `MetadataError` naming `path` when the value is not a valid dtype.
 */
export function parseV2DType(json: JsonValue, path: string, depth = 0): V2DType {
  if (typeof json === "string") return parseTypestr(json, path);
  if (Array.isArray(json)) return parseStructured(json, path, depth);
  throw new MetadataError(
    `${path}: dtype must be a typestr or a list of fields, got ${showJson(json as JsonValue)}`,
    { path },
  );
}

function parseTypestr(text: string, path: string): V2DType {
  const named = NAMED[text];
  if (named) return parseTypestr(named, path);
  const m = TYPESTR.exec(text);
  const bad = (why: string) =>
    new MetadataError(`${path}: invalid dtype "${text}": ${why}`, { path });
  if (!m) throw bad("not a numpy typestr");
  const [, order, code, sizeText, scaleText, unit] = m;
  const size = sizeText === "" ? undefined : Number(sizeText);
  const little = order !== ">";
  if (code === "O") {
    if (size !== undefined && size !== 8) throw bad("object arrays have no size");
    return { dataType: float64, endian: undefined, object: true, json: "|O" };
  }
  if (code === "M" || code === "m") {
    if (size !== 8) throw bad("datetime64/timedelta64 are 8 bytes");
    const u = unit ?? "generic";
    if (!(TIME_UNITS as readonly string[]).includes(u)) throw bad(`unknown time unit "${u}"`);
    const scale = scaleText ? Number(scaleText) : 1;
    if (!Number.isSafeInteger(scale) || scale < 1) throw bad("bad unit multiplier");
    const dt = new DateTimeDataType(code, u, scale);
    return {
      dataType: dt,
      endian: little ? "little" : "big",
      object: false,
      json: `${little ? "<" : ">"}${dt.typestrBody}`,
    };
  }
  if (unit !== undefined) throw bad("only M8/m8 take a unit");
  if (code === "S" || code === "V") {
    if (size === undefined || size < 1 || size > MAX_FIXED_BYTES)
      throw bad(`size must be 1..${MAX_FIXED_BYTES}`);
    return {
      dataType: new FixedBytesDataType(code, size),
      endian: undefined,
      object: false,
      json: `|${code}${size}`,
    };
  }
  if (code === "U") {
    if (size === undefined || size < 1 || size > MAX_UNICODE_LENGTH)
      throw bad(`length must be 1..${MAX_UNICODE_LENGTH}`);
    return {
      dataType: new FixedUnicodeDataType(size),
      endian: little ? "little" : "big",
      object: false,
      json: `${little ? "<" : ">"}U${size}`,
    };
  }
  const dt = NUMERIC[`${code}${size ?? ""}`];
  if (!dt) throw bad(`no ${code} type of ${size ?? "unspecified"} bytes`);
  const single = dt.itemSize === 1;
  return {
    dataType: dt,
    endian: single ? undefined : little ? "little" : "big",
    object: false,
    json: `${single ? "|" : little ? "<" : ">"}${code}${size}`,
  };
}

function parseStructured(list: JsonValue[], path: string, depth: number): V2DType {
  if (depth > MAX_DEPTH)
    throw new MetadataError(`${path}: structured dtype nested deeper than ${MAX_DEPTH}`, { path });
  if (list.length === 0)
    throw new MetadataError(`${path}: a structured dtype needs at least one field`, { path });
  const fields: StructField[] = [];
  const descr: JsonValue[] = [];
  const names = new Set<string>();
  let offset = 0;
  list.forEach((entry, i) => {
    const at = `${path}[${i}]`;
    if (
      !Array.isArray(entry) ||
      entry.length < 2 ||
      entry.length > 3 ||
      typeof entry[0] !== "string"
    ) {
      throw new MetadataError(
        `${at}: a structured field must be [name, type] or [name, type, shape]`,
        { path: at },
      );
    }
    const name = entry[0];
    if (name !== "" && names.has(name))
      throw new MetadataError(`${at}: duplicate field name "${name}"`, { path: at });
    names.add(name);
    const inner = parseV2DType(entry[1], `${at}[1]`, depth + 1);
    if (inner.object)
      throw new MetadataError(`${at}: object fields are not supported in structured dtypes`, {
        path: at,
      });
    let shape: number[] = [];
    if (entry.length === 3) {
      const s = entry[2];
      if (
        !Array.isArray(s) ||
        s.some((n) => typeof n !== "number" || !Number.isSafeInteger(n) || n < 0)
      ) {
        throw new MetadataError(`${at}: subarray shape must be a list of non-negative integers`, {
          path: at,
        });
      }
      shape = s as number[];
    }
    const count = shape.reduce((a, b) => a * b, 1);
    const itemSize = inner.dataType.itemSize ?? 0;
    const size = itemSize * count;
    fields.push({
      name,
      dataType: inner.dataType,
      littleEndian: inner.endian !== "big",
      shape,
      offset,
      size,
    });
    descr.push(shape.length ? [name, inner.json, shape] : [name, inner.json]);
    offset += size;
    if (offset > MAX_FIXED_BYTES)
      throw new MetadataError(`${path}: structured item size exceeds ${MAX_FIXED_BYTES} bytes`, {
        path,
      });
  });
  if (offset === 0) throw new MetadataError(`${path}: structured dtype of 0 bytes`, { path });
  return {
    dataType: new StructuredDataType(fields, descr, offset),
    endian: undefined,
    object: false,
    json: descr,
  };
}

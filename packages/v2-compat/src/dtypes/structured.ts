/**
 * numpy structured data types (v2 spec "Data type encoding": a list of
 * `[name, type, shape?]`, types simple or nested lists). In memory each record
 * is its stored bytes (a `Uint8Array` of width `itemSize`, every field in its
 * own declared byte order), so the `bytes` codec copies records as they are.
 * `getScalar` decodes a record into an object keyed by field name (subarray
 * fields as nested arrays, nested structs as objects); padding fields named ""
 * are skipped.
 *
 * @module
 */
import {
  type DataArray,
  type DataType,
  type FillValue,
  type JsonValue,
  MetadataError,
  type Scalar,
  ValueError,
} from "@zarr/core";
import { FixedSizeDataType, showJson } from "@zarr/core/internal";
import { decodeBase64, encodeBase64 } from "../util/base64.js";
import { hasJsonValue, type JsonValueDataType } from "./json-value.js";

/** One field of a structured type. */
export interface StructField {
  readonly name: string;
  /** Element type of the field (may itself be structured). */
  readonly dataType: DataType;
  /** Byte order of multi-byte elements. */
  readonly littleEndian: boolean;
  /** Subarray shape (`[]` for a scalar field). */
  readonly shape: readonly number[];
  /** Byte offset within the record. */
  readonly offset: number;
  /** Bytes the field occupies. */
  readonly size: number;
}

/** A decoded record value: field name -> value. */
export type StructValue = { [field: string]: unknown };

function product(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/** A numpy structured type. */
export class StructuredDataType extends FixedSizeDataType<Uint8Array> implements JsonValueDataType {
  readonly kind = "other";
  readonly name = "structured";

  constructor(
    readonly fields: readonly StructField[],
    /** The v2 `dtype` list this type was parsed from (normalized). */
    readonly descr: JsonValue[],
    itemSize: number,
  ) {
    super(itemSize, itemSize, Uint8Array);
  }

  override toJSON(): JsonValue {
    return { name: this.name, configuration: { fields: this.descr } };
  }

  /** Decodes the record bytes `rec` into an object. */
  decodeRecord(rec: Uint8Array): StructValue {
    const out: StructValue = {};
    for (const f of this.fields) {
      if (f.name === "") continue;
      const count = product(f.shape);
      const bytes = rec.slice(f.offset, f.offset + f.size);
      const arr = f.dataType.fromBytes!(bytes, count, f.littleEndian);
      const values: unknown[] = [];
      for (let i = 0; i < count; i++) values.push(f.dataType.getScalar(arr, i));
      out[f.name] = f.shape.length === 0 ? values[0] : nest(values, f.shape);
    }
    return out;
  }

  /** Encodes an object with one entry per named field into record bytes. */
  encodeRecord(value: unknown, path: string): Uint8Array {
    if (
      typeof value !== "object" ||
      value === null ||
      Array.isArray(value) ||
      value instanceof Uint8Array
    ) {
      throw new ValueError(
        `${path}: expected an object with the fields ${this.fieldNames()} for a structured type`,
        { path },
      );
    }
    const rec = new Uint8Array(this.itemSize);
    const obj = value as Record<string, unknown>;
    for (const f of this.fields) {
      if (f.name === "") continue;
      if (!(f.name in obj)) throw new ValueError(`${path}: field "${f.name}" is missing`, { path });
      const count = product(f.shape);
      const flat =
        f.shape.length === 0 ? [obj[f.name]] : flatten(obj[f.name], f.shape, `${path}.${f.name}`);
      const arr = f.dataType.allocate(count);
      for (let i = 0; i < count; i++) {
        const fv =
          f.dataType instanceof StructuredDataType
            ? { value: 0, bits: f.dataType.encodeRecord(flat[i], `${path}.${f.name}`) }
            : f.dataType.fromScalar(flat[i], `${path}.${f.name}`);
        f.dataType.fill(arr, fv, i, i + 1);
      }
      rec.set(f.dataType.toBytes!(arr, f.littleEndian), f.offset);
    }
    return rec;
  }

  fieldNames(): string {
    return this.fields
      .filter((f) => f.name !== "")
      .map((f) => f.name)
      .join(", ");
  }

  /** Base64 of the record bytes (v2), or an array of byte values. */
  parseFillValue(json: JsonValue, path: string): FillValue {
    let bytes: Uint8Array | undefined;
    if (typeof json === "string") bytes = decodeBase64(json);
    else if (
      Array.isArray(json) &&
      json.every((b) => typeof b === "number" && Number.isInteger(b) && b >= 0 && b <= 255)
    ) {
      bytes = Uint8Array.from(json as number[]);
    }
    if (bytes === undefined || bytes.length !== this.itemSize) {
      throw new MetadataError(
        `${path}: fill value of a structured type must be base64 of ${this.itemSize} bytes, got ${showJson(json as JsonValue)}`,
        { path },
      );
    }
    return { value: this.decodeRecord(bytes) as unknown as Scalar, bits: bytes };
  }

  /** An object keyed by field name, or the record bytes. */
  fromScalar(value: unknown, path: string): FillValue {
    const bits =
      value instanceof Uint8Array && value.length === this.itemSize
        ? value.slice()
        : this.encodeRecord(value, path);
    return { value: this.decodeRecord(bits) as unknown as Scalar, bits };
  }

  fillValueToJSON(fill: FillValue): JsonValue {
    return encodeBase64(this.checkFill(fill));
  }

  override defaultFillValue(): FillValue {
    const bits = new Uint8Array(this.itemSize);
    return { value: this.decodeRecord(bits) as unknown as Scalar, bits };
  }

  /** The record as an object (typed as `Scalar` for the contract; see the module comment). */
  getScalar(data: DataArray, i: number): Scalar {
    const n = this.itemSize;
    return this.decodeRecord(this.typed(data).subarray(i * n, (i + 1) * n)) as unknown as Scalar;
  }

  toJSONValue(scalar: Scalar): JsonValue {
    return this.#jsonOf(scalar as unknown as StructValue);
  }

  #jsonOf(rec: StructValue): JsonValue {
    const out: { [k: string]: JsonValue } = {};
    for (const f of this.fields) {
      if (f.name === "") continue;
      const conv = (v: unknown): JsonValue => {
        const dt = f.dataType;
        if (hasJsonValue(dt)) return dt.toJSONValue(v as Scalar);
        return plainJson(v, dt);
      };
      const v = rec[f.name];
      out[f.name] = f.shape.length === 0 ? conv(v) : mapNested(v, f.shape.length, conv);
    }
    return out;
  }

  override toBytes(data: DataArray, _littleEndian: boolean): Uint8Array {
    return super.toBytes(data, true);
  }

  override fromBytes(bytes: Uint8Array, n: number, _littleEndian: boolean): Uint8Array {
    return super.fromBytes(bytes, n, true);
  }
}

/** JSON of a scalar of a core data type, as the CLI prints it. */
export function plainJson(v: unknown, dt: DataType): JsonValue {
  if (typeof v === "bigint") return v >= -(2n ** 53n) && v <= 2n ** 53n ? Number(v) : v.toString();
  if (typeof v === "number") {
    if (Number.isNaN(v)) return "NaN";
    if (v === Number.POSITIVE_INFINITY) return "Infinity";
    if (v === Number.NEGATIVE_INFINITY) return "-Infinity";
    return v;
  }
  if (v instanceof Uint8Array) return Array.from(v);
  if (Array.isArray(v)) return v.map((x) => plainJson(x, dt));
  if (typeof v === "boolean" || typeof v === "string") return v;
  return null;
}

function nest(values: unknown[], shape: readonly number[]): unknown[] {
  if (shape.length === 1) return values;
  const step = values.length / shape[0];
  const out: unknown[] = [];
  for (let i = 0; i < shape[0]; i++)
    out.push(nest(values.slice(i * step, (i + 1) * step), shape.slice(1)));
  return out;
}

function flatten(value: unknown, shape: readonly number[], path: string): unknown[] {
  if (shape.length === 0) return [value];
  if (!Array.isArray(value) || value.length !== shape[0]) {
    throw new ValueError(`${path}: expected a nested array of shape [${shape.join(", ")}]`, {
      path,
    });
  }
  return value.flatMap((v) => flatten(v, shape.slice(1), path));
}

function mapNested(value: unknown, depth: number, f: (v: unknown) => JsonValue): JsonValue {
  if (depth === 0) return f(value);
  return (value as unknown[]).map((v) => mapNested(v, depth - 1, f));
}

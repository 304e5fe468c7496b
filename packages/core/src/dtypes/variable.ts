/**
 * Variable-size data types from zarr-extensions: `string` (UTF-8 text, held as
 * `string[]`) and `bytes` (held as `Uint8Array[]`). They have no fixed item size
 * and no `toBytes`/`fromBytes`: the `vlen-utf8` / `vlen-bytes` codecs encode them.
 *
 * @module
 */

import { ValueError } from "../errors.js";
import { notRepresentable, parseByteArrayJson, toBase64 } from "./scalar-json.js";
import type { DataArray, DataType, FillValue, JsonValue } from "./types.js";

const NO_BITS = new Uint8Array(0);

function checkRange(data: { length: number }, start: number, end: number, name: string): void {
  if (!(start >= 0 && end >= start && end <= data.length)) {
    throw new ValueError(
      `element range [${start}, ${end}) is outside an array of ${data.length} ${name} elements`,
    );
  }
}

/** Longest JavaScript array (2^32 - 1 elements). */
const MAX_ARRAY_LENGTH = 0xffff_ffff;

function allocationCheck(n: number, name: string): void {
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new ValueError(`cannot allocate ${n} elements of ${name}`);
  }
  if (n > MAX_ARRAY_LENGTH) {
    throw new ValueError(
      `cannot allocate ${n} elements of ${name}: a JavaScript array holds at most 2^32 - 1`,
    );
  }
}

/** The `string` data type: fill values are JSON strings. */
export class StringDataType implements DataType {
  readonly kind = "string";
  readonly itemSize = null;
  readonly width = 1;
  readonly slotBytes = 0;

  /** @param name - `"string"`, or an alias such as zarr-python's `"variable_length_utf8"`. */
  constructor(readonly name = "string") {}

  private strings(data: DataArray): string[] {
    if (!Array.isArray(data)) throw new ValueError(`data of type ${this.name} must be a string[]`);
    return data as string[];
  }

  allocate(n: number): string[] {
    allocationCheck(n, this.name);
    return new Array<string>(n).fill("");
  }

  parseFillValue(json: JsonValue, path: string): FillValue {
    if (typeof json !== "string")
      throw notRepresentable(json, this.name, path, "expected a string");
    return { value: json, bits: NO_BITS };
  }

  fromScalar(value: unknown, path: string): FillValue {
    if (typeof value !== "string") {
      throw new ValueError(`${path}: ${String(value)} is not a string`, { path });
    }
    return { value, bits: NO_BITS };
  }

  fillValueToJSON(fill: FillValue): JsonValue {
    return fill.value as string;
  }

  defaultFillValue(): FillValue {
    return { value: "", bits: NO_BITS };
  }

  fill(data: DataArray, fill: FillValue, start: number, end: number): void {
    const arr = this.strings(data);
    checkRange(arr, start, end, this.name);
    arr.fill(fill.value as string, start, end);
  }

  isFill(data: DataArray, fill: FillValue, start: number, end: number): boolean {
    const arr = this.strings(data);
    checkRange(arr, start, end, this.name);
    const v = fill.value;
    for (let i = start; i < end; i++) if (arr[i] !== v) return false;
    return true;
  }

  getScalar(data: DataArray, i: number): string {
    return this.strings(data)[i];
  }

  toJSON(): JsonValue {
    return this.name;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The `bytes` data type: fill values are arrays of integers 0..255 (the
 * zarr-extensions form, written) or base64 strings (zarr-python's
 * `variable_length_bytes` form, also read).
 */
export class BytesDataType implements DataType {
  readonly kind = "bytes";
  readonly itemSize = null;
  readonly width = 1;
  readonly slotBytes = 0;

  /**
   * @param name - `"bytes"` or `"variable_length_bytes"`.
   * @param base64 - write fill values as base64 strings instead of integer arrays.
   */
  constructor(
    readonly name = "bytes",
    readonly base64 = false,
  ) {}

  private arrays(data: DataArray): Uint8Array[] {
    if (!Array.isArray(data))
      throw new ValueError(`data of type ${this.name} must be a Uint8Array[]`);
    return data as Uint8Array[];
  }

  allocate(n: number): Uint8Array[] {
    allocationCheck(n, this.name);
    // One shared empty array is safe: a zero-length view cannot be written.
    return new Array<Uint8Array>(n).fill(NO_BITS);
  }

  parseFillValue(json: JsonValue, path: string): FillValue {
    const bytes = parseByteArrayJson(json, this.name, path);
    if (bytes === undefined) {
      throw notRepresentable(
        json,
        this.name,
        path,
        "expected an array of bytes or a base64 string",
      );
    }
    return { value: bytes, bits: NO_BITS };
  }

  fromScalar(value: unknown, path: string): FillValue {
    if (!(value instanceof Uint8Array)) {
      throw new ValueError(`${path}: ${String(value)} is not a Uint8Array`, { path });
    }
    return { value: value.slice(), bits: NO_BITS };
  }

  fillValueToJSON(fill: FillValue): JsonValue {
    const bytes = fill.value as Uint8Array;
    return this.base64 ? toBase64(bytes) : Array.from(bytes);
  }

  defaultFillValue(): FillValue {
    return { value: new Uint8Array(0), bits: NO_BITS };
  }

  fill(data: DataArray, fill: FillValue, start: number, end: number): void {
    const arr = this.arrays(data);
    checkRange(arr, start, end, this.name);
    arr.fill(fill.value as Uint8Array, start, end);
  }

  isFill(data: DataArray, fill: FillValue, start: number, end: number): boolean {
    const arr = this.arrays(data);
    checkRange(arr, start, end, this.name);
    const v = fill.value as Uint8Array;
    for (let i = start; i < end; i++) if (!sameBytes(arr[i], v)) return false;
    return true;
  }

  getScalar(data: DataArray, i: number): Uint8Array {
    return this.arrays(data)[i];
  }

  toJSON(): JsonValue {
    return this.name;
  }
}

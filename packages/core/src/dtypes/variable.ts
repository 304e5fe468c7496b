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

/**
 * The most elements an array of JavaScript values (strings, byte arrays,
 * objects) may have: V8 keeps a dense array in one block of at most 1 GiB of
 * 8-byte slots (2^27 - 2; SpiderMonkey and JavaScriptCore allow more). Past
 * it V8 either throws or, for some lengths, aborts the whole process, so
 * larger chunks are refused before any allocation.
 */
export const MAX_VALUE_ARRAY_LENGTH = 2 ** 27 - 2;

/**
 * A dense array of `n` copies of `fill` (for data types whose elements are
 * JavaScript values); a `ValueError` naming `name` when `n` is not a count or
 * is more than {@link MAX_VALUE_ARRAY_LENGTH}.
 */
export function allocateValues<T>(n: number, fill: T, name: string): T[] {
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new ValueError(`cannot allocate ${n} elements of ${name}`);
  }
  if (n > MAX_VALUE_ARRAY_LENGTH) {
    throw new ValueError(
      `cannot allocate ${n} elements of ${name}: a JavaScript array of values holds at most ${MAX_VALUE_ARRAY_LENGTH} (2^27 - 2) in one piece; use smaller chunks`,
    );
  }
  return new Array<T>(n).fill(fill);
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
    return allocateValues(n, "", this.name);
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
    // One shared empty array is safe: a zero-length view cannot be written.
    return allocateValues(n, NO_BITS, this.name);
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

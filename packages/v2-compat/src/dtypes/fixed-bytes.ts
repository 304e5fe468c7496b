/**
 * numpy `S<n>` (NUL-padded byte strings) and `V<n>` (opaque bytes): `n` bytes per
 * element, held in a `Uint8Array` of width `n`. Byte order does not apply.
 * `getScalar` returns the bytes (for `S`, without trailing NULs, as numpy does).
 *
 * @module
 */
import {
  type DataArray,
  type FillValue,
  type JsonValue,
  MetadataError,
  type Scalar,
  ValueError,
} from "@zarr/core";
import { FixedSizeDataType, showJson } from "@zarr/core/internal";
import { decodeBase64, encodeBase64, latin1 } from "../util/base64.js";
import type { JsonValueDataType } from "./json-value.js";

/** Largest `S`/`V` item size accepted (bytes), so fill patterns stay sane. */
export const MAX_FIXED_BYTES = 1 << 20;

/** numpy `S<n>` or `V<n>`. */
export class FixedBytesDataType extends FixedSizeDataType<Uint8Array> implements JsonValueDataType {
  readonly kind = "other";
  readonly name: string;

  constructor(
    /** `"S"`: NUL-terminated byte string; `"V"`: opaque bytes. */
    readonly code: "S" | "V",
    readonly length: number,
  ) {
    super(length, length, Uint8Array);
    this.name = code === "S" ? "null_terminated_bytes" : `r${length * 8}`;
  }

  /** v3 form: zarr-python 3's `null_terminated_bytes`, or the core raw type `r<N>` for `V`. */
  override toJSON(): JsonValue {
    return this.code === "S"
      ? { name: this.name, configuration: { length_bytes: this.length } }
      : this.name;
  }

  /** The numpy typestr (`|S7`, `|V4`). */
  get typestr(): string {
    return `|${this.code}${this.length}`;
  }

  #pad(bytes: Uint8Array, path: string, error: (m: string) => Error): FillValue {
    if (bytes.length > this.length) {
      throw error(`${path}: ${bytes.length} bytes do not fit ${this.typestr}`);
    }
    const bits = new Uint8Array(this.length);
    bits.set(bytes);
    return { value: this.#value(bits), bits };
  }

  #value(bits: Uint8Array): Uint8Array {
    let end = bits.length;
    if (this.code === "S") while (end > 0 && bits[end - 1] === 0) end--;
    return bits.slice(0, end);
  }

  /** A base64 string (v2 and zarr-python 3) or an array of byte values. */
  parseFillValue(json: JsonValue, path: string): FillValue {
    const error = (m: string) => new MetadataError(m, { path });
    let bytes: Uint8Array | undefined;
    if (typeof json === "string") bytes = decodeBase64(json);
    else if (
      Array.isArray(json) &&
      json.every((b) => typeof b === "number" && Number.isInteger(b) && b >= 0 && b <= 255)
    ) {
      bytes = Uint8Array.from(json as number[]);
    }
    if (bytes === undefined) {
      throw error(
        `${path}: fill value ${showJson(json as JsonValue)} is not base64 or a byte list for ${this.typestr}`,
      );
    }
    return this.#pad(bytes, path, error);
  }

  /** A `Uint8Array`, or a string of characters U+0000..U+00FF (latin-1). */
  fromScalar(value: unknown, path: string): FillValue {
    const error = (m: string) => new ValueError(m, { path });
    if (value instanceof Uint8Array) return this.#pad(value, path, error);
    if (typeof value === "string") {
      const bytes = new Uint8Array(value.length);
      for (let i = 0; i < value.length; i++) {
        const c = value.charCodeAt(i);
        if (c > 255)
          throw error(`${path}: character U+${c.toString(16)} is not latin-1 (${this.typestr})`);
        bytes[i] = c;
      }
      return this.#pad(bytes, path, error);
    }
    throw error(
      `${path}: expected bytes or a latin-1 string for ${this.typestr}, got ${typeof value}`,
    );
  }

  /**
   * Base64 of the bytes; for `S` without trailing NULs, as zarr-python writes
   * a numpy `bytes_` fill value (`b"abc"` for `"abc\0\0"`: "YWJj", which
   * {@link parseFillValue} pads back).
   */
  fillValueToJSON(fill: FillValue): JsonValue {
    const bits = this.checkFill(fill);
    return encodeBase64(this.code === "S" ? this.#value(bits) : bits);
  }

  getScalar(data: DataArray, i: number): Uint8Array {
    const n = this.length;
    return this.#value(this.typed(data).subarray(i * n, (i + 1) * n));
  }

  /** Latin-1 text with trailing NULs removed. */
  toJSONValue(scalar: Scalar): JsonValue {
    if (!(scalar instanceof Uint8Array)) return null;
    let end = scalar.length;
    while (end > 0 && scalar[end - 1] === 0) end--;
    return latin1(scalar.subarray(0, end));
  }

  override toBytes(data: DataArray, _littleEndian: boolean): Uint8Array {
    return super.toBytes(data, true);
  }

  override fromBytes(bytes: Uint8Array, n: number, _littleEndian: boolean): Uint8Array {
    return super.fromBytes(bytes, n, true);
  }
}

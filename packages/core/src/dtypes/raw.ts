/**
 * Raw data types `r<N>` (N a multiple of 8): N/8 opaque bytes per element, held in
 * a `Uint8Array` of width N/8. Byte order does not apply.
 *
 * @module
 */

import { ValueError } from "../errors.js";
import { FixedSizeDataType } from "./fixed.js";
import { notRepresentable, parseByteArrayJson } from "./scalar-json.js";
import type { DataArray, FillValue, JsonValue } from "./types.js";

/** Largest raw type accepted (bits); keeps fill patterns and chunk math sane. */
export const MAX_RAW_BITS = 8 * 65536;

/** A v3 raw data type `r<N>`. */
export class RawDataType extends FixedSizeDataType<Uint8Array> {
  readonly kind = "raw";
  readonly name: string;

  constructor(readonly bits: number) {
    super(bits / 8, bits / 8, Uint8Array);
    this.name = `r${bits}`;
  }

  /**
   * An array of N/8 integers in 0..255 (one per byte; the spec text says "length
   * N" but every implementation uses one integer per byte), or a base64 string.
   */
  parseFillValue(json: JsonValue, path: string): FillValue {
    const bytes = parseByteArrayJson(json, this.name, path);
    if (bytes === undefined) {
      throw notRepresentable(json, this.name, path, `expected an array of ${this.width} bytes`);
    }
    if (bytes.length !== this.width) {
      throw notRepresentable(
        json,
        this.name,
        path,
        `expected ${this.width} bytes, got ${bytes.length}`,
      );
    }
    return { value: bytes.slice(), bits: bytes };
  }

  /** A `Uint8Array` or number array of N/8 bytes. */
  fromScalar(value: unknown, path: string): FillValue {
    let bytes: Uint8Array | undefined;
    if (value instanceof Uint8Array) bytes = value.slice();
    else if (
      Array.isArray(value) &&
      value.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)
    ) {
      bytes = Uint8Array.from(value as number[]);
    }
    if (bytes === undefined || bytes.length !== this.width) {
      throw new ValueError(`${path}: expected ${this.width} bytes for ${this.name}`, { path });
    }
    return { value: bytes.slice(), bits: bytes };
  }

  fillValueToJSON(fill: FillValue): JsonValue {
    return Array.from(this.checkFill(fill));
  }

  getScalar(data: DataArray, i: number): Uint8Array {
    const w = this.width;
    return this.typed(data).slice(i * w, (i + 1) * w);
  }

  override toBytes(data: DataArray, _littleEndian: boolean): Uint8Array {
    return super.toBytes(data, true);
  }

  override fromBytes(bytes: Uint8Array, n: number, _littleEndian: boolean): Uint8Array {
    return super.fromBytes(bytes, n, true);
  }

  /** Raw bytes are their own memory in either byte order. */
  override get viewsLittleEndianBytes(): boolean {
    return true;
  }
}

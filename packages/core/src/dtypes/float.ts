/**
 * IEEE float data types. float32/float64 live in `Float32Array`/`Float64Array`;
 * float16 lives in a `Float32Array` (every binary16 value is exactly a binary32
 * value) and is converted to and from binary16 by the bytes codec.
 *
 * Fill values keep their exact bits, including NaN payloads and -0.
 *
 * @module
 */

import { ValueError } from "../errors.js";
import { bytesOf } from "./byte-utils.js";
import { FixedSizeDataType } from "./fixed.js";
import { decodeFloat16, encodeFloat16 } from "./float16.js";
import { assertLittleEndianHost } from "./host.js";
import {
  type FloatBits,
  floatBitsToJson,
  numberToFloatBits,
  parseFloatJson,
  readFloatSlot,
  writeFloatSlot,
} from "./scalar-json.js";
import type { DataArray, FillValue, JsonValue } from "./types.js";

/** A v3 IEEE float data type (`float16`, `float32`, `float64`). */
export class FloatDataType extends FixedSizeDataType<Float32Array | Float64Array> {
  readonly kind = "float";
  readonly name: string;

  constructor(readonly bits: FloatBits) {
    super(bits / 8, 1, bits === 64 ? Float64Array : Float32Array);
    this.name = `float${bits}`;
  }

  private fromPattern(pattern: bigint): FillValue {
    const bits = new Uint8Array(this.elementBytes);
    writeFloatSlot(pattern, this.bits, bits, 0);
    return this.fillFromBits(bits);
  }

  parseFillValue(json: JsonValue, path: string): FillValue {
    return this.fromPattern(parseFloatJson(json, this.bits, this.name, path));
  }

  /** Numbers (rounded to the type; NaN becomes the canonical NaN) and bigints. */
  fromScalar(value: unknown, path: string): FillValue {
    if (typeof value === "number") return this.fromPattern(numberToFloatBits(value, this.bits));
    if (typeof value === "bigint") {
      return this.fromPattern(numberToFloatBits(Number(value), this.bits));
    }
    throw new ValueError(`${path}: ${String(value)} is not a number (data type ${this.name})`, {
      path,
    });
  }

  fillValueToJSON(fill: FillValue): JsonValue {
    return floatBitsToJson(readFloatSlot(this.bits, this.checkFill(fill), 0), this.bits);
  }

  getScalar(data: DataArray, i: number): number {
    return this.typed(data)[i];
  }

  override toBytes(data: DataArray, littleEndian: boolean): Uint8Array {
    if (this.bits !== 16) return super.toBytes(data, littleEndian);
    assertLittleEndianHost();
    const src = this.typed(data);
    // Convert from the float32 bit patterns, so NaN payloads survive.
    const u32 = new Uint32Array(src.buffer, src.byteOffset, src.length);
    const out = new Uint16Array(src.length);
    encodeFloat16(u32, out);
    if (!littleEndian) for (let i = 0; i < out.length; i++) out[i] = (out[i] >>> 8) | (out[i] << 8);
    return bytesOf(out);
  }

  /** float32/float64 view their bytes; float16 widens to a `Float32Array`. */
  override get viewsLittleEndianBytes(): boolean {
    return this.bits !== 16;
  }

  override fromBytes(
    bytes: Uint8Array,
    n: number,
    littleEndian: boolean,
  ): Float32Array | Float64Array {
    if (this.bits !== 16) return super.fromBytes(bytes, n, littleEndian);
    assertLittleEndianHost();
    this.checkByteLength(bytes, n);
    const halves =
      bytes.byteOffset % 2 === 0
        ? new Uint16Array(bytes.buffer, bytes.byteOffset, n)
        : new Uint16Array(bytes.slice().buffer, 0, n);
    const out = new Float32Array(n);
    const u32 = new Uint32Array(out.buffer);
    if (littleEndian) {
      decodeFloat16(halves, u32);
    } else {
      const swapped = new Uint16Array(n);
      for (let i = 0; i < n; i++) swapped[i] = (halves[i] >>> 8) | (halves[i] << 8);
      decodeFloat16(swapped, u32);
    }
    return out;
  }
}

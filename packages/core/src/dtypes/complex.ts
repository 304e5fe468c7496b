/**
 * Complex data types: interleaved (re, im) pairs in a `Float32Array` (complex64)
 * or `Float64Array` (complex128). The bytes codec swaps each component separately.
 *
 * @module
 */

import { ValueError } from "../errors.js";
import { FixedSizeDataType } from "./fixed.js";
import {
  floatBitsToJson,
  notRepresentable,
  numberToFloatBits,
  parseFloatJson,
  readFloatSlot,
  writeFloatSlot,
} from "./scalar-json.js";
import type { DataArray, FillValue, JsonValue } from "./types.js";

/** A v3 complex data type (`complex64`, `complex128`). */
export class ComplexDataType extends FixedSizeDataType<Float32Array | Float64Array> {
  readonly kind = "complex";
  readonly name: string;
  readonly componentBits: 32 | 64;

  constructor(bits: 64 | 128) {
    super(bits / 8, 2, bits === 128 ? Float64Array : Float32Array);
    this.name = `complex${bits}`;
    this.componentBits = bits === 128 ? 64 : 32;
  }

  private fromPatterns(re: bigint, im: bigint): FillValue {
    const bits = new Uint8Array(this.elementBytes);
    writeFloatSlot(re, this.componentBits, bits, 0);
    writeFloatSlot(im, this.componentBits, bits, this.slotBytes);
    return this.fillFromBits(bits);
  }

  /** A two-element array [re, im], each component in any float JSON form. */
  parseFillValue(json: JsonValue, path: string): FillValue {
    if (!Array.isArray(json) || json.length !== 2) {
      throw notRepresentable(json, this.name, path, "expected a two-element array [re, im]");
    }
    const component = `float${this.componentBits}`;
    const re = parseFloatJson(json[0], this.componentBits, component, `${path}[0]`);
    const im = parseFloatJson(json[1], this.componentBits, component, `${path}[1]`);
    return this.fromPatterns(re, im);
  }

  /** `[re, im]` of numbers, or a real number. */
  fromScalar(value: unknown, path: string): FillValue {
    const b = this.componentBits;
    if (typeof value === "number") return this.fromPatterns(numberToFloatBits(value, b), 0n);
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === "number" &&
      typeof value[1] === "number"
    ) {
      return this.fromPatterns(numberToFloatBits(value[0], b), numberToFloatBits(value[1], b));
    }
    throw new ValueError(`${path}: ${String(value)} is not a ${this.name} ([re, im] or a number)`, {
      path,
    });
  }

  fillValueToJSON(fill: FillValue): JsonValue {
    const bits = this.checkFill(fill);
    const b = this.componentBits;
    return [
      floatBitsToJson(readFloatSlot(b, bits, 0), b),
      floatBitsToJson(readFloatSlot(b, bits, this.slotBytes), b),
    ];
  }

  getScalar(data: DataArray, i: number): readonly [number, number] {
    const typed = this.typed(data);
    return [typed[2 * i], typed[2 * i + 1]];
  }
}

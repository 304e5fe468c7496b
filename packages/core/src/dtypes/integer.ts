/**
 * Integer data types: int8..int32 and uint8..uint32 as numbers in the matching
 * typed array, int64/uint64 as bigints in `BigInt64Array`/`BigUint64Array`.
 *
 * @module
 */

import { ValueError } from "../errors.js";
import { FixedSizeDataType, type TypedArrayConstructor } from "./fixed.js";
import { notRepresentable } from "./scalar-json.js";
import type { DataArray, FillValue, JsonValue, TypedArray } from "./types.js";

/** A v3 integer data type (`int8` .. `uint64`). */
export class IntegerDataType extends FixedSizeDataType<TypedArray> {
  readonly kind: "int" | "uint";
  readonly min: bigint;
  readonly max: bigint;
  /** True for 64-bit types, whose scalars are bigints. */
  readonly big: boolean;

  constructor(
    readonly name: string,
    signed: boolean,
    bytes: 1 | 2 | 4 | 8,
    ctor: TypedArrayConstructor,
  ) {
    super(bytes, 1, ctor);
    this.kind = signed ? "int" : "uint";
    const bits = BigInt(bytes * 8);
    this.min = signed ? -(1n << (bits - 1n)) : 0n;
    this.max = signed ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
    this.big = bytes === 8;
  }

  /** The exact integer of `value`, or undefined when it is not an integer in range. */
  private exact(value: unknown): bigint | undefined {
    let v: bigint;
    if (typeof value === "bigint") v = value;
    else if (typeof value === "number" && Number.isSafeInteger(value)) v = BigInt(value);
    else return undefined;
    return v >= this.min && v <= this.max ? v : undefined;
  }

  private make(v: bigint): FillValue {
    const bits = new Uint8Array(this.elementBytes);
    const one = new this.ctor(bits.buffer, 0, 1);
    if (this.big) (one as BigInt64Array)[0] = v;
    else (one as Int32Array)[0] = Number(v);
    return { value: this.big ? v : Number(v), bits };
  }

  /**
   * Integers must be JSON numbers without fraction or exponent in range. After
   * parsing, `1.0` and `1` are indistinguishable, so integral numbers are
   * accepted; numbers beyond 2^53 must arrive exactly (as bigint from `parseJson`).
   */
  parseFillValue(json: JsonValue, path: string): FillValue {
    const v = this.exact(json);
    if (v === undefined) {
      const why =
        typeof json === "number" && Number.isInteger(json) && !Number.isSafeInteger(json)
          ? "integers beyond 2^53 must be written without fraction or exponent"
          : typeof json === "number" || typeof json === "bigint"
            ? `expected an integer in ${this.min}..${this.max}`
            : "expected a JSON integer";
      throw notRepresentable(json, this.name, path, why);
    }
    return this.make(v);
  }

  fromScalar(value: unknown, path: string): FillValue {
    const v = this.exact(value);
    if (v === undefined) {
      const shown = typeof value === "bigint" ? `${value}n` : String(value);
      throw new ValueError(
        `${path}: ${shown} is not representable as ${this.name} (expected an integer in ${this.min}..${this.max})`,
        { path },
      );
    }
    return this.make(v);
  }

  fillValueToJSON(fill: FillValue): JsonValue {
    const v = fill.value;
    if (typeof v === "bigint") {
      const n = Number(v);
      return Number.isSafeInteger(n) ? n : v;
    }
    return v as number;
  }

  getScalar(data: DataArray, i: number): number | bigint {
    return this.typed(data)[i] as number | bigint;
  }
}

/**
 * The `bool` data type: a `Uint8Array` of 0/1, one byte per element when stored.
 *
 * @module
 */

import { ValueError } from "../errors.js";
import { FixedSizeDataType } from "./fixed.js";
import { notRepresentable } from "./scalar-json.js";
import type { DataArray, FillValue, JsonValue } from "./types.js";

/** The v3 `bool` data type. */
export class BoolDataType extends FixedSizeDataType<Uint8Array> {
  readonly name = "bool";
  readonly kind = "bool";

  constructor() {
    super(1, 1, Uint8Array);
  }

  parseFillValue(json: JsonValue, path: string): FillValue {
    if (typeof json !== "boolean")
      throw notRepresentable(json, this.name, path, "expected true or false");
    return this.make(json);
  }

  fromScalar(value: unknown, path: string): FillValue {
    if (typeof value === "boolean") return this.make(value);
    if (value === 0 || value === 1) return this.make(value === 1);
    throw new ValueError(`${path}: ${String(value)} is not a bool (expected true, false, 0 or 1)`, {
      path,
    });
  }

  private make(value: boolean): FillValue {
    return { value, bits: Uint8Array.of(value ? 1 : 0) };
  }

  fillValueToJSON(fill: FillValue): JsonValue {
    return fill.bits[0] !== 0;
  }

  getScalar(data: DataArray, i: number): boolean {
    return this.typed(data)[i] !== 0;
  }

  /**
   * Decodes stored booleans. Any nonzero byte reads as true and is normalized to 1
   * (a copy is made only when such bytes occur), so that bit-exact comparisons with
   * fill values stay meaningful.
   */
  override fromBytes(bytes: Uint8Array, n: number, littleEndian: boolean): Uint8Array {
    const out = super.fromBytes(bytes, n, littleEndian);
    for (let i = 0; i < out.length; i++) {
      if (out[i] > 1) {
        const copy = out.slice();
        for (let j = i; j < copy.length; j++) if (copy[j] > 1) copy[j] = 1;
        return copy;
      }
    }
    return out;
  }
}

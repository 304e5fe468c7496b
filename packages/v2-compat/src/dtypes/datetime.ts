/**
 * numpy `M8[unit]` (datetime64) and `m8[unit]` (timedelta64): signed 64-bit
 * counts of `scale × unit` since the epoch (or as a duration). In memory a
 * `BigInt64Array`; `getScalar` returns the count as a bigint and NaT is
 * -2^63. v3 names: `numpy.datetime64` / `numpy.timedelta64` with
 * `{unit, scale_factor}` (zarr-extensions).
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
import { type DataTypeResolver, FixedSizeDataType } from "@zarr/core/internal";
import type { JsonValueDataType } from "./json-value.js";

/** The units numpy accepts (`generic` is written as no unit). */
export const TIME_UNITS = [
  "Y",
  "M",
  "W",
  "D",
  "h",
  "m",
  "s",
  "ms",
  "us",
  "μs",
  "ns",
  "ps",
  "fs",
  "as",
  "generic",
] as const;

/** NaT ("not a time"): the smallest int64. */
export const NAT = -(2n ** 63n);

/** A datetime64 or timedelta64 data type. */
export class DateTimeDataType
  extends FixedSizeDataType<BigInt64Array>
  implements JsonValueDataType
{
  readonly kind = "other";
  readonly name: string;

  constructor(
    /** `"M"`: datetime64; `"m"`: timedelta64. */
    readonly code: "M" | "m",
    readonly unit: string,
    readonly scale = 1,
  ) {
    super(8, 1, BigInt64Array);
    this.name = code === "M" ? "numpy.datetime64" : "numpy.timedelta64";
  }

  override toJSON(): JsonValue {
    return { name: this.name, configuration: { unit: this.unit, scale_factor: this.scale } };
  }

  /** The numpy typestr without byte order (`M8[ns]`, `m8[10s]`). */
  get typestrBody(): string {
    if (this.unit === "generic") return `${this.code}8`;
    return `${this.code}8[${this.scale === 1 ? "" : this.scale}${this.unit}]`;
  }

  #fromBigint(v: bigint): FillValue {
    const bits = new Uint8Array(8);
    new DataView(bits.buffer).setBigInt64(0, v, true);
    return { value: v, bits };
  }

  /** An integer count, `"NaT"`, or `null` (NaT). */
  parseFillValue(json: JsonValue, path: string): FillValue {
    if (json === null || json === "NaT") return this.#fromBigint(NAT);
    if (typeof json === "bigint" || (typeof json === "number" && Number.isSafeInteger(json))) {
      const v = BigInt(json);
      if (v >= -(2n ** 63n) && v < 2n ** 63n) return this.#fromBigint(v);
    }
    throw new MetadataError(
      `${path}: fill value ${String(json)} is not an int64 count or "NaT" for ${this.typestrBody}`,
      { path },
    );
  }

  /** A bigint or safe integer count, or `"NaT"`. */
  fromScalar(value: unknown, path: string): FillValue {
    if (value === "NaT") return this.#fromBigint(NAT);
    if (typeof value === "bigint" || (typeof value === "number" && Number.isSafeInteger(value))) {
      const v = BigInt(value);
      if (v >= -(2n ** 63n) && v < 2n ** 63n) return this.#fromBigint(v);
    }
    throw new ValueError(
      `${path}: expected an int64 count (bigint) or "NaT" for ${this.typestrBody}`,
      { path },
    );
  }

  fillValueToJSON(fill: FillValue): JsonValue {
    const v = fill.value as bigint;
    if (v === NAT) return "NaT";
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(v)
      : v;
  }

  getScalar(data: DataArray, i: number): bigint {
    return this.typed(data)[i];
  }

  /** The count as a decimal string (`"NaT"` for NaT). */
  toJSONValue(scalar: Scalar): JsonValue {
    return scalar === NAT ? "NaT" : String(scalar);
  }

  /** Resolves `{name, configuration: {unit, scale_factor}}` (v3 metadata). */
  static resolver(code: "M" | "m"): DataTypeResolver & DateTimeDataType {
    const base = new DateTimeDataType(code, "s");
    return Object.assign(base, {
      resolve(json: JsonValue, path: string): DateTimeDataType | undefined {
        if (typeof json !== "object" || json === null || Array.isArray(json)) return undefined;
        const config = (json.configuration ?? {}) as Record<string, JsonValue>;
        const unit = config.unit;
        const scale = config.scale_factor ?? 1;
        if (typeof unit !== "string" || !(TIME_UNITS as readonly string[]).includes(unit)) {
          throw new MetadataError(
            `${path}: ${base.name}: configuration.unit must be one of ${TIME_UNITS.join(", ")}`,
            { path },
          );
        }
        if (typeof scale !== "number" || !Number.isSafeInteger(scale) || scale < 1) {
          throw new MetadataError(
            `${path}: ${base.name}: configuration.scale_factor must be a positive integer`,
            { path },
          );
        }
        return new DateTimeDataType(code, unit, scale);
      },
    });
  }
}

/**
 * Reading a numcodecs configuration: errors name the codec, the field and the
 * metadata path. Keys a codec does not read are ignored, as numcodecs
 * configurations from newer versions may carry keys older ones lack.
 *
 * @module
 */
import { CodecError, type JsonObject, type JsonValue } from "@zarr/core";

/** A JSON value as it reads in an error message (bigints too). */
export function showJson(v: JsonValue | undefined): string {
  if (v === undefined) return "undefined";
  return JSON.stringify(v, (_, x) => (typeof x === "bigint" ? x.toString() : x));
}

/** A configuration reader that names the codec and field on error. */
export class Config {
  constructor(
    readonly codec: string,
    readonly json: JsonObject,
    readonly path: string,
  ) {}

  error(field: string, why: string): CodecError {
    return new CodecError(`${this.path}: ${this.codec}: ${field}: ${why}`, { path: this.path });
  }

  number(field: string, fallback?: number): number {
    const v = this.json[field] ?? fallback;
    if (typeof v !== "number" || !Number.isFinite(v))
      throw this.error(field, `must be a number, got ${showJson(v)}`);
    return v;
  }

  integer(field: string, min: number, max: number, fallback?: number): number {
    const v = this.number(field, fallback);
    if (!Number.isInteger(v) || v < min || v > max)
      throw this.error(field, `must be an integer in ${min}..${max}, got ${v}`);
    return v;
  }
}

/**
 * JSON forms of scalar fill values (v3 core spec, "fill_value"): IEEE floats as
 * numbers, "NaN", "Infinity", "-Infinity" or "0x…" bit patterns, and byte strings
 * as arrays of 0..255 or base64.
 *
 * Float helpers work on the in-memory bits of one slot (little-endian host order):
 * 4 bytes for float16 (held as float32) and float32, 8 bytes for float64.
 *
 * @module
 */

import { MetadataError } from "../errors.js";
import { stringifyJson } from "../json-write.js";
import {
  float16BitsToFloat32Bits,
  float32BitsToFloat16Bits,
  float64ToFloat16Bits,
} from "./float16.js";
import type { JsonValue } from "./types.js";

/** Bits of an IEEE binary float format. */
export type FloatBits = 16 | 32 | 64;

/** Canonical quiet NaN bit patterns ("NaN" in metadata). */
const CANONICAL_NAN = { 16: 0x7e00n, 32: 0x7fc00000n, 64: 0x7ff8000000000000n } as const;

const f64 = new Float64Array(1);
const f64Bits = new BigUint64Array(f64.buffer);
const f32 = new Float32Array(1);
const f32Bits = new Uint32Array(f32.buffer);

/** A short, safe rendering of a JSON value for error messages. */
export function showJson(json: JsonValue): string {
  try {
    const s = stringifyJson(json, 0);
    return s.length > 60 ? `${s.slice(0, 57)}...` : s;
  } catch {
    return String(json);
  }
}

/** Error for a fill value that the data type cannot represent. */
export function notRepresentable(json: JsonValue, typeName: string, path: string, why = "") {
  return new MetadataError(
    `${path}: ${showJson(json)} is not representable as ${typeName}${why ? ` (${why})` : ""}`,
    { path },
  );
}

/** Bit pattern of `x` rounded to the format, as an unsigned integer. */
export function numberToFloatBits(x: number, bits: FloatBits): bigint {
  if (Number.isNaN(x)) return CANONICAL_NAN[bits];
  switch (bits) {
    case 16:
      return BigInt(float64ToFloat16Bits(x));
    case 32:
      f32[0] = x;
      return BigInt(f32Bits[0]);
    case 64:
      f64[0] = x;
      return f64Bits[0];
  }
}

/** Value of a bit pattern of the format. */
export function floatBitsToNumber(pattern: bigint, bits: FloatBits): number {
  switch (bits) {
    case 16:
      f32Bits[0] = float16BitsToFloat32Bits(Number(pattern));
      return f32[0];
    case 32:
      f32Bits[0] = Number(pattern);
      return f32[0];
    case 64:
      f64Bits[0] = pattern;
      return f64[0];
  }
}

/** Writes a format bit pattern into one in-memory slot (float16 is held as float32). */
export function writeFloatSlot(pattern: bigint, bits: FloatBits, out: Uint8Array, at: number) {
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  if (bits === 64) view.setBigUint64(at, pattern, true);
  else if (bits === 32) view.setUint32(at, Number(pattern), true);
  else view.setUint32(at, float16BitsToFloat32Bits(Number(pattern)), true);
}

/** Reads the format bit pattern of one in-memory slot. */
export function readFloatSlot(bits: FloatBits, src: Uint8Array, at: number): bigint {
  const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  if (bits === 64) return view.getBigUint64(at, true);
  const u = view.getUint32(at, true);
  return BigInt(bits === 32 ? u : float32BitsToFloat16Bits(u));
}

/**
 * Parses the JSON form of one float into its bit pattern. Throws a MetadataError
 * naming `path` when it is not a valid form.
 */
export function parseFloatJson(
  json: JsonValue,
  bits: FloatBits,
  typeName: string,
  path: string,
): bigint {
  // An integer literal read exactly (a bigint) is a number like any other: it
  // must fit binary64, as a literal with an exponent must.
  const number = typeof json === "bigint" ? Number(json) : json;
  if (typeof number === "number") {
    if (Number.isNaN(number)) {
      throw notRepresentable(
        json,
        typeName,
        path,
        'a bare NaN token is not JSON; write the string "NaN"',
      );
    }
    if (!Number.isFinite(number)) {
      throw notRepresentable(json, typeName, path, "the number overflows binary64");
    }
    return numberToFloatBits(number, bits);
  }
  if (typeof json === "string") {
    if (json === "NaN") return CANONICAL_NAN[bits];
    if (json === "Infinity") return numberToFloatBits(Number.POSITIVE_INFINITY, bits);
    if (json === "-Infinity") return numberToFloatBits(Number.NEGATIVE_INFINITY, bits);
    const digits = bits / 4;
    if (/^0x[0-9a-fA-F]+$/.test(json)) {
      if (json.length - 2 !== digits) {
        throw notRepresentable(
          json,
          typeName,
          path,
          `a hex bit pattern of ${typeName} has exactly ${digits} hex digits`,
        );
      }
      return BigInt(json);
    }
    throw notRepresentable(
      json,
      typeName,
      path,
      'expected a number, "NaN", "Infinity", "-Infinity" or a "0x…" bit pattern',
    );
  }
  throw notRepresentable(json, typeName, path, "expected a number or string");
}

/** The JSON form of a float bit pattern: a number, "NaN", "±Infinity" or "0x…". */
export function floatBitsToJson(pattern: bigint, bits: FloatBits): JsonValue {
  const x = floatBitsToNumber(pattern, bits);
  if (Number.isNaN(x)) {
    if (pattern === CANONICAL_NAN[bits]) return "NaN";
    return `0x${pattern.toString(16).padStart(bits / 4, "0")}`;
  }
  if (x === Number.POSITIVE_INFINITY) return "Infinity";
  if (x === Number.NEGATIVE_INFINITY) return "-Infinity";
  return x;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Parses a byte string given as an array of integers 0..255 or a base64 string.
 * Returns `undefined` when `json` is neither form (the caller reports the error).
 */
export function parseByteArrayJson(
  json: JsonValue,
  typeName: string,
  path: string,
): Uint8Array | undefined {
  if (Array.isArray(json)) {
    const out = new Uint8Array(json.length);
    for (let i = 0; i < json.length; i++) {
      const b = json[i];
      if (typeof b !== "number" || !Number.isInteger(b) || b < 0 || b > 255) {
        throw notRepresentable(json, typeName, path, `element ${i} is not an integer in 0..255`);
      }
      out[i] = b;
    }
    return out;
  }
  if (typeof json === "string") {
    if (!BASE64.test(json)) throw notRepresentable(json, typeName, path, "invalid base64");
    const bin = atob(json);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  return undefined;
}

/** Base64 of `bytes`. */
export function toBase64(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
  return btoa(bin);
}

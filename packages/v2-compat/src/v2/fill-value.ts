/**
 * v2 `fill_value` encoding (v2 spec "Fill value encoding"): numbers, booleans,
 * "NaN"/"Infinity"/"-Infinity" for floats, `[re, im]` for complex, base64 for
 * `S`, `V` and structured types, strings for `U`, integer counts for
 * datetimes, and `null` (no fill value).
 *
 * This module decides what a fill value means across v2, v3 and conversions.
 * A chunk may be left out only when every reader decodes the missing chunk to
 * exactly the values left out. zarr-python 2 reads a missing chunk of an
 * array whose `fill_value` is null as uninitialized memory (`None` for object
 * arrays), and one of an object array as the fill value's Python object (so
 * `0` for a string array is the integer 0, not ""). For those arrays our v3
 * form carries the v2 value in the `v2_fill_value` extension member (see
 * core's `V2_FILL_VALUE_FIELD`): every chunk is then stored, reads of missing
 * chunks give the data type's default (zeros, "", empty bytes), a conversion
 * to v3 keeps the member, and one back to v2 restores the exact v2 value.
 *
 * @module
 */

import {
  type DataType,
  type FillValue,
  type JsonObject,
  type JsonValue,
  MetadataError,
} from "@zarr/core";
import {
  type ArrayMetadataV3,
  float32,
  float64,
  keepsEveryChunk,
  V2_FILL_VALUE_FIELD,
} from "@zarr/core/internal";
import { encodeBase64 } from "../util/base64.js";

/**
 * Parses a v2 fill value for `dataType` (`object` for `|O` arrays, whose fill
 * values are lenient: zarr-python writes `0` or `null` for string arrays).
 */
export function parseV2FillValue(
  dataType: DataType,
  json: JsonValue,
  path: string,
  object = false,
): FillValue {
  if (object) {
    if (dataType.kind === "string") {
      return typeof json === "string"
        ? dataType.parseFillValue(json, path)
        : dataType.defaultFillValue();
    }
    if (dataType.kind === "bytes") return dataType.defaultFillValue();
    return dataType.parseFillValue(json, path);
  }
  if (json === null) return dataType.defaultFillValue();
  if (dataType.kind === "bool" && typeof json === "number" && (json === 0 || json === 1)) {
    return dataType.parseFillValue(json === 1, path);
  }
  if (
    (dataType.kind === "int" || dataType.kind === "uint") &&
    typeof json === "number" &&
    !Number.isInteger(json)
  ) {
    throw new MetadataError(`${path}: fill value ${json} is not an integer for ${dataType.name}`, {
      path,
    });
  }
  // Floats written as integers (`0`) and the v2 string forms parse with core's rules.
  return dataType.parseFillValue(json, path);
}

/**
 * A float (or complex part) fill value in v2's JSON form: v3's bit-pattern form
 * "0x..." (core writes it for NaNs with a payload or the sign bit) does not
 * exist in v2, which has only "NaN", "Infinity", "-Infinity" and numbers.
 */
function v2FloatJson(json: JsonValue, part: DataType): JsonValue {
  if (typeof json !== "string" || !/^0x/i.test(json)) return json;
  const v = part.parseFillValue(json, "fill_value").value as number;
  if (Number.isNaN(v)) return "NaN";
  return v === Number.POSITIVE_INFINITY
    ? "Infinity"
    : v === Number.NEGATIVE_INFINITY
      ? "-Infinity"
      : v;
}

/** The v2 JSON form of `fill` (`null` when the array has no fill value). */
export function v2FillValueJson(dataType: DataType, fill: FillValue | null): JsonValue {
  if (fill === null) return null;
  const json = dataType.fillValueToJSON(fill);
  if (dataType.name.startsWith("numpy.") && json === "NaT") return -(2n ** 63n);
  if (dataType.kind === "complex" && Array.isArray(json)) {
    const part = dataType.name === "complex64" ? float32 : float64;
    return json.map((c) => v2FloatJson(c, part));
  }
  // Core's r<N> is v2's |V<n>, whose fill value is base64 (v2 spec: fill_value).
  if (dataType.kind === "raw") return encodeBase64(fill.value as Uint8Array);
  if (dataType.kind === "float") return v2FloatJson(json, dataType);
  return json;
}

/**
 * The extension members of the v3 form of a v2 array whose fill value is
 * `json`: `v2_fill_value` when v3's `fill_value` cannot carry what v2 readers
 * make of a missing chunk (`null`, or an object array's fill that is not the
 * string itself).
 */
export function v2FillExtra(dataType: DataType, json: JsonValue, object: boolean): JsonObject {
  const exact =
    json !== null &&
    (!object || (dataType.kind === "string" && typeof json === "string")) &&
    (dataType.kind !== "complex" || zarrPython2ReadsComplex(json));
  return exact ? {} : { [V2_FILL_VALUE_FIELD]: { must_understand: false, value: json } };
}

/**
 * True when zarr-python 2 reads the complex fill value `json` (`[re, im]`) as
 * itself: it computes `re + 1j * im` in floating point, which makes the real
 * part NaN when `im` is infinite and loses the sign of a zero `im` (and of a
 * zero `re`). A missing chunk of such an array would read differently there,
 * so its chunks are all stored.
 */
function zarrPython2ReadsComplex(json: JsonValue): boolean {
  if (!Array.isArray(json) || json.length !== 2) return true;
  // v2 JSON floats: numbers, or "NaN", "Infinity", "-Infinity".
  const re = Number(json[0]);
  const im = Number(json[1]);
  // numpy: (0 + 1j) * (im + 0j) = (0 * im - 1 * 0) + (0 * 0 + 1 * im)j, then re + that.
  const real = re + (0 * im - 1 * 0);
  const imag = 0 + (0 * 0 + 1 * im);
  return Object.is(real, re) && Object.is(imag, im);
}

/**
 * The v2 `fill_value` for an array described by v3 metadata `meta`: the
 * recorded v2 value when there is one; `null` for the `bytes` data type
 * (zarr-python 2 cannot write a bytes fill value for an object array; every
 * chunk is stored instead); otherwise the fill value's v2 JSON form.
 */
export function v2FillJsonOf(meta: ArrayMetadataV3, dataType: DataType): JsonValue {
  if (keepsEveryChunk(meta)) return (meta.extra[V2_FILL_VALUE_FIELD] as JsonObject).value;
  if (dataType.kind === "bytes") return null;
  const fill = dataType.parseFillValue(meta.fill_value, "fill_value");
  if (dataType.kind === "string") return fill.value as string;
  return v2FillValueJson(dataType, fill);
}

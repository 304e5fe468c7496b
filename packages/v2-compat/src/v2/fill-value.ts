/**
 * v2 `fill_value` encoding (v2 spec "Fill value encoding"): numbers, booleans,
 * "NaN"/"Infinity"/"-Infinity" for floats, `[re, im]` for complex, base64 for
 * `S`, `V` and structured types, strings for `U`, integer counts for
 * datetimes, and `null` (no fill value: missing chunks read as zeros).
 *
 * @module
 */

import { type DataType, type FillValue, type JsonValue, MetadataError } from "@zarr/core";
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

/** The v2 JSON form of `fill` (`null` when the array has no fill value). */
export function v2FillValueJson(dataType: DataType, fill: FillValue | null): JsonValue {
  if (fill === null) return null;
  const json = dataType.fillValueToJSON(fill);
  if (dataType.name.startsWith("numpy.") && json === "NaT") return -(2n ** 63n);
  if (dataType.kind === "complex" && Array.isArray(json)) return json;
  // Core's r<N> is v2's |V<n>, whose fill value is base64 (v2 spec: fill_value).
  if (dataType.kind === "raw") return encodeBase64(fill.value as Uint8Array);
  if (typeof json === "string" && dataType.kind === "float" && /^0x/i.test(json)) {
    // A NaN with a payload: v2 has only "NaN".
    return "NaN";
  }
  return json;
}

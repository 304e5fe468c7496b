/**
 * The optional formatting hook of v2 data types: how one element prints in
 * `zarr get --json` (datetimes as decimal strings, bytes as latin-1 strings,
 * structured records as objects). Proposed for core's `DataType` contract as
 * `toJSONValue?(scalar)`; until then callers check for it with
 * {@link hasJsonValue}.
 *
 * @module
 */
import type { DataType, JsonValue, Scalar } from "@zarr/core";

/** A data type that knows the JSON form of its elements. */
export interface JsonValueDataType extends DataType {
  /** The JSON form of one element as returned by `getScalar`. */
  toJSONValue(scalar: Scalar): JsonValue;
}

/** True when `dataType` implements {@link JsonValueDataType.toJSONValue}. */
export function hasJsonValue(dataType: DataType): dataType is JsonValueDataType {
  return typeof (dataType as Partial<JsonValueDataType>).toJSONValue === "function";
}

/**
 * The v2 (numpy) data types.
 *
 * @module
 */
import type { DataType } from "@zarr/core";
import {
  datetime64Type,
  fixedLengthUtf32Type,
  nullTerminatedBytesType,
  structuredType,
  timedelta64Type,
} from "./v3-names.js";

export * from "./datetime.js";
export * from "./fixed-bytes.js";
export * from "./fixed-unicode.js";
export * from "./json-value.js";
export * from "./object.js";
export * from "./structured.js";
export * from "./typestr.js";
export * from "./v3-names.js";

/** The data types registered under their v3 names by the register module. */
export const V3_DATA_TYPES: readonly DataType[] = [
  datetime64Type,
  timedelta64Type,
  nullTerminatedBytesType,
  fixedLengthUtf32Type,
  structuredType,
];

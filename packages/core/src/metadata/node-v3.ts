/**
 * Reading a `zarr.json` document of either node type, and encoding documents.
 *
 * @module
 */

import type { DataType, FillValue, JsonObject } from "../dtypes/types.js";
import { encodeJson, parseJson } from "../json.js";
import { parseArrayMetadataV3 } from "./array-v3.js";
import { fieldError, isObject, required, show } from "./fields.js";
import { parseGroupMetadataV3 } from "./group-v3.js";
import type { ArrayMetadataV3, GroupMetadataV3 } from "./types.js";

/** A parsed `zarr.json`: an array (with its data type and fill value) or a group. */
export type NodeMetadataV3 =
  | { kind: "array"; meta: ArrayMetadataV3; dataType: DataType; fillValue: FillValue }
  | { kind: "group"; meta: GroupMetadataV3 };

/**
 * Parses the bytes of a `zarr.json` document (exact JSON: large integers stay
 * exact) and validates it as an array or group according to `node_type`.
 *
 * @param doc - the document's key (e.g. `"foo/zarr.json"`), used in errors.
 * @throws MetadataError for malformed JSON or invalid metadata, naming `doc`.
 */
export function parseNodeMetadataV3(bytes: Uint8Array, doc: string): NodeMetadataV3 {
  const json = parseJson(bytes, doc);
  if (!isObject(json))
    throw fieldError(doc, "(document)", `expected a JSON object, got ${show(json)}`);
  const format = required(json, doc, "zarr_format");
  if (format !== 3) throw fieldError(doc, "zarr_format", `expected 3, got ${show(format)}`);
  const nodeType = required(json, doc, "node_type");
  if (nodeType === "array") return { kind: "array", ...parseArrayMetadataV3(json, doc) };
  if (nodeType === "group") return { kind: "group", meta: parseGroupMetadataV3(json, doc) };
  throw fieldError(doc, "node_type", `expected "array" or "group", got ${show(nodeType)}`);
}

/** Encodes a metadata document as UTF-8 JSON indented by 2 spaces. */
export function encodeMetadata(obj: JsonObject): Uint8Array {
  return encodeJson(obj, 2);
}

/**
 * Reading a `zarr.json` document of either node type on the read path: the
 * JSON is parsed natively when that is exact, and the exact parser loads only
 * for documents that need it (see `json-fast.ts`).
 *
 * @module
 */

import type { DataType, FillValue, JsonValue } from "../dtypes/types.js";
import { parseJsonDocument } from "../json-fast.js";
import { parseArrayMetadataV3 } from "./array-v3.js";
import { fieldError, isObject, required, show } from "./fields.js";
import { parseGroupMetadataV3 } from "./group-v3.js";
import type { ArrayMetadataV3, GroupMetadataV3 } from "./types.js";

/** A parsed `zarr.json`: an array (with its data type and fill value) or a group. */
export type NodeMetadataV3 =
  | { kind: "array"; meta: ArrayMetadataV3; dataType: DataType; fillValue: FillValue }
  | { kind: "group"; meta: GroupMetadataV3 };

/** Validates a parsed `zarr.json` document as an array or group according to `node_type`. */
export function nodeMetadataFromJson(json: JsonValue, doc: string): NodeMetadataV3 {
  if (!isObject(json))
    throw fieldError(doc, "(document)", `expected a JSON object, got ${show(json)}`);
  const format = required(json, doc, "zarr_format");
  if (format !== 3) throw fieldError(doc, "zarr_format", `expected 3, got ${show(format)}`);
  const nodeType = required(json, doc, "node_type");
  if (nodeType === "array") return { kind: "array", ...parseArrayMetadataV3(json, doc) };
  if (nodeType === "group") return { kind: "group", meta: parseGroupMetadataV3(json, doc) };
  throw fieldError(doc, "node_type", `expected "array" or "group", got ${show(nodeType)}`);
}

/**
 * Parses the bytes of a `zarr.json` document (exact JSON: large integers stay
 * exact) and validates it as an array or group.
 *
 * @param doc - the document's key (e.g. `"foo/zarr.json"`), used in errors.
 * @throws MetadataError for malformed JSON or invalid metadata, naming `doc`.
 */
export async function readNodeMetadataV3(bytes: Uint8Array, doc: string): Promise<NodeMetadataV3> {
  return nodeMetadataFromJson(await parseJsonDocument(bytes, doc), doc);
}

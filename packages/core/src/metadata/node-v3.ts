/**
 * Reading a `zarr.json` document of either node type, and encoding documents.
 *
 * @module
 */

import { parseJson } from "../json.js";
import { type NodeMetadataV3, nodeMetadataFromJson } from "./read-node.js";

export type { NodeMetadataV3 };

/**
 * Parses the bytes of a `zarr.json` document (exact JSON: large integers stay
 * exact) and validates it as an array or group according to `node_type`.
 *
 * @param doc - the document's key (e.g. `"foo/zarr.json"`), used in errors.
 * @throws MetadataError for malformed JSON or invalid metadata, naming `doc`.
 */
export function parseNodeMetadataV3(bytes: Uint8Array, doc: string): NodeMetadataV3 {
  return nodeMetadataFromJson(parseJson(bytes, doc), doc);
}

export { encodeMetadata } from "./encode.js";

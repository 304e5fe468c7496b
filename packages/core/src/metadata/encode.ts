/**
 * Encoding metadata documents.
 *
 * @module
 */

import type { JsonObject } from "../dtypes/types.js";
import { encodeJson } from "../json-write.js";

/** Encodes a metadata document as UTF-8 JSON indented by 2 spaces. */
export function encodeMetadata(obj: JsonObject): Uint8Array {
  return encodeJson(obj, 2);
}

/**
 * Parsing, validation and serialization of v3 group metadata (v3 core spec,
 * "Group metadata").
 *
 * @module
 */

import type { JsonObject, JsonValue } from "../dtypes/types.js";
import { checkFormatAndType } from "./array-v3.js";
import { collectExtra, expectObject, fieldError, isObject, setOwn, show } from "./fields.js";
import type { GroupMetadataV3 } from "./types.js";

const GROUP_FIELDS: ReadonlySet<string> = new Set([
  "zarr_format",
  "node_type",
  "attributes",
  "consolidated_metadata",
]);

/**
 * Parses and validates a v3 group metadata document. `consolidated_metadata`
 * (zarr-python's inline consolidated metadata) must be an object or null and is
 * kept as found; its contents are interpreted elsewhere.
 *
 * @param doc - the document's key (e.g. `"foo/zarr.json"`), used in errors.
 * @throws MetadataError naming the document and the field.
 */
export function parseGroupMetadataV3(json: JsonValue, doc: string): GroupMetadataV3 {
  if (!isObject(json))
    throw fieldError(doc, "(document)", `expected a JSON object, got ${show(json)}`);
  checkFormatAndType(json, doc, "group");
  const extra = collectExtra(json, GROUP_FIELDS, doc);
  const meta: GroupMetadataV3 = {
    zarr_format: 3,
    node_type: "group",
    attributes:
      json.attributes === undefined ? {} : expectObject(json.attributes, doc, "attributes"),
    extra,
  };
  const consolidated = json.consolidated_metadata;
  if (consolidated !== undefined) {
    if (consolidated !== null && !isObject(consolidated)) {
      throw fieldError(
        doc,
        "consolidated_metadata",
        `expected an object or null, got ${show(consolidated)}`,
      );
    }
    meta.consolidated_metadata = consolidated;
  }
  return meta;
}

/**
 * The JSON document of `meta`: zarr_format, node_type, attributes,
 * consolidated_metadata (when present), then the preserved extras.
 */
export function serializeGroupMetadataV3(meta: GroupMetadataV3): JsonObject {
  const out: JsonObject = { zarr_format: 3, node_type: "group", attributes: meta.attributes };
  if (meta.consolidated_metadata !== undefined) {
    out.consolidated_metadata = meta.consolidated_metadata;
  }
  for (const [key, value] of Object.entries(meta.extra)) {
    if (!Object.hasOwn(out, key)) setOwn(out, key, value);
  }
  return out;
}

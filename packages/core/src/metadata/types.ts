/**
 * The v3 metadata documents as typed objects (v3 core spec, "Array metadata" and
 * "Group metadata"). Field names follow the JSON documents.
 *
 * @module
 */

import type { JsonObject, JsonValue } from "../dtypes/types.js";

/** An extension point value: `{name, configuration?}`. */
export interface NamedConfiguration {
  name: string;
  configuration?: JsonObject;
}

/** A v3 array metadata document (`zarr.json` with `node_type: "array"`). */
export interface ArrayMetadataV3 {
  zarr_format: 3;
  node_type: "array";
  /** Length of each dimension (non-negative safe integers). */
  shape: number[];
  /** The data type: a name or `{name, configuration}` (see `resolveDataType`). */
  data_type: JsonValue;
  chunk_grid: NamedConfiguration;
  chunk_key_encoding: NamedConfiguration;
  /** The fill value in its JSON form, as found in the document. */
  fill_value: JsonValue;
  /** Codec entries, each `{name, configuration?}` (string shorthands are expanded). */
  codecs: JsonObject[];
  /** User attributes (`{}` when absent from the document). */
  attributes: JsonObject;
  /** One name (or null) per dimension; absent when the document has none. */
  dimension_names?: (string | null)[];
  /** Present (always empty: non-empty stacks are unsupported) when the document has it. */
  storage_transformers?: JsonObject[];
  /** Unknown top-level members whose value carries `"must_understand": false`, preserved. */
  extra: JsonObject;
}

/** A v3 group metadata document (`zarr.json` with `node_type: "group"`). */
export interface GroupMetadataV3 {
  zarr_format: 3;
  node_type: "group";
  /** User attributes (`{}` when absent from the document). */
  attributes: JsonObject;
  /**
   * zarr-python's inline consolidated metadata (`{kind, must_understand, metadata}`
   * or `null`), kept as found; absent when the document has none.
   */
  consolidated_metadata?: JsonValue;
  /** Unknown top-level members whose value carries `"must_understand": false`, preserved. */
  extra: JsonObject;
}

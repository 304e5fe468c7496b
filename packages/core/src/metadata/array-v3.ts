/**
 * Parsing, validation and serialization of v3 array metadata (v3 core spec,
 * "Array metadata"). Every MUST of that section is checked here; extension
 * points (chunk grids other than `regular`, chunk key encodings other than
 * `default`/`v2`, codec configurations) are kept as found and validated where
 * they are resolved.
 *
 * @module
 */

import { resolveDataType } from "../dtypes/index.js";
import type { DataType, FillValue, JsonObject, JsonValue } from "../dtypes/types.js";
import { UnsupportedError } from "../errors.js";
import {
  collectExtra,
  expectArray,
  expectNonNegativeInteger,
  expectObject,
  fieldError,
  isObject,
  location,
  namedConfiguration,
  required,
  setOwn,
  show,
} from "./fields.js";
import type { ArrayMetadataV3, NamedConfiguration } from "./types.js";

const ARRAY_FIELDS: ReadonlySet<string> = new Set([
  "zarr_format",
  "node_type",
  "shape",
  "data_type",
  "chunk_grid",
  "chunk_key_encoding",
  "fill_value",
  "codecs",
  "attributes",
  "dimension_names",
  "storage_transformers",
]);

/** The result of {@link parseArrayMetadataV3}. */
export interface ParsedArrayMetadataV3 {
  meta: ArrayMetadataV3;
  dataType: DataType;
  fillValue: FillValue;
}

/** Checks `zarr_format` (must be 3) and `node_type` (must be `expected`). */
export function checkFormatAndType(
  obj: JsonObject,
  doc: string,
  expected: "array" | "group",
): void {
  const format = required(obj, doc, "zarr_format");
  if (format !== 3) throw fieldError(doc, "zarr_format", `expected 3, got ${show(format)}`);
  const nodeType = required(obj, doc, "node_type");
  if (nodeType !== expected) {
    throw fieldError(doc, "node_type", `expected "${expected}", got ${show(nodeType)}`);
  }
}

/**
 * Parses and validates a v3 array metadata document.
 *
 * Decisions where the spec leaves room: codec entries may be given as a bare
 * name string (the shorthand of newer spec revisions; expanded to `{name}`);
 * codec objects may carry `must_understand` besides `name` and `configuration`;
 * `dimension_names: null` is read as absent. The returned `meta` shares nested
 * values (attributes, configurations) with `json`.
 *
 * @param json - the parsed document.
 * @param doc - the document's key (e.g. `"foo/zarr.json"`), used in errors.
 * @throws MetadataError naming the document and the field.
 * @throws UnsupportedError for non-empty `storage_transformers`.
 * @throws NotRegisteredError for an unknown data type.
 */
export function parseArrayMetadataV3(json: JsonValue, doc: string): ParsedArrayMetadataV3 {
  if (!isObject(json))
    throw fieldError(doc, "(document)", `expected a JSON object, got ${show(json)}`);
  checkFormatAndType(json, doc, "array");
  const extra = collectExtra(json, ARRAY_FIELDS, doc);

  const shape = parseShape(required(json, doc, "shape"), doc);
  const dataType = resolveDataType(required(json, doc, "data_type"), location(doc, "data_type"));
  const chunkGrid = parseChunkGrid(required(json, doc, "chunk_grid"), shape, doc);
  const chunkKeyEncoding = parseChunkKeyEncoding(required(json, doc, "chunk_key_encoding"), doc);
  const fillJson = required(json, doc, "fill_value");
  const fillValue = dataType.parseFillValue(fillJson, location(doc, "fill_value"));
  const codecs = parseCodecs(required(json, doc, "codecs"), doc);

  const meta: ArrayMetadataV3 = {
    zarr_format: 3,
    node_type: "array",
    shape,
    data_type: json.data_type,
    chunk_grid: chunkGrid,
    chunk_key_encoding: chunkKeyEncoding,
    fill_value: fillJson,
    codecs,
    attributes:
      json.attributes === undefined ? {} : expectObject(json.attributes, doc, "attributes"),
    extra,
  };
  const dimensionNames = parseDimensionNames(json.dimension_names, shape.length, doc);
  if (dimensionNames) meta.dimension_names = dimensionNames;
  const transformers = parseStorageTransformers(json.storage_transformers, doc);
  if (transformers) meta.storage_transformers = transformers;
  return { meta, dataType, fillValue };
}

function parseShape(value: JsonValue, doc: string): number[] {
  const arr = expectArray(value, doc, "shape");
  return arr.map((n, i) => expectNonNegativeInteger(n, doc, `shape[${i}]`));
}

function parseChunkGrid(value: JsonValue, shape: number[], doc: string): NamedConfiguration {
  const grid = namedConfiguration(value, doc, "chunk_grid");
  if (grid.name !== "regular") return grid;
  if (grid.configuration === undefined) {
    throw fieldError(doc, "chunk_grid.configuration", 'required for the "regular" chunk grid');
  }
  const config = grid.configuration;
  for (const key of Object.keys(config)) {
    if (key !== "chunk_shape")
      throw fieldError(doc, `chunk_grid.configuration.${key}`, "unknown member");
  }
  const field = "chunk_grid.configuration.chunk_shape";
  if (config.chunk_shape === undefined) throw fieldError(doc, field, "required field is missing");
  const chunkShape = expectArray(config.chunk_shape, doc, field);
  if (chunkShape.length !== shape.length) {
    throw fieldError(
      doc,
      field,
      `has ${chunkShape.length} dimensions but shape has ${shape.length}`,
    );
  }
  chunkShape.forEach((c, i) => {
    const n = expectNonNegativeInteger(c, doc, `${field}[${i}]`);
    // v3 core: chunk lengths are non-zero where the array's dimension is non-zero.
    if (n === 0 && shape[i] !== 0) {
      throw fieldError(
        doc,
        `${field}[${i}]`,
        "must be positive (the dimension has non-zero length)",
      );
    }
  });
  return grid;
}

function parseChunkKeyEncoding(value: JsonValue, doc: string): NamedConfiguration {
  const encoding = namedConfiguration(value, doc, "chunk_key_encoding");
  if (encoding.name !== "default" && encoding.name !== "v2") return encoding;
  const config = encoding.configuration;
  if (config === undefined) return encoding;
  for (const key of Object.keys(config)) {
    if (key !== "separator") {
      throw fieldError(doc, `chunk_key_encoding.configuration.${key}`, "unknown member");
    }
  }
  const sep = config.separator;
  if (sep !== undefined && sep !== "/" && sep !== ".") {
    throw fieldError(
      doc,
      "chunk_key_encoding.configuration.separator",
      `must be "/" or ".", got ${show(sep)}`,
    );
  }
  return encoding;
}

function parseCodecs(value: JsonValue, doc: string): JsonObject[] {
  const arr = expectArray(value, doc, "codecs");
  // v3 core: an array -> bytes codec is required, so the list cannot be empty.
  if (arr.length === 0) throw fieldError(doc, "codecs", "must not be empty");
  return arr.map((entry, i) =>
    typeof entry === "string"
      ? { name: entry }
      : namedConfiguration(entry, doc, `codecs[${i}]`, ["must_understand"]),
  );
}

function parseDimensionNames(
  value: JsonValue | undefined,
  ndim: number,
  doc: string,
): (string | null)[] | undefined {
  if (value === undefined || value === null) return undefined;
  const arr = expectArray(value, doc, "dimension_names");
  if (arr.length !== ndim) {
    throw fieldError(
      doc,
      "dimension_names",
      `has ${arr.length} names but shape has ${ndim} dimensions`,
    );
  }
  return arr.map((name, i) => {
    if (name !== null && typeof name !== "string") {
      throw fieldError(
        doc,
        `dimension_names[${i}]`,
        `expected a string or null, got ${show(name)}`,
      );
    }
    return name;
  });
}

function parseStorageTransformers(
  value: JsonValue | undefined,
  doc: string,
): JsonObject[] | undefined {
  if (value === undefined) return undefined;
  const arr = expectArray(value, doc, "storage_transformers");
  const transformers = arr.map((t, i) => namedConfiguration(t, doc, `storage_transformers[${i}]`));
  if (transformers.length > 0) {
    const loc = location(doc, "storage_transformers");
    const names = transformers.map((t) => `'${t.name}'`).join(", ");
    throw new UnsupportedError(
      `${loc}: storage transformer${transformers.length > 1 ? "s" : ""} ${names} ${transformers.length > 1 ? "are" : "is"} not supported`,
      { path: loc },
    );
  }
  return transformers;
}

/**
 * The JSON document of `meta` in the conventional key order (zarr_format,
 * node_type, shape, data_type, chunk_grid, chunk_key_encoding, fill_value, codecs,
 * attributes, dimension_names, storage_transformers, then the preserved extras).
 */
export function serializeArrayMetadataV3(meta: ArrayMetadataV3): JsonObject {
  const out: JsonObject = {
    zarr_format: 3,
    node_type: "array",
    shape: [...meta.shape],
    data_type: meta.data_type,
    chunk_grid: namedToJson(meta.chunk_grid),
    chunk_key_encoding: namedToJson(meta.chunk_key_encoding),
    fill_value: meta.fill_value,
    codecs: meta.codecs,
    attributes: meta.attributes,
  };
  if (meta.dimension_names !== undefined) out.dimension_names = meta.dimension_names;
  if (meta.storage_transformers !== undefined) out.storage_transformers = meta.storage_transformers;
  for (const [key, value] of Object.entries(meta.extra)) {
    if (!Object.hasOwn(out, key)) setOwn(out, key, value);
  }
  return out;
}

function namedToJson(value: NamedConfiguration): JsonObject {
  return value.configuration === undefined
    ? { name: value.name }
    : { name: value.name, configuration: value.configuration };
}

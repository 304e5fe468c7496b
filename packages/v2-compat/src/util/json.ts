/**
 * JSON documents the way zarr-python 2 writes them (`json.dumps(indent=4,
 * sort_keys=True, ensure_ascii=True)`), so its readers and byte comparisons
 * agree, and reading with exact 64-bit integers through core's parser.
 *
 * @module
 */
import { type JsonObject, type JsonValue, MetadataError } from "@zarr/core";
import { parseJson, stringifyJson } from "@zarr/core/internal";

function sortKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const out: JsonObject = {};
    for (const k of Object.keys(value).sort()) {
      // Defined, not assigned: a "__proto__" key is data (assignment would set the prototype).
      Object.defineProperty(out, k, {
        value: sortKeys(value[k]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

/** Sorted keys, 4-space indent, non-ASCII escaped as `\uXXXX` (core writes -0 as `-0.0`). */
export function writeV2Json(value: JsonValue): Uint8Array {
  const text = stringifyJson(sortKeys(value), 4).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return new TextEncoder().encode(text);
}

/** Parses a JSON object document, naming `key` on error. */
export function readJsonObject(bytes: Uint8Array, key: string): JsonObject {
  const value = parseJson(bytes, key);
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new MetadataError(`${key}: expected a JSON object`, { path: key });
  }
  return value;
}

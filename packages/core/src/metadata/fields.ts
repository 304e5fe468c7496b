/**
 * Small validators for metadata fields. Every error is a MetadataError whose
 * message and `path` name the document and the field: `a/zarr.json: shape`.
 *
 * @module
 */

import { showJson } from "../dtypes/scalar-json.js";
import type { JsonObject, JsonValue } from "../dtypes/types.js";
import { MetadataError } from "../errors.js";

/** `"<doc>: <field>"`, the location used in messages and as the error's `path`. */
export function location(doc: string, field: string): string {
  return `${doc}: ${field}`;
}

/** A MetadataError about `field` of the document `doc`. */
export function fieldError(doc: string, field: string, reason: string): MetadataError {
  const loc = location(doc, field);
  return new MetadataError(`${loc}: ${reason}`, { path: loc });
}

/** Short rendering of a JSON value for messages. */
export const show = showJson;

/** True for a JSON object (not null, not an array). */
export function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads a required member; throws when missing. */
export function required(obj: JsonObject, doc: string, field: string): JsonValue {
  const value = obj[field];
  if (value === undefined) throw fieldError(doc, field, "required field is missing");
  return value;
}

/** Checks that `value` is an object. */
export function expectObject(value: JsonValue, doc: string, field: string): JsonObject {
  if (!isObject(value)) throw fieldError(doc, field, `expected an object, got ${show(value)}`);
  return value;
}

/** Checks that `value` is a string. */
export function expectString(value: JsonValue | undefined, doc: string, field: string): string {
  if (typeof value !== "string") {
    throw fieldError(
      doc,
      field,
      `expected a string, got ${value === undefined ? "nothing" : show(value)}`,
    );
  }
  return value;
}

/** Checks that `value` is an array. */
export function expectArray(value: JsonValue, doc: string, field: string): JsonValue[] {
  if (!Array.isArray(value)) throw fieldError(doc, field, `expected an array, got ${show(value)}`);
  return value;
}

/** Checks that `value` is a non-negative safe integer. */
export function expectNonNegativeInteger(value: JsonValue, doc: string, field: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw fieldError(doc, field, `expected a non-negative integer, got ${show(value)}`);
  }
  return value;
}

/**
 * Validates an extension point value `{name, configuration?}` (configuration an
 * object when present) and returns a copy with only those members.
 */
export function namedConfiguration(
  value: JsonValue,
  doc: string,
  field: string,
  allowedExtra: readonly string[] = [],
): { name: string; configuration?: JsonObject } & JsonObject {
  const obj = expectObject(value, doc, field);
  const name = expectString(obj.name, doc, `${field}.name`);
  const out: { name: string; configuration?: JsonObject } & JsonObject = { name };
  if (obj.configuration !== undefined) {
    out.configuration = expectObject(obj.configuration, doc, `${field}.configuration`);
  }
  for (const key of Object.keys(obj)) {
    if (key === "name" || key === "configuration") continue;
    if (!allowedExtra.includes(key)) {
      throw fieldError(doc, `${field}.${key}`, "unknown member");
    }
    out[key] = obj[key];
  }
  return out;
}

/**
 * Sorts unknown top-level members: those whose value is an object with
 * `"must_understand": false` go to `extra`; any other is an error (v3 core spec:
 * implementations must fail on unknown metadata fields).
 */
export function collectExtra(obj: JsonObject, known: ReadonlySet<string>, doc: string): JsonObject {
  const extra: JsonObject = {};
  for (const key of Object.keys(obj)) {
    if (known.has(key)) continue;
    const value = obj[key];
    if (isObject(value) && value.must_understand === false) {
      setOwn(extra, key, value);
    } else {
      throw fieldError(
        doc,
        key,
        'unknown metadata field (only objects with "must_understand": false may be ignored)',
      );
    }
  }
  return extra;
}

/** Sets an own member, safely even for the key `__proto__`. */
export function setOwn(obj: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

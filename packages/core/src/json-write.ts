/**
 * Writing JSON exactly: bigints as bare integers and non-finite numbers as the
 * `NaN`/`Infinity`/`-Infinity` tokens Python's `json` reads (as zarr-python
 * writes them). Kept apart from the exact parser (`json.ts`) so that error
 * messages can render JSON without loading the parser.
 *
 * @module
 */

import type { JsonValue } from "./dtypes/types.js";
import { MetadataError } from "./errors.js";

const utf8Encoder = new TextEncoder();

/**
 * Serializes a JSON value like `JSON.stringify(value, null, indent)`, except that
 * bigints are written as bare integers and `-0` as `-0.0`, so float fill values keep
 * their sign in every reader (parsers that return integers for integer tokens,
 * such as Python's `json`, read `-0` as the integer 0). Object entries whose value is `undefined` are omitted.
 *
 * Non-finite numbers are written `NaN`, `Infinity` and `-Infinity`, as Python's
 * `json` writes them (zarr-python writes attributes so; strict JSON parsers such
 * as `JSON.parse` reject them).
 *
 * @throws MetadataError for values that are not JSON.
 */
export function stringifyJson(value: JsonValue, indent = 2): string {
  const out: string[] = [];
  writeValue(value, out, indent > 0 ? " ".repeat(indent) : "", "\n", new Set());
  return out.join("");
}

function writeValue(
  value: JsonValue,
  out: string[],
  step: string,
  newline: string,
  seen: Set<object>,
): void {
  switch (typeof value) {
    case "string":
      out.push(JSON.stringify(value));
      return;
    case "number":
      // Non-finite numbers (attributes) as Python's json writes them; fill values
      // never get here as numbers (their JSON forms are strings).
      if (!Number.isFinite(value)) out.push(Number.isNaN(value) ? "NaN" : String(value));
      else out.push(Object.is(value, -0) ? "-0.0" : String(value));
      return;
    case "bigint":
      out.push(value.toString());
      return;
    case "boolean":
      out.push(value ? "true" : "false");
      return;
    case "object": {
      if (value === null) {
        out.push("null");
        return;
      }
      if (seen.has(value)) throw new MetadataError("cannot write a cyclic structure as JSON");
      seen.add(value);
      const inner = step ? newline + step : "";
      const close = step ? newline : "";
      if (Array.isArray(value)) {
        if (value.length === 0) {
          out.push("[]");
        } else {
          out.push("[");
          for (let i = 0; i < value.length; i++) {
            if (i > 0) out.push(",");
            out.push(inner);
            const item = value[i];
            writeValue(item === undefined ? null : item, out, step, inner, seen);
          }
          out.push(close, "]");
        }
      } else {
        let first = true;
        out.push("{");
        for (const key of Object.keys(value)) {
          const item = value[key];
          if (item === undefined) continue;
          if (!first) out.push(",");
          first = false;
          out.push(inner, JSON.stringify(key), step ? ": " : ":");
          writeValue(item, out, step, inner, seen);
        }
        out.push(first ? "}" : `${close}}`);
      }
      seen.delete(value);
      return;
    }
    default:
      throw new MetadataError(`cannot write a value of type ${typeof value} as JSON`);
  }
}

/** {@link stringifyJson} encoded as UTF-8. */
export function encodeJson(value: JsonValue, indent = 2): Uint8Array {
  return utf8Encoder.encode(stringifyJson(value, indent));
}

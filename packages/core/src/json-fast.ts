/**
 * The common case of reading a metadata document, without the exact parser:
 * `JSON.parse` is exact when no integer can exceed 2^53 (no run of 16 or more
 * digits), the document nests at most {@link MAX_JSON_DEPTH} levels and uses no
 * bare `NaN`/`Infinity` tokens (which `JSON.parse` rejects). Everything else
 * goes to the exact parser in `json.ts`, which {@link parseJsonDocument} loads
 * only then, so an application that reads ordinary documents does not ship it.
 *
 * @module
 */

import type { JsonValue } from "./dtypes/types.js";
import { MetadataError } from "./errors.js";
import { loadPart } from "./util/load.js";

/** Nesting deeper than this is rejected (instead of overflowing the call stack). */
export const MAX_JSON_DEPTH = 1000;

const utf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const LONG_DIGIT_RUN = /[0-9]{16}/;

/** The document's text, decoded as strict UTF-8, without a leading byte order mark. */
export function jsonText(input: string | Uint8Array, path: string): string {
  let text: string;
  if (typeof input === "string") {
    text = input;
  } else {
    try {
      text = utf8Decoder.decode(input);
    } catch (cause) {
      throw new MetadataError(`${path}: metadata is not valid UTF-8`, { path, cause });
    }
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * `JSON.parse(text)` when that is exact and within the nesting limit;
 * `undefined` when the exact parser must decide (long integers, deep nesting,
 * non-finite tokens, or a syntax error, which it reports with line and column).
 */
export function parseNative(text: string): JsonValue | undefined {
  if (LONG_DIGIT_RUN.test(text) || mayNestTooDeep(text)) return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

/**
 * Parses a metadata document as `parseJson` does (exact integers, the
 * non-finite tokens Python writes), loading the exact parser only when the
 * native one cannot be trusted with `input`.
 *
 * @throws MetadataError naming `path` when the input is not valid UTF-8 or JSON.
 */
export async function parseJsonDocument(
  input: string | Uint8Array,
  path: string,
): Promise<JsonValue> {
  const text = jsonText(input, path);
  const fast = parseNative(text);
  if (fast !== undefined) return fast;
  const { parseJson } = await loadPart("exact JSON parser", () => import("./json.js"));
  return parseJson(text, path);
}

/**
 * False when `text` certainly nests at most {@link MAX_JSON_DEPTH} levels: it
 * has at most that many `[`/`{` at all (the common case, one cheap pass), or
 * its bracket depth outside strings stays within the limit.
 */
function mayNestTooDeep(text: string): boolean {
  let openers = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) openers++;
  }
  if (openers <= MAX_JSON_DEPTH) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * Store key and prefix validation (v3 core: "Abstract store interface").
 *
 * Core validates every key once, in {@link resolveStore}, so that no store ever
 * receives a key that could name something outside its root: no empty, `.` or
 * `..` segment, no leading `/`, no backslash (a separator on Windows), no NUL or
 * other C0 control character, no lone UTF-16 surrogate (which would be re-encoded
 * as U+FFFD and alias another key). Spaces and any other Unicode are valid.
 *
 * @module
 */

import { InvalidKeyError } from "../errors.js";

/** Why `key` is not a valid store key, or `undefined` when it is. One pass, no allocation. */
function keyProblem(key: string): string | undefined {
  const n = key.length;
  if (n === 0) return "key is empty";
  if (key.charCodeAt(0) === SLASH) return "key starts with '/'";
  if (key.charCodeAt(n - 1) === SLASH) return "key ends with '/'";
  let segmentStart = 0;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? key.charCodeAt(i) : SLASH;
    if (c === SLASH) {
      const problem = segmentProblem(key, segmentStart, i);
      if (problem !== undefined) return problem;
      segmentStart = i + 1;
    } else if (c < 0x20) {
      return `key contains the control character U+${c.toString(16).toUpperCase().padStart(4, "0")}`;
    } else if (c === BACKSLASH) {
      return "key contains a backslash";
    } else if (c >= 0xd800 && c <= 0xdfff) {
      // A high surrogate must be followed by a low one; a low one must follow a high one.
      const next = i + 1 < n ? key.charCodeAt(i + 1) : 0;
      if (c > 0xdbff || next < 0xdc00 || next > 0xdfff) {
        return "key contains a lone UTF-16 surrogate";
      }
      i++;
    }
  }
  return undefined;
}

const SLASH = 0x2f;
const BACKSLASH = 0x5c;
const DOT = 0x2e;

function segmentProblem(key: string, start: number, end: number): string | undefined {
  const length = end - start;
  if (length === 0) return "key contains an empty segment ('//')";
  if (length <= 2 && key.charCodeAt(start) === DOT && key.charCodeAt(end - 1) === DOT) {
    return `key contains a '${key.slice(start, end)}' segment`;
  }
  return undefined;
}

function describe(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/**
 * Returns `key` when it is a valid store key; throws an {@link InvalidKeyError}
 * naming the key and the reason otherwise.
 *
 * @example
 * validateKey("group/array/c/0/1"); // "group/array/c/0/1"
 * validateKey("a/../b"); // throws: invalid store key "a/../b": key contains a '..' segment
 */
export function validateKey(key: string): string {
  if (typeof key !== "string") {
    throw new InvalidKeyError(`invalid store key ${describe(key)}: key is not a string`);
  }
  const problem = keyProblem(key);
  if (problem !== undefined) {
    throw new InvalidKeyError(`invalid store key ${describe(key)}: ${problem}`, { path: key });
  }
  return key;
}

/**
 * Returns `prefix` when it is a valid store prefix: `""` (the whole store) or a
 * valid key followed by `/`. Throws an {@link InvalidKeyError} otherwise.
 *
 * @example
 * validatePrefix("");        // ""
 * validatePrefix("a/b/");    // "a/b/"
 * validatePrefix("a/b");     // throws: prefix must end with '/'
 */
export function validatePrefix(prefix: string): string {
  if (typeof prefix !== "string") {
    throw new InvalidKeyError(`invalid store prefix ${describe(prefix)}: prefix is not a string`);
  }
  if (prefix === "") return prefix;
  if (!prefix.endsWith("/")) {
    throw new InvalidKeyError(
      `invalid store prefix ${describe(prefix)}: prefix must be "" or end with '/'`,
      { path: prefix },
    );
  }
  const body = prefix.slice(0, -1);
  const problem = body.endsWith("/")
    ? "prefix contains an empty segment ('//')"
    : keyProblem(body)?.replace(/^key/, "prefix");
  if (problem !== undefined) {
    throw new InvalidKeyError(`invalid store prefix ${describe(prefix)}: ${problem}`, {
      path: prefix,
    });
  }
  return prefix;
}

/** True when `key` is a valid store key (see {@link validateKey}). */
export function isValidKey(key: string): boolean {
  return typeof key === "string" && keyProblem(key) === undefined;
}

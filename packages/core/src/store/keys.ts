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

/* biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point */
const CONTROL_CHAR = /[\u0000-\u001f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `key` is not a valid store key, or `undefined` when it is. */
function keyProblem(key: string): string | undefined {
  if (key.length === 0) return "key is empty";
  if (key.startsWith("/")) return "key starts with '/'";
  if (key.endsWith("/")) return "key ends with '/'";
  if (key.includes("\\")) return "key contains a backslash";
  const control = CONTROL_CHAR.exec(key);
  if (control) {
    const code = control[0].charCodeAt(0).toString(16).padStart(4, "0");
    return `key contains the control character U+${code.toUpperCase()}`;
  }
  if (LONE_SURROGATE.test(key)) return "key contains a lone UTF-16 surrogate";
  for (const segment of key.split("/")) {
    if (segment === "") return "key contains an empty segment ('//')";
    if (segment === "." || segment === "..") return `key contains a '${segment}' segment`;
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

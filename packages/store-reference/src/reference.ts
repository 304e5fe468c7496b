/**
 * One reference: what a key of a kerchunk reference set resolves to (kerchunk
 * "spec.md": a value is inline data, `[url]` a whole file, or
 * `[url, offset, length]` a byte range of one), and target URL resolution.
 *
 * @module
 */

import { StoreError } from "@zarr/core";
import { validateKey } from "@zarr/core/store";

/** A resolved reference. `url` undefined means the store's `target` option (a `null` URL). */
export type Reference =
  | { kind: "inline"; bytes: Uint8Array }
  | { kind: "file"; url: string | undefined }
  | { kind: "range"; url: string | undefined; offset: number; length: number };

/** A reference set is malformed at `key`: a `StoreError` whose `path` is the key. */
export function badReference(key: string, reason: string, cause?: unknown): StoreError {
  return new StoreError(`reference ${JSON.stringify(key)}: ${reason}`, { path: key, cause });
}

/** Throws a `StoreError` naming the key when it could not be a store key (`..`, `/x`, `a//b`, ...). */
export function checkReferenceKey(key: string): void {
  try {
    validateKey(key);
  } catch (cause) {
    throw badReference(key, `is not a valid store key (${(cause as Error).message})`, cause);
  }
}

const encoder = new TextEncoder();

/**
 * Inline data from a reference value string: `base64:` followed by base64
 * (standard alphabet, padding optional), otherwise the string's UTF-8 bytes.
 */
export function inlineBytes(key: string, value: string): Uint8Array {
  if (!value.startsWith("base64:")) return encoder.encode(value);
  const text = value.slice(7).replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.replace(/=+$/, "").length % 4 === 1) {
    throw badReference(key, "inline base64 data is malformed");
  }
  const binary = atob(text.padEnd(Math.ceil(text.length / 4) * 4, "="));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A non-negative safe integer from a reference's offset or length. */
export function referenceCount(key: string, what: string, value: unknown): number {
  const n = typeof value === "bigint" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) {
    throw badReference(key, `${what} must be a non-negative integer, got ${String(value)}`);
  }
  return n;
}

/**
 * The reference for `[url]` / `[url, offset, length]` (`url` a string or
 * `null`). Other list shapes are a `StoreError` naming the key.
 */
export function listReference(key: string, value: readonly unknown[]): Reference {
  const [url] = value;
  if (url !== null && typeof url !== "string") {
    throw badReference(key, `URL must be a string or null, got ${JSON.stringify(url)}`);
  }
  const target = url ?? undefined;
  if (value.length === 1) return { kind: "file", url: target };
  if (value.length === 3) {
    return {
      kind: "range",
      url: target,
      offset: referenceCount(key, "offset", value[1]),
      length: referenceCount(key, "length", value[2]),
    };
  }
  throw badReference(
    key,
    `a list reference is [url] or [url, offset, length], got ${value.length} items`,
  );
}

const SCHEME = /^([a-z][a-z0-9+.-]+):/i;

/**
 * Where a reference's URL points: URLs with a scheme and absolute paths as
 * they are; a relative path is joined to `base` (the folder holding the
 * reference file), and may not hold `.`/`..` segments, backslashes or empty
 * segments (a `StoreError` naming the key), so references cannot climb out of
 * that folder.
 */
export function resolveTargetUrl(key: string, url: string, base: string | undefined): string {
  if (url === "") throw badReference(key, "target URL is empty");
  if (SCHEME.test(url) || url.startsWith("/") || /^[A-Za-z]:[\\/]/.test(url)) return url;
  // Segments are checked as written and percent-decoded: a URL base (and `file:` paths)
  // decode `%2e%2e` to `..` and `%2F` to `/`.
  const segments = url.split("/").flatMap((s) => [s, decodedSegment(s)]);
  const unsafe = (s: string) => s === "" || s === "." || s === ".." || /[\\/]/.test(s);
  if (url.includes("\\") || segments.some(unsafe)) {
    throw badReference(
      key,
      `relative target ${JSON.stringify(url)} escapes the reference's folder`,
    );
  }
  if (base === undefined || base === "") return url;
  return base.endsWith("/") ? base + url : `${base}/${url}`;
}

/** A path segment percent-decoded (as written when it holds a malformed escape). */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The folder of a reference file's URL or path (`""` when it has none). */
export function parentOf(location: string): string {
  const end = location.search(/[?#]/);
  const path = end < 0 ? location : location.slice(0, end);
  const slash = path.replace(/\/+$/, "").lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash + 1);
}

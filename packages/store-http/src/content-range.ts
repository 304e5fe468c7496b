/**
 * Parsing `Content-Range` (RFC 9110 14.4): `bytes first-last/complete`,
 * `bytes first-last/*`, or `bytes *\/complete` for unsatisfiable ranges.
 *
 * @module
 */

/** A parsed `Content-Range` header. */
export interface ContentRange {
  /** First and last byte positions (inclusive), absent for `bytes *\/N`. */
  first?: number;
  last?: number;
  /** The complete length, when the server gave it. */
  size?: number;
}

const RANGE = /^bytes\s+(?:(\d+)-(\d+)|\*)\/(\d+|\*)\s*$/i;

/** Parses `header`; `undefined` when absent or malformed. */
export function parseContentRange(header: string | null): ContentRange | undefined {
  if (header === null) return undefined;
  const m = RANGE.exec(header);
  if (!m) return undefined;
  const num = (s: string | undefined) => (s === undefined || s === "*" ? undefined : Number(s));
  const out: ContentRange = { first: num(m[1]), last: num(m[2]), size: num(m[3]) };
  for (const v of [out.first, out.last, out.size]) {
    if (v !== undefined && !Number.isSafeInteger(v)) return undefined;
  }
  if (out.first !== undefined && out.last !== undefined && out.last < out.first) return undefined;
  if (out.size !== undefined && out.last !== undefined && out.last >= out.size) return undefined;
  return out;
}

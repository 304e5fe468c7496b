/**
 * Byte ranges as HTTP `Range` headers, and checking what a server sent back.
 *
 * @module
 */

import { type ByteRange, isSuffixRange } from "@zarr/core";

/**
 * True when `range` selects no bytes whatever the value's size (`length: 0`,
 * `suffix: 0`): HTTP cannot express it, so existence is checked instead.
 */
export function isEmptyRange(range: ByteRange | undefined): boolean {
  if (range === undefined) return false;
  return isSuffixRange(range) ? range.suffix === 0 : range.length === 0;
}

/** The `Range` header for a non-empty `range` (`bytes=a-b`, `bytes=a-`, `bytes=-n`). */
export function rangeHeader(range: ByteRange | undefined): string | undefined {
  if (range === undefined) return undefined;
  if (isSuffixRange(range)) return `bytes=-${range.suffix}`;
  if (range.length === undefined) {
    return range.offset === 0 ? undefined : `bytes=${range.offset}-`;
  }
  return `bytes=${range.offset}-${range.offset + range.length - 1}`;
}

/** A parsed `Content-Range: bytes first-last/total` (total `undefined` when `*`). */
export interface ContentRange {
  first: number;
  last: number;
  total: number | undefined;
}

/** Parses a `Content-Range` response header; `undefined` when absent or malformed. */
export function parseContentRange(header: string | undefined): ContentRange | undefined {
  const match = header === undefined ? null : /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header.trim());
  if (!match) return undefined;
  const first = Number(match[1]);
  const last = Number(match[2]);
  const total = match[3] === "*" ? undefined : Number(match[3]);
  if (last < first || (total !== undefined && last >= total)) return undefined;
  return { first, last, total };
}

/**
 * Where a partial response for `range` must start, given the total size the
 * server reported: the check that the server served the bytes that were asked for.
 */
export function expectedStart(range: ByteRange, total: number): number {
  return isSuffixRange(range) ? Math.max(0, total - range.suffix) : range.offset;
}

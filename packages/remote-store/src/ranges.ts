/**
 * Byte ranges as HTTP `Range` headers, and planning how to read the response
 * of a ranged (or whole) object GET: what it may be, and which bytes to keep.
 *
 * @module
 */

import { type ByteRange, isSuffixRange } from "@zarr/core/store";
import type { BodyPlan } from "./body.js";

/**
 * True when `range` selects no bytes whatever the value's size (`length: 0`,
 * `suffix: 0`): HTTP cannot express it, so existence is checked instead.
 */
export function isEmptyRange(range: ByteRange | undefined): boolean {
  if (range === undefined) return false;
  return isSuffixRange(range) ? range.suffix === 0 : range.length === 0;
}

/**
 * The `Range` header for a non-empty `range` (`bytes=a-b`, `bytes=a-`,
 * `bytes=-n`); `undefined` when the range is the whole value (`{offset: 0}`).
 */
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

/** Why a response is refused before its body is read. */
export interface Refusal {
  refuse: string;
  /** The response is larger than the caller's own limit (`StoreOptions.maxBytes`): a `ValueTooLargeError`. */
  overLimit?: boolean;
}

/** A response to an object GET, as {@link planObjectRead} needs it. */
export interface ObjectResponse {
  /** HTTP status (206 for a partial response). */
  status: number | undefined;
  /** `Content-Length`, when the client gave one. */
  contentLength: number | undefined;
  /** `Content-Range`. */
  contentRange: string | undefined;
  /** `Content-Encoding`. */
  contentEncoding: string | undefined;
}

/** What the read asked for and what it accepts. */
export interface ObjectRead {
  /** The range asked for (non-empty), or `undefined` for the whole value. */
  range: ByteRange | undefined;
  /** The caller's own limit (`StoreOptions.maxBytes`), if any. */
  maxBytes: number | undefined;
  /** The store's cap for reads without `maxBytes`, and for whole values sent for a suffix range. */
  maxBodyBytes: number;
  /**
   * The client may decode `Content-Encoding` itself, so a partial response
   * with an encoding is refused: its bytes would not be the range's.
   */
  refuseEncodedRanges?: boolean;
}

/**
 * How to read the body of an object GET for `read`: its bound and the bytes
 * to keep, or why the response is refused before its body is read (a partial
 * response that is not the range asked for, an announced length the read
 * cannot accept). A server that ignored `Range` (200) is read up to the end
 * of the range only (or, for a suffix, whole within `maxBodyBytes`).
 */
export function planObjectRead(read: ObjectRead, response: ObjectResponse): BodyPlan | Refusal {
  const { range, maxBytes, maxBodyBytes } = read;
  const { status, contentRange, contentEncoding } = response;
  const limit = maxBytes ?? maxBodyBytes;
  const callersMax = maxBytes !== undefined;
  const limitWhy = callersMax
    ? "the most this read accepts (options.maxBytes)"
    : "the most a read without options.maxBytes accepts (maxBodyBytes)";
  const encoded = contentEncoding !== undefined && contentEncoding !== "identity";
  const length =
    !encoded && Number.isSafeInteger(response.contentLength) ? response.contentLength : undefined;
  const exact = length === undefined ? {} : { exact: length, exactWhy: "Content-Length" };
  const ranged = rangeHeader(range) !== undefined;
  if (status === 206 && (range === undefined || !ranged)) {
    // Part of the value, as the answer to a request for all of it.
    return {
      refuse: `partial response (206, Content-Range ${contentRange}) to a whole-value read`,
    };
  }
  if (range === undefined || !ranged || status !== 206) {
    if (range === undefined || !ranged) {
      if (length !== undefined && length > limit) {
        return {
          refuse: `Content-Length ${length} is more than ${limit} bytes, ${limitWhy}`,
          overLimit: callersMax,
        };
      }
      return { max: limit, maxWhy: limitWhy, callersMax, ...exact };
    }
    // The server ignored Range and sends the whole value: keep the range's
    // bytes only, and stop reading once they have arrived.
    if (isSuffixRange(range)) {
      const capWhy = "the most of a whole value read for a suffix range (maxBodyBytes)";
      if (length !== undefined && length > maxBodyBytes) {
        return {
          refuse: `server ignored Range; its ${length}-byte value is more than ${maxBodyBytes}, ${capWhy}`,
        };
      }
      return { max: maxBodyBytes, maxWhy: capWhy, tail: range.suffix, ...exact };
    }
    return {
      max: range.offset + limit,
      maxWhy: `the range's offset plus ${limitWhy}`,
      start: range.offset,
      ...(range.length === undefined ? {} : { end: range.offset + range.length }),
      ...exact,
    };
  }
  if (encoded && read.refuseEncodedRanges) {
    return {
      refuse: `ranged response is ${contentEncoding}-encoded: byte ranges would not match the value`,
    };
  }
  const parsed = parseContentRange(contentRange);
  if (!parsed) return { refuse: `response without a valid Content-Range (${contentRange})` };
  const expected = parsed.last - parsed.first + 1;
  // Exactly the bytes asked for, no fewer and no more: where the range starts
  // and, with the value's length known, where it ends (at the value's end at most).
  const notAsked = { refuse: `Content-Range ${contentRange} is not the range asked for` };
  if (parsed.total === undefined) {
    // Without the total, a suffix's start cannot be checked.
    if (isSuffixRange(range)) {
      return {
        refuse: `Content-Range ${contentRange} gives no total: the suffix cannot be checked`,
      };
    }
    const last = range.length === undefined ? undefined : range.offset + range.length - 1;
    if (parsed.first !== range.offset || (last !== undefined && parsed.last !== last)) {
      return notAsked;
    }
  } else {
    if (parsed.first !== expectedStart(range, parsed.total)) {
      return { refuse: `Content-Range ${contentRange} does not start where the range does` };
    }
    const end = isSuffixRange(range)
      ? parsed.total
      : Math.min(
          range.length === undefined ? parsed.total : range.offset + range.length,
          parsed.total,
        );
    if (parsed.last !== end - 1) return notAsked;
  }
  if (expected > limit) {
    return {
      refuse: `range of ${expected} bytes is more than ${limit} bytes, ${limitWhy}`,
      overLimit: callersMax,
    };
  }
  if (length !== undefined && length !== expected) {
    return {
      refuse: `Content-Length ${length} does not match its Content-Range (${expected} bytes)`,
    };
  }
  return {
    max: expected,
    maxWhy: "the length of its Content-Range",
    exact: expected,
    exactWhy: "Content-Range",
  };
}

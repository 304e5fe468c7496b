/**
 * Byte range validation and resolution, shared by {@link resolveStore} and store
 * implementations (v3 core: "Abstract store interface", partial values).
 *
 * @module
 */

import { StoreError } from "../errors.js";
import type { ByteRange } from "./types.js";

/**
 * A byte range is malformed (negative, fractional, unsafe or not a range
 * object, or both `offset` and `suffix`). Thrown by store reads given such a
 * range; `path` is the key.
 *
 * @example
 * ```ts
 * import { InvalidRangeError, MemoryStore } from "@zarr/core";
 * const store = new MemoryStore();
 * await store.get("c/0", { offset: -1 }).catch((e) => {
 *   if (!(e instanceof InvalidRangeError)) throw e;
 * });
 * ```
 */
export class InvalidRangeError extends StoreError {
  override name =
    this.constructor === InvalidRangeError ? "InvalidRangeError" : this.constructor.name;
}

function isCount(n: unknown): n is number {
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
}

function describeRange(range: unknown): string {
  try {
    return JSON.stringify(range) ?? String(range);
  } catch {
    return String(range);
  }
}

/**
 * Returns `range` when it is a valid {@link ByteRange} (or `undefined`): offsets,
 * lengths and suffixes must be non-negative safe integers, and a range has either
 * `offset` or `suffix`, not both. Throws an {@link InvalidRangeError} naming `key`.
 */
export function validateRange(range: ByteRange | undefined, key: string): ByteRange | undefined {
  if (range === undefined) return undefined;
  const fail = (reason: string): never => {
    throw new InvalidRangeError(
      `invalid byte range ${describeRange(range)} for key ${JSON.stringify(key)}: ${reason}`,
      { path: key },
    );
  };
  if (typeof range !== "object" || range === null) return fail("not a range object");
  const r = range as { offset?: unknown; length?: unknown; suffix?: unknown };
  if (r.suffix !== undefined) {
    if (r.offset !== undefined || r.length !== undefined) {
      return fail("a range has either 'suffix' or 'offset'/'length', not both");
    }
    if (!isCount(r.suffix)) return fail("suffix must be a non-negative safe integer");
    return range;
  }
  if (!isCount(r.offset)) return fail("offset must be a non-negative safe integer");
  if (r.length !== undefined && !isCount(r.length)) {
    return fail("length must be a non-negative safe integer");
  }
  return range;
}

/** True for a `{suffix}` range. */
export function isSuffixRange(range: ByteRange): range is { suffix: number } {
  return "suffix" in range && range.suffix !== undefined;
}

/**
 * The `[start, end)` byte positions that `range` selects in a value of `size`
 * bytes, clipped to the value: a range starting past the end is empty, a
 * suffix longer than the value selects all of it. `range` must be valid
 * (see {@link validateRange}).
 */
export function rangeBounds(range: ByteRange | undefined, size: number): [number, number] {
  if (range === undefined) return [0, size];
  if (isSuffixRange(range)) return [Math.max(0, size - range.suffix), size];
  const start = Math.min(range.offset, size);
  const end = range.length === undefined ? size : Math.min(size, range.offset + range.length);
  return [start, Math.max(start, end)];
}

/**
 * The bytes of `value` that `range` selects, as a view (no copy) clipped to the
 * value. For store authors whose backend only reads whole values; copy the
 * result if the caller must not share memory with the store.
 */
export function sliceRange(value: Uint8Array, range: ByteRange | undefined): Uint8Array {
  if (range === undefined) return value;
  const [start, end] = rangeBounds(range, value.length);
  return value.subarray(start, end);
}

/**
 * The largest number of bytes a store may return for `range` (`Infinity` when
 * the range is open-ended). Used to catch stores that ignore ranges.
 */
export function maxRangeLength(range: ByteRange | undefined): number {
  if (range === undefined) return Number.POSITIVE_INFINITY;
  if (isSuffixRange(range)) return range.suffix;
  return range.length ?? Number.POSITIVE_INFINITY;
}

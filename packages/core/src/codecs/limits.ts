/**
 * Decode limits: the upper bounds that keep a decode's memory proportional to
 * what the metadata justifies, whatever the stored bytes claim.
 *
 * Fixed-size data needs no limit: a chunk decodes to exactly its shape times
 * the item size, and each bytes -> bytes stage before it is bounded by the
 * next stage's worst-case encoded size. Variable-size data (`string`,
 * `bytes`, v2 object arrays) has no exact size, so its bound comes from these
 * limits: per element and per chunk.
 *
 * @module
 */

import { throwIfAborted } from "../errors.js";

/**
 * Bounds on variable-size data and metadata documents, in bytes. Set them for
 * the process with {@link setDecodeLimits}, or per read with the
 * `decodeLimits` option (any subset of the fields).
 */
export interface DecodeLimits {
  /**
   * The most bytes one element of a variable-size data type (its encoded
   * form: UTF-8 of a string, the bytes of a `bytes` element, JSON of an
   * object) may take. Default 1 MiB.
   */
  readonly maxElementBytes: number;
  /**
   * The most bytes one chunk of variable-size data may decode to (its
   * encoded form before any compressor), whatever its element count.
   * Default 256 MiB.
   */
  readonly maxChunkBytes: number;
  /** The most bytes a metadata document (`zarr.json`, `.zarray`, `.zmetadata`, ...) may have. Default 64 MiB. */
  readonly maxMetadataBytes: number;
  /**
   * The most bytes that decodes of variable-size chunks may have reserved at
   * once in this process. Each such decode reserves its bound (at most
   * `maxChunkBytes`) while its decompressor runs, so reads of many chunks
   * (16 at a time by default, and concurrent reads) cannot each fill their
   * bound together. A decode whose bound is larger than this runs alone.
   * Default 256 MiB.
   */
  readonly maxBytesInFlight: number;
}

/** The limits a fresh process starts with: 1 MiB, 256 MiB, 64 MiB and 256 MiB. */
export const DEFAULT_DECODE_LIMITS: DecodeLimits = Object.freeze({
  maxElementBytes: 1 << 20,
  maxChunkBytes: 256 << 20,
  maxMetadataBytes: 64 << 20,
  maxBytesInFlight: 256 << 20,
});

let current: DecodeLimits = DEFAULT_DECODE_LIMITS;

function checked(limits: Partial<DecodeLimits>, base: DecodeLimits): DecodeLimits {
  const out = { ...base, ...limits };
  for (const [name, value] of Object.entries(out)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`decode limit ${name} must be a positive safe integer, got ${value}`);
    }
  }
  return Object.freeze(out);
}

/**
 * Changes the process-wide decode limits (each read may override them with
 * its `decodeLimits` option). Raise them to read data with larger elements
 * or chunks; a decode that would pass them fails with a `CodecError` that
 * names the limit.
 *
 * @param limits - The limits to set, in bytes; each a positive safe integer.
 *   Fields left out take their {@link DEFAULT_DECODE_LIMITS} value (not the
 *   current one), so `setDecodeLimits({})` restores the defaults.
 * @throws `RangeError` when a given limit is not a positive safe integer (the
 *   limits in force are then unchanged).
 *
 * @example
 * ```ts
 * import { setDecodeLimits } from "@zarr/core";
 * setDecodeLimits({ maxElementBytes: 64 << 20 }); // strings of up to 64 MiB
 * ```
 */
export function setDecodeLimits(limits: Partial<DecodeLimits>): void {
  current = checked(limits, DEFAULT_DECODE_LIMITS);
}

/**
 * The process-wide decode limits: {@link DEFAULT_DECODE_LIMITS} or what
 * {@link setDecodeLimits} last set.
 *
 * @returns The limits in force, a frozen object.
 *
 * @example
 * ```ts
 * import { getDecodeLimits, setDecodeLimits } from "@zarr/core";
 * const { maxChunkBytes } = getDecodeLimits();
 * setDecodeLimits({ ...getDecodeLimits(), maxChunkBytes: 2 * maxChunkBytes });
 * ```
 */
export function getDecodeLimits(): DecodeLimits {
  return current;
}

/** The limits in force for an operation: its own overrides on top of the process-wide ones. */
export function resolveDecodeLimits(overrides?: Partial<DecodeLimits>): DecodeLimits {
  return overrides === undefined ? current : checked(overrides, current);
}

/**
 * The bound on a variable-size chunk encoding of `elements` elements: a
 * 4-byte length per element and a header, plus the element limit, capped by
 * the chunk limit.
 */
export function variableChunkBound(elements: number, limits: DecodeLimits): number {
  return Math.min(limits.maxChunkBytes, 64 + elements * (8 + limits.maxElementBytes));
}

/** What a bytes -> bytes codec without `maxEncodedSize` is assumed to produce at most. */
export function defaultMaxEncodedSize(decodedSize: number): number {
  return Math.min(Number.MAX_SAFE_INTEGER, 2 * decodedSize + 65_536);
}

/**
 * `options` for reading a metadata document: the store may return at most
 * `maxMetadataBytes` (so an endless or oversized document is refused while it
 * is read, not after).
 */
export function metadataRead<
  O extends { signal?: AbortSignal; decodeLimits?: Partial<DecodeLimits> },
>(options?: O): O & { maxBytes: number } {
  const maxBytes = resolveDecodeLimits(options?.decodeLimits).maxMetadataBytes;
  return { ...(options as O), maxBytes };
}

/** A waiter for {@link reserveDecodeBytes}. */
interface Waiter {
  readonly bytes: number;
  readonly capacity: number;
  readonly start: () => void;
}

/** Reservations of bounded decodes, shared by every copy of this module in the process. */
interface InFlight {
  used: number;
  readonly queue: Waiter[];
}
const IN_FLIGHT = Symbol.for("@zarr/core.decodeBytesInFlight");
const shared = globalThis as { [IN_FLIGHT]?: InFlight };
if (shared[IN_FLIGHT] === undefined) shared[IN_FLIGHT] = { used: 0, queue: [] };
const inFlight: InFlight = shared[IN_FLIGHT];

function admits(w: Waiter): boolean {
  return inFlight.used === 0 || inFlight.used + w.bytes <= w.capacity;
}

function startWaiters(): void {
  // In order: a large waiter at the head is not overtaken (it would starve).
  while (inFlight.queue.length > 0 && admits(inFlight.queue[0])) {
    const w = inFlight.queue.shift()!;
    inFlight.used += w.bytes;
    w.start();
  }
}

/**
 * Reserves `bytes` of the process-wide budget of bounded decodes
 * ({@link DecodeLimits.maxBytesInFlight}, from `limits`), waiting while other
 * decodes hold it; resolves to the function that gives them back. A
 * reservation larger than the budget waits until it can run alone.
 */
export async function reserveDecodeBytes(
  bytes: number,
  limits: DecodeLimits,
  signal?: AbortSignal,
): Promise<() => void> {
  const amount = Math.max(0, Math.min(bytes, limits.maxBytesInFlight));
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    inFlight.used -= amount;
    startWaiters();
  };
  const waiter: Waiter = { bytes: amount, capacity: limits.maxBytesInFlight, start: () => {} };
  if (inFlight.queue.length === 0 && admits(waiter)) {
    inFlight.used += amount;
    return release;
  }
  throwIfAborted(signal);
  await new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      const i = inFlight.queue.indexOf(entry);
      if (i >= 0) inFlight.queue.splice(i, 1);
      startWaiters();
      try {
        throwIfAborted(signal);
      } catch (e) {
        reject(e);
      }
    };
    const entry: Waiter = {
      ...waiter,
      start: () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      },
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    inFlight.queue.push(entry);
  });
  return release;
}

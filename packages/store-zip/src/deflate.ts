/**
 * Raw deflate (RFC 1951) through the platform's `DecompressionStream` /
 * `CompressionStream("deflate-raw")`: no dependency, available in Node >= 20
 * and every current browser, and measured as fast as or faster than pako
 * (see README). Output is bounded by the size the archive declares and by
 * what the read needs (a range inflates only up to its end).
 *
 * @module
 */

import { throwIfAborted } from "@zarr/core/store";
import { crc32 } from "./crc32.js";
import { ZipFormatError } from "./errors.js";

/**
 * Inflates raw deflate data whose decompressed size is known: resolves to
 * exactly `size` bytes or rejects (corrupt data, more or fewer bytes).
 */
export type InflateRaw = (data: Uint8Array, size: number) => Promise<Uint8Array>;

/** Compresses raw deflate data. */
export type DeflateRaw = (data: Uint8Array) => Promise<Uint8Array>;

function requireStream(kind: "DecompressionStream" | "CompressionStream"): void {
  if (typeof globalThis[kind] !== "function") {
    throw new ZipFormatError(
      `this runtime has no ${kind}("deflate-raw"); pass an inflateRaw/deflateRaw option (e.g. built on pako or fflate)`,
    );
  }
}

/** What {@link inflateSlice} does. */
export interface InflateSliceOptions {
  /** The declared uncompressed size: inflating past it is an error. */
  size: number;
  /** The first output byte to keep. */
  start: number;
  /** The end (exclusive) of the output bytes to keep. */
  end: number;
  /**
   * Inflate the whole stream (and then the output must be exactly `size`
   * bytes), not just up to `end`.
   */
  toEnd: boolean;
  /** Compute the CRC-32 of the whole output (with `toEnd`). */
  crc?: boolean;
  /** Allocate the kept bytes at once rather than as they come (when `end - start` is plausible). */
  preallocate?: boolean;
  /** Cancels inflating (between output chunks). */
  signal?: AbortSignal;
}

/** What {@link inflateSlice} returns. */
export interface InflatedSlice {
  /** Output bytes `[start, end)`. */
  value: Uint8Array;
  /** The CRC-32 of the whole output, when asked for. */
  crc?: number;
}

/**
 * Inflates raw deflate data read from `input` (pieces in order, each pulled
 * once the inflater has taken the previous one) through `DecompressionStream`, keeping output
 * bytes `[start, end)`. It stops once it has produced `end` bytes unless
 * `toEnd`; it never produces more than `size` bytes (more is an error, as is
 * a stream that ends early). Memory: the kept bytes, one input piece and one
 * output chunk, whatever the declared or actual size.
 *
 * Errors of the inflater are plain `Error`s; errors of `input` are passed
 * through as they are.
 */
export async function inflateSlice(
  input: AsyncIterable<Uint8Array>,
  options: InflateSliceOptions,
): Promise<InflatedSlice> {
  requireStream("DecompressionStream");
  const { size, start, end, toEnd, signal } = options;
  const crcWanted = toEnd && options.crc === true;
  const stream = new DecompressionStream("deflate-raw") as TransformStream<Uint8Array, Uint8Array>;
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  // The next piece is read only once the inflater has taken the previous one, which it
  // does only as its output is read: input is read as far as the output needs, no further.
  let stopped = false;
  let inputError: { error: unknown } | undefined;
  const pieces = input[Symbol.asyncIterator]();
  const pump = async () => {
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await pieces.next();
      } catch (error) {
        inputError = { error };
        writer.abort(error).catch(() => {});
        return;
      }
      if (stopped) {
        await pieces.return?.();
        return;
      }
      if (next.done) break;
      try {
        await writer.write(next.value);
      } catch {
        return; // the inflater failed or was cancelled: the reader reports it
      }
    }
    writer.close().catch(() => {});
  };
  void pump();
  const kept = new Kept(end - start, options.preallocate === true);
  let produced = 0;
  let crc = 0;
  try {
    while (toEnd || produced < end) {
      const { done, value } = await reader.read();
      if (done) break;
      throwIfAborted(signal);
      if (produced + value.length > size) {
        throw new Error(`inflates to more than the declared ${size} bytes`);
      }
      if (crcWanted) crc = crc32(value, crc);
      const from = Math.max(start - produced, 0);
      const to = Math.min(end - produced, value.length);
      if (from < to)
        kept.push(from === 0 && to === value.length ? value : value.subarray(from, to));
      produced += value.length;
    }
  } catch (cause) {
    stopped = true;
    reader.cancel().catch(() => {});
    if (inputError) throw inputError.error;
    throw cause instanceof Error ? cause : new Error(String(cause));
  }
  stopped = true;
  reader.cancel().catch(() => {});
  if (toEnd ? produced !== size : produced < end) {
    throw new Error(`inflates to ${produced} bytes, ${size} declared`);
  }
  return crcWanted ? { value: kept.bytes(), crc } : { value: kept.bytes() };
}

/** The output bytes kept by {@link inflateSlice}: one buffer when preallocated, else parts joined at the end. */
class Kept {
  readonly #length: number;
  readonly #buffer: Uint8Array | undefined;
  readonly #parts: Uint8Array[] = [];
  #at = 0;

  constructor(length: number, preallocate: boolean) {
    this.#length = length;
    this.#buffer = preallocate ? new Uint8Array(length) : undefined;
  }

  push(part: Uint8Array): void {
    if (this.#buffer) this.#buffer.set(part, this.#at);
    else this.#parts.push(part);
    this.#at += part.length;
  }

  bytes(): Uint8Array {
    if (this.#buffer) return this.#buffer;
    if (this.#parts.length === 1 && this.#parts[0].length === this.#length) return this.#parts[0];
    const out = new Uint8Array(this.#at);
    let at = 0;
    for (const p of this.#parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

/** Bytes of output allocated up front by {@link inflateRaw} when the ratio to the input does not say more. */
const PREALLOCATE = 4 << 20;

/**
 * The default {@link InflateRaw}: streams through `DecompressionStream`,
 * stopping as soon as the data would exceed `size`. Memory follows the
 * output actually produced, not the declared size (a small stream that
 * declares gigabytes allocates what it inflates to, then fails).
 */
export const inflateRaw: InflateRaw = async (data, size) => {
  const { value } = await inflateSlice(once(data), {
    size,
    start: 0,
    end: size,
    toEnd: true,
    preallocate: size <= Math.max(PREALLOCATE, data.length * 8),
  });
  return value;
};

async function* once(data: Uint8Array): AsyncGenerator<Uint8Array> {
  yield data;
}

/** The default {@link DeflateRaw}, through `CompressionStream`. */
export const deflateRaw: DeflateRaw = async (data) => {
  requireStream("CompressionStream");
  const stream = new CompressionStream("deflate-raw");
  const writer = stream.writable.getWriter();
  writer.write(data as Uint8Array<ArrayBuffer>).catch(() => {});
  writer.close().catch(() => {});
  const reader = stream.readable.getReader();
  const parts: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    length += value.length;
  }
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/**
 * Helpers for writing codecs, shared by this project's codec packages and
 * offered to third-party ones: reading a numcodecs-style configuration with
 * errors that name the codec and field, and byte buffers for decoders that
 * must stop at their output bound and encoders that grow as they go.
 *
 * @module
 */

import type { JsonObject, JsonValue } from "../dtypes/types.js";
import { CodecError } from "../errors.js";
import type { CodecOptions } from "./types.js";

/** A JSON value as it reads in an error message (bigints too; `undefined` as such). */
function showValue(v: JsonValue | undefined): string {
  if (v === undefined) return "undefined";
  return JSON.stringify(v, (_, x) => (typeof x === "bigint" ? x.toString() : x));
}

/**
 * Reads a codec's configuration; each error is a `CodecError` naming the
 * metadata path, the codec and the field. Keys a codec does not read are
 * ignored (numcodecs configurations from newer versions may carry keys older
 * ones lack).
 *
 * @example
 * ```ts
 * const config = new ConfigReader("bz2", { level: 9 }, "temps");
 * const level = config.integer("level", 1, 9, 1); // 9
 * ```
 */
export class ConfigReader {
  constructor(
    readonly codec: string,
    readonly json: JsonObject,
    readonly path: string,
  ) {}

  /** A `CodecError` for `field`. */
  error(field: string, why: string): CodecError {
    return new CodecError(`${this.path}: ${this.codec}: ${field}: ${why}`, { path: this.path });
  }

  /** A finite number (`fallback` when absent). */
  number(field: string, fallback?: number): number {
    const v = this.json[field] ?? fallback;
    if (typeof v !== "number" || !Number.isFinite(v))
      throw this.error(field, `must be a number, got ${showValue(v)}`);
    return v;
  }

  /** An integer in `min..max` (`fallback` when absent). */
  integer(field: string, min: number, max: number, fallback?: number): number {
    const v = this.number(field, fallback);
    if (!Number.isInteger(v) || v < min || v > max)
      throw this.error(field, `must be an integer in ${min}..${max}, got ${v}`);
    return v;
  }

  /** `value` as it reads in an error message. */
  show(value: JsonValue | undefined): string {
    return showValue(value);
  }
}

/**
 * A decoder's output: grows as bytes are decoded, never past `limit`;
 * reserving room beyond it is a `CodecError`. With a known `exact` size it is
 * allocated once.
 *
 * @example
 * ```ts
 * const out = new BoundedOutput(1 << 20, "temps/c/0", "bz2");
 * out.reserve(3);
 * out.buf.set([1, 2, 3], out.length);
 * out.length += 3;
 * out.result(); // Uint8Array [1, 2, 3]
 * ```
 */
export class BoundedOutput {
  /** The bytes so far are `buf[0..length)`. */
  buf: Uint8Array;
  length = 0;

  constructor(
    readonly limit: number,
    readonly path: string,
    readonly codec: string,
    exact?: number,
  ) {
    this.buf = new Uint8Array(exact ?? Math.min(limit, 1 << 16));
  }

  /** Makes room for `n` more bytes, or throws when that would pass the limit. */
  reserve(n: number): void {
    const need = this.length + n;
    if (need > this.limit) {
      throw new CodecError(
        `${this.path}: ${this.codec}: decoded data exceeds the expected ${this.limit} bytes`,
        { path: this.path },
      );
    }
    if (need > this.buf.length) {
      const grown = new Uint8Array(Math.min(this.limit, Math.max(need, this.buf.length * 2)));
      grown.set(this.buf.subarray(0, this.length));
      this.buf = grown;
    }
  }

  /** The decoded bytes (a view when the buffer is exactly full). */
  result(): Uint8Array {
    return this.length === this.buf.length ? this.buf : this.buf.slice(0, this.length);
  }
}

/** An encoder's output: bytes appended one at a time or in runs, growing by doubling. */
export class ByteSink {
  /** The bytes so far are `buf[0..length)`. */
  buf = new Uint8Array(1 << 12);
  length = 0;

  push(b: number): void {
    if (this.length === this.buf.length) this.#grow(1);
    this.buf[this.length++] = b;
  }

  append(bytes: Uint8Array): void {
    if (this.length + bytes.length > this.buf.length) this.#grow(bytes.length);
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
  }

  #grow(n: number): void {
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  /** A copy of the bytes written. */
  bytes(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

/**
 * The most bytes a bytes -> bytes decoder produces when given neither an
 * exact decoded size nor `options.maxDecodedSize` (a direct call outside a
 * pipeline): 1 GiB.
 */
export const DEFAULT_MAX_DECODED_SIZE = 1 << 30;

/**
 * Runs `decompress` with the output limit of a bytes -> bytes decode: the
 * exact `decodedSize` when known (another length is then a `CodecError`),
 * else `options.maxDecodedSize`, else {@link DEFAULT_MAX_DECODED_SIZE}.
 * `decompress` grows its output up to the limit (see {@link BoundedOutput});
 * only an exact size is allocated up front.
 */
export function boundedDecode(
  codec: string,
  path: string,
  decodedSize: number | undefined,
  options: CodecOptions | undefined,
  decompress: (limit: number, exact: number | undefined) => Uint8Array,
): Uint8Array {
  const limit = decodedSize ?? options?.maxDecodedSize ?? DEFAULT_MAX_DECODED_SIZE;
  const out = decompress(limit, decodedSize);
  if (decodedSize !== undefined && out.length !== decodedSize) {
    throw new CodecError(
      `${path}: ${codec}: decoded ${out.length} bytes, expected ${decodedSize}`,
      {
        path,
      },
    );
  }
  return out;
}

/** Buffers below this size are left to the garbage collector. */
const RELEASE_MIN_BYTES = 64 * 1024;

const transferBuffer = (
  ArrayBuffer.prototype as { transfer?: (this: ArrayBuffer, length?: number) => ArrayBuffer }
).transfer;

/**
 * Frees the memory of `view` at once instead of at a later garbage
 * collection, for a codec that made the buffer (e.g. an engine's output it
 * has copied into `decodeInto`'s target) and hands it to no one: a read of
 * many chunks would otherwise keep up to V8's external-memory allowance
 * (64 MiB) of dead buffers and take fresh pages for each. Uses
 * `ArrayBuffer.prototype.transfer(0)`, which detaches the buffer (every view
 * of it then has length 0); does nothing where that is missing (Node < 21).
 *
 * Only a view of at least 64 KiB from the start of an unshared buffer, with at
 * most 64 unused bytes after it, is released: never a slice of a pool (Node's
 * `Buffer` pool hands out at most half of its buffer) or of a larger buffer.
 * Returns whether it was released.
 *
 * @example
 * ```ts
 * import { releaseBuffer } from "@zarr/core/codec";
 * declare function inflate(bytes: Uint8Array): Uint8Array; // returns a fresh buffer
 * function decodeInto(bytes: Uint8Array, out: Uint8Array): void {
 *   const decoded = inflate(bytes);
 *   out.set(decoded);
 *   releaseBuffer(decoded); // no one else holds it
 * }
 * ```
 */
export function releaseBuffer(view: Uint8Array): boolean {
  const buffer = view.buffer;
  if (
    transferBuffer === undefined ||
    !(buffer instanceof ArrayBuffer) ||
    view.byteOffset !== 0 ||
    buffer.byteLength - view.byteLength > 64 ||
    view.byteLength < RELEASE_MIN_BYTES
  ) {
    return false;
  }
  transferBuffer.call(buffer, 0);
  return true;
}

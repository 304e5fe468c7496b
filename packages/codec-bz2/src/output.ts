/**
 * A growable output buffer with a hard size limit, shared by the decoders:
 * decoding past `limit` is a `CodecError`, and the buffer never grows beyond it.
 *
 * @module
 */
import { CodecError } from "@zarr/core";

/** Bytes decoded so far (`buf[0..length)`), never more than `limit`. */
export class Output {
  buf: Uint8Array;
  length = 0;

  constructor(
    readonly limit: number,
    readonly path: string,
    readonly codec: string,
    /** Known exact size: allocate once. */
    exact?: number,
  ) {
    this.buf = new Uint8Array(exact ?? Math.min(limit, 1 << 16));
  }

  /** Makes room for `n` more bytes or throws when that would pass the limit. */
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

/** A `CodecError` for malformed input of `codec` at `path`. */
export function corrupt(path: string, codec: string, why: string): CodecError {
  return new CodecError(`${path}: ${codec}: ${why}`, { path });
}

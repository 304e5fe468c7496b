/**
 * A zstd engine the platform provides (Node's `node:zlib` from 22.15 on), used
 * instead of the WebAssembly build where it exists.
 *
 * @module
 */

/** One-frame compression and decompression, synchronous. */
export interface NativeZstd {
  /** A description for messages and the bench, e.g. `"node:zlib"`. */
  readonly name: string;
  /** One frame with its content size at `level`, with the content checksum when `checksum` is set. */
  compress(data: Uint8Array, level: number, checksum: boolean): Uint8Array;
  /**
   * Decompresses one frame into at most `capacity` bytes; throws
   * {@link OutputTooLarge} when the frame holds more.
   */
  decompress(frame: Uint8Array, capacity: number): Uint8Array;
}

/** The frame decodes to more than the capacity it was given. */
export class OutputTooLarge extends Error {}

/**
 * One-frame decompression with a zstd dictionary (a ZDICT dictionary or raw
 * content), synchronous: Node's `node:zlib` from 22.19 / 24.6 on.
 */
export interface DictionaryZstd {
  /** A description for messages, e.g. `"node:zlib"`. */
  readonly name: string;
  /**
   * Decompresses one frame with `dictionary` into at most `capacity` bytes,
   * starting with an output buffer of `firstBuffer` bytes; throws
   * {@link OutputTooLarge} when the frame holds more, and libzstd's error
   * (with its code as `errno`) when it cannot be decoded.
   */
  decompress(
    frame: Uint8Array,
    dictionary: Uint8Array,
    capacity: number,
    firstBuffer: number,
  ): Uint8Array;
}

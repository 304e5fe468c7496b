/**
 * The deflate engine contract: the codec logic is shared and the byte work is
 * done by `node:zlib` on Node and by pako elsewhere (selected through the
 * package's `#engine` import condition).
 *
 * @module
 */

/** The two deflate containers: a gzip member (RFC 1952) or a zlib stream (RFC 1950). */
export type DeflateFormat = "gzip" | "zlib";

/** Why an engine refused a stream; the codec turns it into a `CodecError`. */
export class EngineError extends Error {
  constructor(
    message: string,
    readonly reason: "corrupt" | "too-large" | "trailing",
  ) {
    super(message);
  }
}

/** Compresses and decompresses gzip members and zlib streams. */
export interface DeflateEngine {
  /** The engine's name, for messages and benchmarks. */
  readonly name: string;
  /** Large inputs are (de)compressed outside the calling JavaScript thread. */
  readonly offThread?: boolean;
  compress(data: Uint8Array, format: DeflateFormat, level: number): Promise<Uint8Array>;
  /**
   * Decompresses `data`. A gzip input may hold several members (their outputs
   * are concatenated) followed by zero padding; any other trailing byte is an
   * error. `maxSize` bounds the output: the engine stops and throws
   * `EngineError("too-large")` as soon as the output passes it, having
   * allocated little more than that. With `exact`, `maxSize` is the exact
   * decoded size and the engine may allocate it up front; without, it is
   * only a bound that hostile data may claim in full, so the engine grows
   * its output as it goes instead. The returned bytes are the caller's: the
   * engine keeps no reference to them and never reuses their memory.
   */
  decompress(
    data: Uint8Array,
    format: DeflateFormat,
    maxSize: number | undefined,
    exact?: boolean,
  ): Promise<Uint8Array>;
}

/** True when every byte of `data` from `start` on is zero (gzip tolerates zero padding). */
export function isZeroPadding(data: Uint8Array, start: number): boolean {
  for (let i = start; i < data.length; i++) if (data[i] !== 0) return false;
  return true;
}

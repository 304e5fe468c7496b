/**
 * The hook through which arrays hand codec work to a worker pool. Core only
 * defines the contract (no worker code, no Node built-ins); `@zarr/workers`
 * implements it with worker_threads on Node and Web Workers in browsers.
 *
 * @module
 */

import type { ChunkTarget } from "../codecs/decode-to.js";
import type { CodecPipeline } from "../codecs/pipeline.js";
import type { CodecOptions, NDArray } from "../codecs/types.js";

/** What a pool needs to rebuild an array's codec pipeline inside a worker. */
export interface ChunkCodecContext {
  /** Which metadata the codecs were read from (v2 `compressor`/`filters` or v3 `codecs`). */
  readonly format: 2 | 3;
  /** Node path, for error messages. */
  readonly path: string;
}

/**
 * Runs chunk encoding and decoding off the calling thread. Each method either
 * takes the job (returns a promise) or declines it (returns `undefined`), in
 * which case the caller runs the codec itself; a pool declines where offloading
 * does not pay (e.g. uncompressed chunks) or cannot work (a codec the workers
 * do not have). Results must be identical to `pipeline.decode`/`encode`, and
 * failures must be the same typed errors.
 */
export interface ChunkCodecWorkers {
  /**
   * Decodes stored chunk bytes. `bytes` is not modified or detached (a pool
   * copies what it transfers).
   */
  decode(
    pipeline: CodecPipeline,
    bytes: Uint8Array,
    context: ChunkCodecContext,
    options?: CodecOptions,
  ): Promise<NDArray> | undefined;
  /**
   * Encodes a C-order chunk. With `transfer: true` the pool may detach
   * `chunk.data`'s buffer (the caller no longer needs it).
   */
  encode(
    pipeline: CodecPipeline,
    chunk: NDArray,
    context: ChunkCodecContext,
    options?: CodecOptions & { transfer?: boolean },
  ): Promise<Uint8Array> | undefined;
  /**
   * Decodes stored chunk bytes and writes the selected elements into
   * `target.out`, with the result core's `decodeChunkTo` gives on the calling
   * thread (a worker can write into `target.out` only when it is shared
   * memory, e.g. a caller's `out` over a `SharedArrayBuffer`; otherwise the
   * pool copies the decoded chunk in). `bytes` is not modified or detached,
   * and may be reused once the promise settles. Returns `undefined` to
   * decline; the caller then tries {@link decode} and finally decodes the
   * chunk itself.
   */
  decodeTo?(
    pipeline: CodecPipeline,
    bytes: Uint8Array,
    context: ChunkCodecContext,
    target: ChunkTarget,
    options?: CodecOptions,
  ): Promise<void> | undefined;
}

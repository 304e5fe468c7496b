/**
 * bzip2 compression.
 *
 * @module
 */
import { UnsupportedError } from "@zarr/core";

/** Compresses `data` as one bzip2 stream with blocks of `level` × 100 kB. */
export function bzip2Compress(_data: Uint8Array, _level: number): Uint8Array {
  throw new UnsupportedError("bz2: writing is not supported");
}

/**
 * The decoders' output (core's bounded buffer) and their error for malformed input.
 *
 * @module
 */
import { CodecError } from "@zarr/core";

export { BoundedOutput as Output } from "@zarr/core/codec";

/** A `CodecError` for malformed input of `codec` at `path`. */
export function corrupt(path: string, codec: string, why: string): CodecError {
  return new CodecError(`${path}: ${codec}: ${why}`, { path });
}

/**
 * The output limit of a bytes -> bytes decode.
 *
 * @module
 */
import { CodecError } from "@zarr/core";
import type { CodecOptions } from "@zarr/core/codec";

/**
 * The most bytes a decoder of this package produces when it is given neither
 * an exact `decodedSize` nor `options.maxDecodedSize` (a direct call outside
 * a pipeline): 1 GiB.
 */
export const DEFAULT_MAX_DECODED_SIZE = 1 << 30;

/**
 * Runs `decompress` with the output limit of a bytes -> bytes decode: the
 * exact `decodedSize` when known (a different length is a `CodecError`),
 * else `options.maxDecodedSize`, else {@link DEFAULT_MAX_DECODED_SIZE}. The
 * decoders grow their output as they go and stop at the limit; only an exact
 * size is allocated up front.
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

/**
 * numcodecs' `LZ4` compressor (id `lz4`): a 4-byte little-endian decoded size,
 * then one LZ4 block (numcodecs' `lz4.pyx`, `LZ4_compress_fast` /
 * `LZ4_decompress_safe`). The block code is `@zarr/codec-blosc`'s (its `./lz4`
 * entry point), shared with blosc's lz4 chunks.
 *
 * @module
 */
import { lz4Compress, lz4Decompress } from "@zarr/codec-blosc/lz4";
import { CodecError } from "@zarr/core";
import { type BytesToBytesCodec, type CodecFactory, ConfigReader } from "@zarr/core/codec";

/**
 * The most bytes the codec decodes without an exact size or a
 * `maxDecodedSize` (a direct call outside a pipeline): 1 GiB.
 */
export const DEFAULT_MAX_DECODED_SIZE = 1 << 30;

/**
 * The most bytes an LZ4 block of `n` bytes can decode to: a match costs at
 * least 3 bytes (token, offset) for at most 19 output bytes, and each
 * further length byte adds at most 255; literals are one for one.
 *
 * @param n - The block's length in bytes.
 * @returns The bound in bytes.
 * @example
 * ```ts
 * import { lz4MaxDecodedSize } from "@zarr/codec-lz4";
 * lz4MaxDecodedSize(100); // 25,500
 * ```
 */
export function lz4MaxDecodedSize(n: number): number {
  return 255 * n;
}

/**
 * The most bytes numcodecs' LZ4 encoding of `n` bytes can take: the 4-byte
 * size header and LZ4's `LZ4_COMPRESSBOUND(n) = n + n/255 + 16`, with room
 * for encoders less careful than liblz4: `n + n/128 + 64`.
 *
 * @param n - The decoded size in bytes.
 * @returns The bound in bytes.
 * @example
 * ```ts
 * import { lz4MaxEncodedSize } from "@zarr/codec-lz4";
 * lz4MaxEncodedSize(1 << 20); // 1,056,832
 * ```
 */
export function lz4MaxEncodedSize(n: number): number {
  return n + Math.floor(n / 128) + 64;
}

function lz4Factory(name: string): CodecFactory {
  return {
    kind: "bytes_to_bytes",
    fromConfig(configuration, context): BytesToBytesCodec {
      const config = new ConfigReader("lz4", configuration ?? {}, context.path);
      const acceleration = config.integer("acceleration", -(2 ** 31), 2 ** 31 - 1, 1);
      const path = context.path;
      const fail = (why: string) => new CodecError(`${path}: lz4: ${why}`, { path });
      return {
        kind: "bytes_to_bytes",
        name,
        toJSON: () => ({ name, configuration: { acceleration } }),
        encode(bytes) {
          // liblz4 treats acceleration < 1 as 1.
          const block = lz4Compress(bytes, { acceleration: Math.max(1, acceleration) });
          const out = new Uint8Array(4 + block.length);
          new DataView(out.buffer).setUint32(0, bytes.length, true);
          out.set(block, 4);
          return out;
        },
        maxEncodedSize: lz4MaxEncodedSize,
        /**
         * The header's size is allocated once it is known to be possible:
         * equal to `decodedSize` when given, else at most
         * `options.maxDecodedSize` (or 1 GiB) and at most what the block's
         * length can decode to ({@link lz4MaxDecodedSize}).
         */
        decode(bytes, decodedSize, options) {
          if (bytes.length < 4)
            throw fail(`${bytes.length} bytes is too short for the size header`);
          const size = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
          if (decodedSize !== undefined && size !== decodedSize) {
            throw fail(`header claims ${size} decoded bytes, expected ${decodedSize}`);
          }
          const limit = decodedSize ?? options?.maxDecodedSize ?? DEFAULT_MAX_DECODED_SIZE;
          if (size > limit) {
            throw fail(`header claims ${size} decoded bytes, at most ${limit} expected`);
          }
          const possible = lz4MaxDecodedSize(bytes.length - 4);
          if (size > possible) {
            throw fail(
              `header claims ${size} decoded bytes, but a block of ${bytes.length - 4} bytes holds at most ${possible}`,
            );
          }
          return lz4Decompress(bytes.subarray(4), size, path);
        },
      };
    },
  };
}

/** numcodecs `lz4` (v2 id; `{acceleration}`, default 1). */
export const lz4Codec: CodecFactory = lz4Factory("lz4");
/** zarr-python 3's `numcodecs.lz4`. */
export const numcodecsLz4Codec: CodecFactory = lz4Factory("numcodecs.lz4");

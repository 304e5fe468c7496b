/**
 * numcodecs' `bz2` compressor (`{level}`: Python's `bz2.compress` /
 * `bz2.decompress`) over this package's own bzip2 code.
 *
 * @module
 */
import {
  type BytesToBytesCodec,
  boundedDecode,
  type CodecFactory,
  ConfigReader,
} from "@zarr/core/codec";
import { bzip2Decompress } from "./bzip2-decode.js";
import { bzip2Compress } from "./bzip2-encode.js";

/**
 * The most bytes a bzip2 encoding of `n` bytes can take: bzip2 documents
 * `n + n/100 + 600` for one stream; `n/32 + 64 KiB` leaves room for writers
 * that start a stream per block (pbzip2) and for their headers.
 *
 * @param n - The decoded size in bytes.
 * @returns The bound in bytes.
 * @example
 * ```ts
 * import { bz2MaxEncodedSize } from "@zarr/codec-bz2";
 * bz2MaxEncodedSize(1 << 20); // 1,146,880
 * ```
 */
export function bz2MaxEncodedSize(n: number): number {
  return n + Math.floor(n / 32) + 64 * 1024;
}

function bz2Factory(name: string): CodecFactory {
  return {
    kind: "bytes_to_bytes",
    fromConfig(configuration, context): BytesToBytesCodec {
      const config = new ConfigReader("bz2", configuration ?? {}, context.path);
      const level = config.integer("level", 1, 9, 1);
      const path = context.path;
      return {
        kind: "bytes_to_bytes",
        name,
        toJSON: () => ({ name, configuration: { level } }),
        encode: (bytes) => bzip2Compress(bytes, level),
        decode: (bytes, decodedSize, options) =>
          boundedDecode("bz2", path, decodedSize, options, (limit, exact) =>
            bzip2Decompress(bytes, limit, path, exact),
          ),
        maxEncodedSize: bz2MaxEncodedSize,
      };
    },
  };
}

/** numcodecs `bz2` (v2 id; `{level}`, 1..9, default 1). */
export const bz2Codec: CodecFactory = bz2Factory("bz2");
/** zarr-python 3's `numcodecs.bz2`. */
export const numcodecsBz2Codec: CodecFactory = bz2Factory("numcodecs.bz2");

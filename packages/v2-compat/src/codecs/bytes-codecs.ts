/**
 * numcodecs bytes-level codecs: `shuffle` (byte transposition by
 * `elementsize`) and `lz4` (a 4-byte little-endian decoded size, then one LZ4
 * block, as numcodecs' LZ4 writes it).
 *
 * @module
 */
import { lz4Compress, lz4Decompress } from "@zarr/codec-blosc/lz4";
import { CodecError } from "@zarr/core";
import type { BytesToBytesCodec, CodecFactory } from "@zarr/core/codec";
import { Config } from "./common.js";

import { DEFAULT_MAX_DECODED_SIZE } from "./compressors.js";

/**
 * The most bytes an LZ4 block of `n` bytes can decode to: a match costs at
 * least 3 bytes (token, offset) for at most 19 output bytes, and each
 * further length byte adds at most 255; literals are one for one.
 */
export function lz4MaxDecodedSize(n: number): number {
  return 255 * n;
}

/**
 * The most bytes numcodecs' LZ4 encoding of `n` bytes can take: the 4-byte
 * size header and LZ4's `LZ4_COMPRESSBOUND(n) = n + n/255 + 16`, with room
 * for encoders less careful than liblz4: `n + n/128 + 64`.
 */
export function lz4MaxEncodedSize(n: number): number {
  return n + Math.floor(n / 128) + 64;
}

function shuffleFactory(name: string): CodecFactory {
  return {
    kind: "bytes_to_bytes",
    fromConfig(configuration, context): BytesToBytesCodec {
      const config = new Config("shuffle", configuration ?? {}, context.path);
      const size = config.integer("elementsize", 0, 1 << 20, 4);
      const check = (n: number) => {
        if (size > 1 && n % size !== 0) {
          throw new CodecError(
            `${context.path}: shuffle: ${n} bytes is not a multiple of elementsize ${size}`,
            { path: context.path },
          );
        }
      };
      return {
        kind: "bytes_to_bytes",
        name,
        toJSON: () => ({ name, configuration: { elementsize: size } }),
        encodedSize: (n) => n,
        maxEncodedSize: (n) => n,
        encode(bytes) {
          check(bytes.length);
          if (size <= 1) return bytes.slice();
          const count = bytes.length / size;
          const out = new Uint8Array(bytes.length);
          for (let i = 0; i < count; i++)
            for (let j = 0; j < size; j++) out[j * count + i] = bytes[i * size + j];
          return out;
        },
        decode(bytes, decodedSize, options) {
          const limit = decodedSize ?? options?.maxDecodedSize;
          if (
            decodedSize !== undefined
              ? bytes.length !== decodedSize
              : bytes.length > (limit ?? Infinity)
          ) {
            throw new CodecError(
              `${context.path}: shuffle: ${bytes.length} bytes, expected ${decodedSize === undefined ? "at most " : ""}${limit}`,
              { path: context.path },
            );
          }
          check(bytes.length);
          if (size <= 1) return bytes.slice();
          const count = bytes.length / size;
          const out = new Uint8Array(bytes.length);
          for (let i = 0; i < count; i++)
            for (let j = 0; j < size; j++) out[i * size + j] = bytes[j * count + i];
          return out;
        },
      };
    },
  };
}

function lz4Factory(name: string): CodecFactory {
  return {
    kind: "bytes_to_bytes",
    fromConfig(configuration, context): BytesToBytesCodec {
      const config = new Config("lz4", configuration ?? {}, context.path);
      const acceleration = config.integer("acceleration", -(2 ** 31), 2 ** 31 - 1, 1);
      const path = context.path;
      return {
        kind: "bytes_to_bytes",
        name,
        toJSON: () => ({ name, configuration: { acceleration } }),
        encode(bytes) {
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
            throw new CodecError(
              `${path}: lz4: ${bytes.length} bytes is too short for the size header`,
              { path },
            );
          const size = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
          if (decodedSize !== undefined && size !== decodedSize) {
            throw new CodecError(
              `${path}: lz4: header claims ${size} decoded bytes, expected ${decodedSize}`,
              { path },
            );
          }
          const limit = decodedSize ?? options?.maxDecodedSize ?? DEFAULT_MAX_DECODED_SIZE;
          if (size > limit) {
            throw new CodecError(
              `${path}: lz4: header claims ${size} decoded bytes, at most ${limit} expected`,
              { path },
            );
          }
          const possible = lz4MaxDecodedSize(bytes.length - 4);
          if (size > possible) {
            throw new CodecError(
              `${path}: lz4: header claims ${size} decoded bytes, but a block of ${bytes.length - 4} bytes holds at most ${possible}`,
              { path },
            );
          }
          return lz4Decompress(bytes.subarray(4), size, path);
        },
      };
    },
  };
}

/** `shuffle` (`{elementsize}`). */
export const shuffleCodec = shuffleFactory("shuffle");
/** `numcodecs.shuffle`. */
export const numcodecsShuffleCodec = shuffleFactory("numcodecs.shuffle");
/** `lz4` (`{acceleration}`). */
export const lz4Codec = lz4Factory("lz4");
/** `numcodecs.lz4`. */
export const numcodecsLz4Codec = lz4Factory("numcodecs.lz4");

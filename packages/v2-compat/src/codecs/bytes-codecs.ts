/**
 * numcodecs bytes-level codecs: `shuffle` (byte transposition by
 * `elementsize`) and `lz4` (a 4-byte little-endian decoded size, then one LZ4
 * block, as numcodecs' LZ4 writes it).
 *
 * @module
 */
import { lz4Compress, lz4Decompress } from "@zarr/codec-blosc/lz4";
import { type BytesToBytesCodec, CodecError, type CodecFactory } from "@zarr/core";
import { Config } from "./common.js";

/** Largest decoded size an lz4 header may claim when the pipeline cannot bound it (1 GiB). */
const LZ4_MAX_UNBOUNDED = 1 << 30;

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
        encode(bytes) {
          check(bytes.length);
          if (size <= 1) return bytes.slice();
          const count = bytes.length / size;
          const out = new Uint8Array(bytes.length);
          for (let i = 0; i < count; i++)
            for (let j = 0; j < size; j++) out[j * count + i] = bytes[i * size + j];
          return out;
        },
        decode(bytes) {
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
        decode(bytes, decodedSize) {
          if (bytes.length < 4)
            throw new CodecError(
              `${path}: lz4: ${bytes.length} bytes is too short for the size header`,
              { path },
            );
          const size = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
          const limit = decodedSize ?? LZ4_MAX_UNBOUNDED;
          if (size > limit) {
            throw new CodecError(
              `${path}: lz4: header claims ${size} decoded bytes, at most ${limit} expected`,
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

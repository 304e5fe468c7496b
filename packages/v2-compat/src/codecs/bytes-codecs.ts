/**
 * numcodecs' `shuffle` bytes-level codec (byte transposition by
 * `elementsize`). numcodecs' `lz4` is in `@zarr/codec-lz4`.
 *
 * @module
 */
import { CodecError } from "@zarr/core";
import type { BytesToBytesCodec, CodecFactory } from "@zarr/core/codec";
import { Config } from "./common.js";

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

/** `shuffle` (`{elementsize}`). */
export const shuffleCodec = shuffleFactory("shuffle");
/** `numcodecs.shuffle`. */
export const numcodecsShuffleCodec = shuffleFactory("numcodecs.shuffle");

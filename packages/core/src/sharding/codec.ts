/**
 * `sharding_indexed` (array -> bytes; v3 codec spec "sharding-indexed"): a
 * shard holds a grid of inner chunks, each encoded with the inner `codecs`,
 * plus an index of their byte ranges. The pieces live beside this file:
 * {@link parseShardingConfig} (config.ts), {@link ShardLayout} (layout.ts),
 * {@link ShardIndexCodec} (shard-index.ts), {@link encodeShard} (encode.ts),
 * {@link decodeShard} and {@link decodeShardRegion} (decode.ts).
 *
 * Inner pipelines are built through the codec context, so this folder does not
 * import the pipeline module (which loads this codec only when metadata names it).
 *
 * @module
 */

import type { DecodeLimits } from "../codecs/limits.js";
import type {
  ArrayToBytesCodec,
  ByteGetter,
  ChunkRegion,
  ChunkSpec,
  CodecFactory,
  CodecOptions,
  NDArray,
} from "../codecs/types.js";
import { uint64 } from "../dtypes/index.js";
import type { JsonObject } from "../dtypes/types.js";
import { CodecError, MetadataError } from "../errors.js";
import { parseShardingConfig } from "./config.js";
import { decodeShard, decodeShardRegion, type ShardReader } from "./decode.js";
import { encodeShard } from "./encode.js";
import { ShardLayout } from "./layout.js";
import { ShardIndexCodec } from "./shard-index.js";

/** The `sharding_indexed` codec factory. */
export const shardingCodec: CodecFactory = {
  kind: "array_to_bytes",
  async fromConfig(configuration: JsonObject | undefined, context): Promise<ArrayToBytesCodec> {
    const { path, spec, format } = context;
    const config = parseShardingConfig(configuration, spec.shape, path);
    const { innerShape, location } = config;
    const layout = new ShardLayout(spec.shape, innerShape, spec.dataType.width);
    const inner = await context.pipeline(
      config.codecs,
      { shape: innerShape, dataType: spec.dataType, fillValue: spec.fillValue },
      `${path} inner codecs`,
    );
    const indexPipeline = await context.pipeline(
      config.indexCodecs,
      { shape: [...layout.perShard, 2], dataType: uint64, fillValue: uint64.defaultFillValue() },
      `${path} index_codecs`,
    );
    const indexSize = indexPipeline.encodedSize;
    if (indexSize === undefined) {
      throw new MetadataError(
        `${path}: sharding_indexed: index_codecs must produce fixed-size output (e.g. bytes + crc32c)`,
        { path },
      );
    }
    const fail = (why: string) => new CodecError(`${path}: sharding_indexed: ${why}`, { path });
    const index = new ShardIndexCodec(
      indexPipeline,
      indexSize,
      location,
      layout.nChunks,
      layout.perShard,
      fail,
    );
    const reader: ShardReader = { layout, inner, index, path, format };

    return {
      kind: "array_to_bytes",
      name: "sharding_indexed",
      toJSON: () => ({
        name: "sharding_indexed",
        configuration: {
          chunk_shape: [...innerShape],
          codecs: inner.toJSON(),
          index_codecs: indexPipeline.toJSON(),
          index_location: location,
        },
      }),
      maxEncodedSize(_decoded: ChunkSpec, limits: DecodeLimits): number {
        return Math.min(
          Number.MAX_SAFE_INTEGER,
          indexSize + layout.nChunks * inner.maxEncodedSize(limits),
        );
      },
      validate(decoded: ChunkSpec) {
        if (
          decoded.shape.length !== layout.ndim ||
          decoded.shape.some((s, i) => s % innerShape[i] !== 0)
        ) {
          throw fail(
            `shard shape [${decoded.shape.join(", ")}] is not a multiple of chunk_shape [${innerShape.join(", ")}]`,
          );
        }
      },
      encode: (chunk: NDArray, decoded: ChunkSpec, options?: CodecOptions) =>
        encodeShard(chunk, decoded, layout, inner, index, path, options),
      decode: (bytes: Uint8Array, decoded: ChunkSpec, options?: CodecOptions) =>
        decodeShard(reader, bytes, decoded, options),
      decodePartial: (
        input: ByteGetter,
        region: ChunkRegion,
        decoded: ChunkSpec,
        options?: CodecOptions,
      ) => decodeShardRegion(reader, input, region, decoded, options),
    };
  },
};

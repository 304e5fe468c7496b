/**
 * The `sharding_indexed` configuration (v3 codec spec "sharding-indexed"):
 * `chunk_shape`, `codecs`, `index_codecs` and `index_location`, validated
 * against the shard's shape.
 *
 * @module
 */

import type { JsonObject, JsonValue } from "../dtypes/types.js";
import { MetadataError } from "../errors.js";

/** A validated `sharding_indexed` configuration. */
export interface ShardingConfig {
  readonly innerShape: number[];
  readonly location: "start" | "end";
  readonly codecs: JsonValue[];
  readonly indexCodecs: JsonValue[];
}

const KEYS = ["chunk_shape", "codecs", "index_codecs", "index_location"];

/** The default `index_codecs`: little-endian uint64 pairs followed by a crc32c checksum. */
const DEFAULT_INDEX_CODECS: JsonValue[] = [
  { name: "bytes", configuration: { endian: "little" } },
  { name: "crc32c" },
];

function positiveIntList(
  value: JsonValue | undefined,
  ndim: number,
  field: string,
  path: string,
): number[] {
  if (!Array.isArray(value) || value.length !== ndim) {
    throw new MetadataError(
      `${path}: sharding_indexed: ${field} must be a list of ${ndim} positive integers`,
      { path },
    );
  }
  for (const v of value) {
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 1) {
      throw new MetadataError(
        `${path}: sharding_indexed: ${field} must hold positive integers, got ${String(v)}`,
        { path },
      );
    }
  }
  return value as number[];
}

/** Validates `configuration` for shards of `shardShape`; throws `MetadataError` naming the field. */
export function parseShardingConfig(
  configuration: JsonObject | undefined,
  shardShape: readonly number[],
  path: string,
): ShardingConfig {
  const cfg = configuration ?? {};
  for (const key of Object.keys(cfg)) {
    if (!KEYS.includes(key)) {
      throw new MetadataError(`${path}: sharding_indexed: unknown configuration key "${key}"`, {
        path,
      });
    }
  }
  const innerShape = positiveIntList(cfg.chunk_shape, shardShape.length, "chunk_shape", path);
  innerShape.forEach((c, i) => {
    if (shardShape[i] % c !== 0) {
      throw new MetadataError(
        `${path}: sharding_indexed: chunk_shape [${innerShape.join(", ")}] does not divide the shard shape [${shardShape.join(", ")}]`,
        { path },
      );
    }
  });
  const location = cfg.index_location ?? "end";
  if (location !== "start" && location !== "end") {
    throw new MetadataError(`${path}: sharding_indexed: index_location must be "start" or "end"`, {
      path,
    });
  }
  if (!Array.isArray(cfg.codecs)) {
    throw new MetadataError(`${path}: sharding_indexed: codecs must be a list`, { path });
  }
  const indexCodecs = Array.isArray(cfg.index_codecs) ? cfg.index_codecs : DEFAULT_INDEX_CODECS;
  return { innerShape, location, codecs: cfg.codecs, indexCodecs };
}

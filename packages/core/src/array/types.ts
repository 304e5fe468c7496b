/**
 * The options and parts of a Zarr array, shared by its read, write,
 * coordinate-selection and resize paths.
 *
 * @module
 */

import type { ChunkCache } from "../cache/chunk-cache.js";
import type { ChunkGrid } from "../chunk-grid/regular.js";
import type { ChunkKeyEncoding } from "../chunk-key/encodings.js";
import type { DecodeLimits } from "../codecs/limits.js";
import type { CodecPipeline } from "../codecs/pipeline.js";
import type { CoalesceOptions, NDArray } from "../codecs/types.js";
import type { DataArrayOf, DataTypeName, ScalarOf } from "../dtypes/type-map.js";
import type { DataType, FillValue } from "../dtypes/types.js";
import type { ArrayMetadataV3 } from "../metadata/index.js";
import type { ShardIndexCache } from "../sharding/index-cache.js";
import type { Store } from "../store/types.js";
import type { ChunkCodecWorkers } from "../workers/types.js";

/** Options of reads (`getChunk`, `getCoordinates`), and the base of every array operation's options. */
export interface GetOptions {
  /** Cancels the operation: it rejects with an `AbortError`. */
  signal?: AbortSignal;
  /**
   * Chunks in flight at once: fetched and decoded, and for writes modified,
   * encoded and stored (default 16). Ignored by `getChunk` and `setChunk`.
   */
  concurrency?: number;
  /** How partial reads of sharded chunks merge nearby byte ranges. */
  coalesce?: CoalesceOptions;
  /**
   * Where chunk codecs run: a worker pool (e.g. from `@zarr/workers`), or
   * `false` for the calling thread. Default: `ZarrArray.defaultWorkers`.
   */
  workers?: ChunkCodecWorkers | false;
  /**
   * Overrides of the process-wide decode limits (see `setDecodeLimits`): the
   * bounds on variable-size elements and chunks that keep decoding of
   * strings, bytes and objects proportional to what the metadata justifies.
   */
  decodeLimits?: Partial<DecodeLimits>;
  /**
   * Shard indexes kept across calls (sharded arrays): reads take indexes from
   * it and add the ones they load; writes drop the entries of the shards
   * they replace. See {@link ShardIndexCache} for when it is safe.
   */
  shardIndexCache?: ShardIndexCache;
}

/** Options of `ZarrArray.get` on an array of data type `D`. */
export interface ReadOptions<D extends DataTypeName = DataTypeName> extends GetOptions {
  /**
   * Read into this array instead of a new one (e.g. to reuse memory across
   * reads): the selection's element count in the data type's array kind
   * (`Float32Array` for float32, ...), C order. Every element is written. The
   * result's `data` is this array.
   */
  out?: DataArrayOf<D>;
  /**
   * Decoded chunks kept across reads, shared by any number of arrays and
   * stores (see {@link ChunkCache}): chunks it holds are not read again, the
   * ones read are added (inner chunks, for sharded arrays). Writes through the
   * same store object drop what they replace.
   */
  chunkCache?: ChunkCache;
}

/** Options of writes (`ZarrArray.set`, `setChunk`, `setCoordinates`). */
export interface SetOptions extends GetOptions {
  /**
   * Store chunks whose every element equals the fill value (default `false`:
   * such chunks are not written, and an existing one is erased).
   */
  writeEmptyChunks?: boolean;
}

/**
 * A value accepted by `ZarrArray.set` on an array of data type `D`: a scalar
 * broadcast to the selection ({@link ScalarOf}), a flat C-order array
 * ({@link DataArrayOf}), or an NDArray-like `{data, shape, stride?}` of it.
 */
export type ArrayValue<D extends DataTypeName = DataTypeName> =
  | ScalarOf<D>
  | DataArrayOf<D>
  | (Pick<NDArray<DataArrayOf<D>>, "data" | "shape"> &
      Partial<Pick<NDArray<DataArrayOf<D>>, "stride">>);

/** The parts of an array's definition that are derived from its metadata. */
export interface ArrayParts {
  /** The metadata document, in v3 form. */
  readonly meta: ArrayMetadataV3;
  /** The resolved data type. */
  readonly dataType: DataType;
  /** The resolved fill value. */
  readonly fillValue: FillValue;
  /** The chunk grid (chunk shape and grid shape). */
  readonly grid: ChunkGrid;
  /** Maps chunk grid coordinates to store keys and back. */
  readonly keyEncoding: ChunkKeyEncoding;
  /** The codec pipeline of the chunks. */
  readonly codecs: CodecPipeline;
  /** Writes metadata for this array (v3 zarr.json, or another format's documents). */
  readonly writeMetadata?: (store: Store, path: string, meta: ArrayMetadataV3) => Promise<void>;
  /** Rebuilds the derived parts after a shape change. */
  readonly rebuild: (meta: ArrayMetadataV3) => Promise<ArrayParts>;
  /** The Zarr format of the stored metadata. */
  readonly zarrFormat: 2 | 3;
  /**
   * Store chunks equal to the fill value too (the array has no fill value for
   * some readers, see `V2_FILL_VALUE_FIELD`): a missing chunk would not read
   * back as the values written.
   */
  readonly keepFillChunks?: boolean;
}

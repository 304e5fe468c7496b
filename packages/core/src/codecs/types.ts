/**
 * Codec contract, after the v3 core spec section "Codecs": array -> array,
 * array -> bytes and bytes -> bytes codecs, each with representation
 * propagation (`encodedSpec`), `encode` and `decode`, and optional partial
 * decoding and encoded-size computation.
 *
 * A codec package exports a {@link CodecFactory} and registers it under its v3
 * name (and v2 numcodecs id where one exists) with `registerCodec`.
 *
 * @module
 */

import type { ChunkCache } from "../cache/chunk-cache.js";
import type { DataArray, DataType, FillValue, JsonObject, JsonValue } from "../dtypes/types.js";
import type { ShardIndexCache } from "../sharding/index-cache.js";
import type { ByteRange, StoreOptions } from "../store/types.js";
import type { ChunkCodecWorkers } from "../workers/types.js";
import type { DecodeLimits } from "./limits.js";
import type { CodecPipeline } from "./pipeline.js";

/** An n-dimensional array in memory: flat data, shape and strides (in elements). */
export interface NDArray<D extends DataArray = DataArray> {
  readonly data: D;
  readonly shape: readonly number[];
  /** Element strides (not bytes, not slots). Row-major (C order) unless stated otherwise. */
  readonly stride: readonly number[];
  readonly dataType: DataType;
}

/** The decoded representation a codec sees: an array of some shape and data type. */
export interface ChunkSpec {
  readonly shape: readonly number[];
  readonly dataType: DataType;
  readonly fillValue: FillValue;
}

/** How partial decoders merge nearby byte ranges into one read. */
export interface CoalesceOptions {
  /** Ranges closer than this many bytes are read together (default 16 KiB). */
  gap?: number;
  /** A merged read never exceeds this many bytes (default 8 MiB). */
  maxSize?: number;
}

/** Options passed to codec operations. */
export interface CodecOptions extends StoreOptions {
  /** Range coalescing for partial reads (sharding). */
  coalesce?: CoalesceOptions;
  /**
   * A worker pool for nested decodes that can run side by side (the inner
   * chunks of a partial shard read); arrays pass theirs. `false` or absent:
   * the calling thread decodes them.
   */
  workers?: ChunkCodecWorkers | false;
  /** Shard indexes kept across reads (see {@link ShardIndexCache}). */
  shardIndexCache?: ShardIndexCache;
  /**
   * Decoded chunks kept across reads (see {@link ChunkCache}): partial shard
   * reads take inner chunks from it and add the ones they decode (with a
   * `ByteGetter` that has a string `cacheKey`, a `cacheScope` and a `cacheTag`).
   */
  chunkCache?: ChunkCache;
  /**
   * Decoding only, set by the pipeline for a bytes -> bytes decode whose exact
   * output size is unknown (a compressor after another bytes -> bytes codec,
   * or after a variable-size encoding such as `vlen-utf8`): the most bytes the
   * output may have, derived from the metadata and the decode limits. A
   * decoder must stop as soon as its output would pass it and throw a
   * `CodecError`, growing its output as it goes (never allocating the bound
   * up front). The pipeline checks the result as well.
   */
  maxDecodedSize?: number;
  /**
   * Overrides of the process-wide {@link DecodeLimits} (bounds on
   * variable-size elements and chunks, and on metadata documents) for this
   * operation.
   */
  decodeLimits?: Partial<DecodeLimits>;
}

/** Common members of every codec. */
interface CodecBase {
  /** The name it was created under (v3 name, URL, or v2 id). */
  readonly name: string;
  /** The metadata form: `{name, configuration?}` with every default filled in. */
  toJSON(): JsonObject;
}

/** array -> array: e.g. `transpose`. */
export interface ArrayToArrayCodec extends CodecBase {
  readonly kind: "array_to_array";
  /** The representation after encoding; throws `CodecError` when `decoded` is unsupported. */
  encodedSpec(decoded: ChunkSpec): ChunkSpec;
  encode(chunk: NDArray, decoded: ChunkSpec, options?: CodecOptions): Promise<NDArray> | NDArray;
  decode(chunk: NDArray, decoded: ChunkSpec, options?: CodecOptions): Promise<NDArray> | NDArray;
}

/**
 * Reads byte ranges of an encoded value, e.g. of one chunk in a store. Partial
 * decoders use it to fetch only what they need.
 */
export interface ByteGetter {
  /** Identifies the underlying value (e.g. store + key), so concurrent readers can share work. */
  readonly cacheKey?: object | string;
  /** The store the value lives in, scoping caches that outlive one read (with a string `cacheKey`). */
  readonly cacheScope?: object;
  /** What the decoded value depends on besides its bytes (metadata), for `CodecOptions.chunkCache`. */
  readonly cacheTag?: string;
  get(range?: ByteRange, options?: StoreOptions): Promise<Uint8Array | undefined>;
  getMany?(
    ranges: readonly ByteRange[],
    options?: StoreOptions,
  ): Promise<(Uint8Array | undefined)[]>;
}

/** A region of a chunk: per dimension `[start, stop)` with step 1. */
export type ChunkRegion = readonly (readonly [number, number])[];

/** array -> bytes: e.g. `bytes`, `sharding_indexed`, `vlen-utf8`. */
export interface ArrayToBytesCodec extends CodecBase {
  readonly kind: "array_to_bytes";
  /** Validates that the codec supports `decoded`; throws `CodecError` otherwise. */
  validate(decoded: ChunkSpec): void;
  encode(
    chunk: NDArray,
    decoded: ChunkSpec,
    options?: CodecOptions,
  ): Promise<Uint8Array> | Uint8Array;
  /** Decodes to a C-order array of `decoded.shape`. */
  decode(bytes: Uint8Array, decoded: ChunkSpec, options?: CodecOptions): Promise<NDArray> | NDArray;
  /**
   * Decodes only `region` of the chunk, reading through `input`. Returns
   * `undefined` when the whole chunk is missing.
   */
  decodePartial?(
    input: ByteGetter,
    region: ChunkRegion,
    decoded: ChunkSpec,
    options?: CodecOptions,
  ): Promise<NDArray | undefined>;
  /** Encoded byte length for a chunk of `decoded`, when fixed (not for compressors). */
  encodedSize?(decoded: ChunkSpec): number | undefined;
  /**
   * Optional: true when an encoded chunk of `decoded` is exactly the memory of
   * its decoded C-order array, byte for byte (the `bytes` codec in the host's
   * byte order with a type whose memory is its stored bytes), so a store can
   * read it straight into an output array.
   */
  storesMemory?(decoded: ChunkSpec): boolean;
  /**
   * The most bytes an encoded chunk of `decoded` can take, for encodings of
   * variable size (`vlen-utf8`: a length per element plus at most
   * `limits.maxElementBytes` each, capped by `limits.maxChunkBytes`). The
   * pipeline bounds decompression by it. Without it (and without
   * {@link encodedSize}) the pipeline assumes twice the in-memory size plus
   * 64 KiB for fixed-size types and the variable-size bound otherwise.
   */
  maxEncodedSize?(decoded: ChunkSpec, limits: DecodeLimits): number;
}

/** bytes -> bytes: compressors and checksums. */
export interface BytesToBytesCodec extends CodecBase {
  readonly kind: "bytes_to_bytes";
  encode(bytes: Uint8Array, options?: CodecOptions): Promise<Uint8Array> | Uint8Array;
  /**
   * Decodes. `decodedSize`, when given, is the exact decoded size (a
   * different length is a `CodecError`; a decoder may allocate it up front).
   * When it is not known, `options.maxDecodedSize` bounds the output (see
   * {@link CodecOptions.maxDecodedSize}).
   */
  decode(
    bytes: Uint8Array,
    decodedSize?: number,
    options?: CodecOptions,
  ): Promise<Uint8Array> | Uint8Array;
  /**
   * Optional: decodes `bytes` into `out`, whose length is the exact decoded size
   * (the pipeline calls it only when that size is fixed, e.g. after the `bytes`
   * codec). Any other decoded length is a `CodecError`. The written bytes must
   * equal what {@link decode} returns. The pipeline uses it to decode into reused
   * scratch memory or straight into a read's output instead of a fresh buffer;
   * on error, `out` may hold partial data.
   */
  decodeInto?(bytes: Uint8Array, out: Uint8Array, options?: CodecOptions): Promise<void> | void;
  /**
   * Optional, with {@link decodeInto}: decodes at least the decoded bytes
   * [start, end) into the same positions of `out` (the full decoded size);
   * the other bytes of `out` may be left as they are. For formats of
   * independently compressed blocks (blosc), so that a small selection of a
   * large chunk decodes only the blocks that hold it.
   */
  decodeRangeInto?(
    bytes: Uint8Array,
    out: Uint8Array,
    start: number,
    end: number,
    options?: CodecOptions,
  ): Promise<void> | void;
  /** Encoded length for an input of `decodedSize` bytes, when fixed (e.g. crc32c: +4). */
  encodedSize?(decodedSize: number): number | undefined;
  /**
   * The most bytes any conforming writer's encoding of `decodedSize` bytes
   * can take (a compressor's worst-case bound, with room for optional header
   * fields). The pipeline uses it to bound the decoded size of the codec
   * before this one in a chain. Without it the pipeline assumes
   * `2 * decodedSize + 64 KiB`.
   */
  maxEncodedSize?(decodedSize: number): number;
  /**
   * Optional: true when the codec's work already runs outside the calling
   * JavaScript thread (e.g. `node:zlib`'s thread pool), so worker pools leave
   * it there instead of adding a hop.
   */
  readonly runsOffThread?: boolean;
}

/** Any codec. */
export type Codec = ArrayToArrayCodec | ArrayToBytesCodec | BytesToBytesCodec;

/** What a codec factory receives besides its configuration. */
export interface CodecContext {
  /** The decoded representation this codec will see (shape, data type, fill value). */
  readonly spec: ChunkSpec;
  /** The metadata path, for error messages. */
  readonly path: string;
  /** Which metadata the codec is read from: v3 `codecs`, or a v2 `compressor`/`filters` entry. */
  readonly format: 2 | 3;
  /**
   * Builds a nested codec pipeline for chunks of `spec` from metadata codec
   * entries (used by `sharding_indexed` for its inner and index codecs);
   * `path` names it in errors.
   */
  readonly pipeline: (
    codecs: readonly JsonValue[],
    spec: ChunkSpec,
    path: string,
  ) => Promise<CodecPipeline>;
}

/**
 * Creates codecs from metadata. Registered by name with `registerCodec`.
 * `fromConfig` validates the configuration and throws `CodecError` or
 * `MetadataError` naming the field.
 */
export interface CodecFactory {
  readonly kind: Codec["kind"];
  fromConfig(configuration: JsonObject | undefined, context: CodecContext): Codec | Promise<Codec>;
}

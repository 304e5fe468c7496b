/**
 * The shard index: `(offset, nbytes)` uint64 pairs, one per inner chunk in C
 * order, encoded with `index_codecs` at the start or end of the shard.
 * Missing inner chunks have offset = nbytes = 2^64 - 1. Concurrent readers of
 * one shard share a single index read.
 *
 * @module
 */

import { unchangedSince, writeMark } from "../cache/registry.js";
import type { CodecPipeline } from "../codecs/pipeline.js";
import type { ByteGetter, CodecOptions } from "../codecs/types.js";
import { uint64 } from "../dtypes/index.js";
import { untilAborted } from "../errors.js";
import { cStrides } from "../indexing/index.js";

/** The offset and nbytes of a missing inner chunk. */
const MISSING = 0xffff_ffff_ffff_ffffn;

/** Offsets and sizes of the inner chunks of one shard; -1 marks a missing chunk. */
export interface ShardIndex {
  readonly offsets: Float64Array;
  readonly sizes: Float64Array;
}

/** Reads, decodes, checks and encodes the index of shards with one layout. */
/** A shard index read shared by concurrent readers, with the store's write mark when it began. */
interface InflightIndex {
  promise: Promise<ShardIndex | undefined>;
  mark: number | undefined;
}

export class ShardIndexCodec {
  readonly #inflight = new Map<object | string, InflightIndex>();
  readonly #shape: number[];

  constructor(
    readonly pipeline: CodecPipeline,
    /** Encoded size of the index (fixed: checked when the codec is built). */
    readonly size: number,
    readonly location: "start" | "end",
    readonly nChunks: number,
    perShard: readonly number[],
    readonly fail: (why: string) => Error,
  ) {
    this.#shape = [...perShard, 2];
  }

  /** The index bytes inside a whole shard. */
  slice(shard: Uint8Array): Uint8Array {
    return this.location === "end"
      ? shard.subarray(shard.length - this.size)
      : shard.subarray(0, this.size);
  }

  /** Decodes index bytes; with `shardLength`, also checks every entry lies inside the shard. */
  async decode(bytes: Uint8Array, shardLength: number | undefined): Promise<ShardIndex> {
    const decoded = (await this.pipeline.decode(bytes)).data as BigUint64Array;
    const n = this.nChunks;
    const offsets = new Float64Array(n);
    const sizes = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const o = decoded[2 * i];
      const s = decoded[2 * i + 1];
      if (o === MISSING && s === MISSING) {
        offsets[i] = -1;
        sizes[i] = -1;
        continue;
      }
      const end = o + s;
      if (o === MISSING || s === MISSING || end > BigInt(Number.MAX_SAFE_INTEGER)) {
        throw this.fail(`index entry ${i} (offset ${o}, nbytes ${s}) is invalid`);
      }
      if (shardLength !== undefined && Number(end) > shardLength) {
        throw this.fail(
          `index entry ${i} (offset ${o}, nbytes ${s}) points past the shard's ${shardLength} bytes`,
        );
      }
      offsets[i] = Number(o);
      sizes[i] = Number(s);
    }
    return { offsets, sizes };
  }

  /** Encodes `(offset, nbytes)` pairs (from {@link emptyPairs}) as index bytes. */
  encode(pairs: BigUint64Array, options?: CodecOptions): Promise<Uint8Array> {
    return this.pipeline.encode(
      { data: pairs, shape: this.#shape, stride: cStrides(this.#shape), dataType: uint64 },
      options,
    );
  }

  /** An index with every inner chunk missing, to fill in. */
  emptyPairs(): BigUint64Array {
    return new BigUint64Array(this.nChunks * 2).fill(MISSING);
  }

  /** Reads just the index of the shard behind `input`; `undefined` when the shard is missing. */
  async read(input: ByteGetter, options?: CodecOptions): Promise<ShardIndex | undefined> {
    const size = this.size;
    const range = this.location === "end" ? { suffix: size } : { offset: 0, length: size };
    const bytes = await input.get(range, options);
    if (bytes === undefined) return undefined;
    if (bytes.length !== size) {
      throw this.fail(`shard is ${bytes.length} bytes, shorter than its ${size}-byte index`);
    }
    return this.decode(bytes, undefined);
  }

  /**
   * Reads the index once for concurrent readers of the same shard, or takes
   * it from the caller's `shardIndexCache`.
   */
  shared(input: ByteGetter, options?: CodecOptions): Promise<ShardIndex | undefined> {
    const key = input.cacheKey;
    if (key === undefined) return this.read(input, options);
    const cache = options?.shardIndexCache;
    const scope = input.cacheScope;
    if (cache !== undefined && scope !== undefined && typeof key === "string") {
      const cached = cache.get(scope, key) as ShardIndex | undefined;
      if (cached !== undefined) return Promise.resolve(cached);
      return this.#readOnce(input, key, options).then((index) => {
        if (index !== undefined) cache.set(scope, key, index);
        return index;
      });
    }
    return this.#readOnce(input, key, options);
  }

  #readOnce(
    input: ByteGetter,
    key: object | string,
    options?: CodecOptions,
  ): Promise<ShardIndex | undefined> {
    const scope = input.cacheScope;
    let entry = this.#inflight.get(key);
    // A read that began before a write to the store (or an invalidation) may hold the
    // old index: a reader starting after it reads again rather than pair it with new bytes.
    if (entry !== undefined && scope !== undefined && !unchangedSince(scope, entry.mark)) {
      entry = undefined;
    }
    if (entry === undefined) {
      const mark = scope === undefined ? undefined : writeMark(scope);
      // Shared by every reader of the shard: no one reader's signal may end it.
      const promise = this.read(
        input,
        options?.signal === undefined ? options : { ...options, signal: undefined },
      );
      const started: InflightIndex = { promise, mark };
      entry = started;
      this.#inflight.set(key, started);
      const clear = () => {
        if (this.#inflight.get(key) === started) this.#inflight.delete(key);
      };
      promise.then(clear, clear);
    }
    return untilAborted(entry.promise, options?.signal, typeof key === "string" ? key : undefined);
  }
}

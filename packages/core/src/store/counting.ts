/**
 * A store wrapper that counts requests and bytes per operation, for tests and
 * for users tuning chunk and shard layouts ("how many reads does this cost?").
 *
 * @module
 */

import type { AnyStore, ByteRange, DirListing, KeyRange, KeyWrite, StoreOptions } from "./types.js";

/** Counters kept by {@link CountingStore}. */
export interface StoreCounts {
  /** Values or ranges read: one per `get` and one per request of `getPartialValues`. */
  reads: number;
  /** Bytes returned by reads. */
  readBytes: number;
  /** Reads of missing keys. */
  misses: number;
  /** `getPartialValues` calls (each may carry several requests). */
  batchedReads: number;
  /** `set` calls plus `setPartialValues` writes. */
  writes: number;
  /** Bytes written. */
  writtenBytes: number;
  /** Keys erased (`erase`, `eraseValues`) plus `erasePrefix` calls. */
  erases: number;
  /** `list`, `listPrefix` and `listDir` calls. */
  lists: number;
  /** Every read as `key` or `key[range]`, in order (only when `log` is on). */
  log: string[];
}

function emptyCounts(): StoreCounts {
  return {
    reads: 0,
    readBytes: 0,
    misses: 0,
    batchedReads: 0,
    writes: 0,
    writtenBytes: 0,
    erases: 0,
    lists: 0,
    log: [],
  };
}

function describeRange(range: ByteRange | undefined): string {
  if (!range) return "";
  if ("suffix" in range) return `[-${range.suffix}:]`;
  return `[${range.offset}:${range.length === undefined ? "" : range.offset + range.length}]`;
}

/**
 * Wraps `inner`, passing every operation through and counting it. Operations
 * the inner store lacks stay absent, so core's fallbacks (which call the
 * counted operations) are counted as what they really cost.
 *
 * @example
 * ```ts
 * import { CountingStore, openArray, slice } from "@zarr/core";
 * const counted = new CountingStore(store, { log: true });
 * const a = await openArray(counted, "temps");
 * counted.reset(); // leave out the metadata reads
 * await a.get([slice(0, 10), null]);
 * console.log(counted.counts.reads, counted.counts.readBytes, counted.counts.log);
 * ```
 */
export class CountingStore implements AnyStore {
  /** The counters; reset with {@link CountingStore.reset}. */
  counts: StoreCounts = emptyCounts();
  readonly getPartialValues?: AnyStore["getPartialValues"];
  readonly getSize?: AnyStore["getSize"];
  readonly set?: AnyStore["set"];
  readonly setPartialValues?: AnyStore["setPartialValues"];
  readonly erase?: AnyStore["erase"];
  readonly eraseValues?: AnyStore["eraseValues"];
  readonly erasePrefix?: AnyStore["erasePrefix"];
  readonly list?: AnyStore["list"];
  readonly listPrefix?: AnyStore["listPrefix"];
  readonly listDir?: AnyStore["listDir"];
  readonly close?: AnyStore["close"];
  readonly release?: AnyStore["release"];
  readonly copiesOnSet?: boolean;
  readonly location?: string;

  /**
   * Wraps a store; counting starts at zero.
   *
   * @param inner - The store to count: any store, e.g. a {@link MemoryStore}
   *   or one from {@link openStore}.
   * @param options - `log: true` also records every read as `key` or
   *   `key[start:end]` in `counts.log`. Default: `{}` (no log).
   */
  constructor(
    readonly inner: AnyStore,
    private readonly options: { log?: boolean } = {},
  ) {
    const c = () => this.counts;
    if (inner.getPartialValues) {
      const f = inner.getPartialValues.bind(inner);
      this.getPartialValues = async (requests: readonly KeyRange[], opts?: StoreOptions) => {
        c().batchedReads++;
        const out = await f(requests, opts);
        for (let i = 0; i < requests.length; i++)
          this.#countRead(requests[i].key, requests[i].range, out[i]);
        return out;
      };
    }
    if (inner.getSize) this.getSize = inner.getSize.bind(inner);
    if (inner.close) this.close = inner.close.bind(inner);
    // Counting keeps no values, so the inner store may reuse what it is given back.
    if (inner.release) this.release = inner.release.bind(inner);
    this.copiesOnSet = inner.copiesOnSet;
    // The same place as the counted store, so writes through both share chunk locks.
    this.location = inner.location;
    if (inner.set) {
      const f = inner.set.bind(inner);
      this.set = (key: string, value: Uint8Array, opts?: StoreOptions) => {
        c().writes++;
        c().writtenBytes += value.length;
        return f(key, value, opts);
      };
    }
    if (inner.setPartialValues) {
      const f = inner.setPartialValues.bind(inner);
      this.setPartialValues = (writes: readonly KeyWrite[], opts?: StoreOptions) => {
        c().writes += writes.length;
        for (const w of writes) c().writtenBytes += w.value.length;
        return f(writes, opts);
      };
    }
    if (inner.erase) {
      const f = inner.erase.bind(inner);
      this.erase = (key: string, opts?: StoreOptions) => {
        c().erases++;
        return f(key, opts);
      };
    }
    if (inner.eraseValues) {
      const f = inner.eraseValues.bind(inner);
      this.eraseValues = (keys: readonly string[], opts?: StoreOptions) => {
        c().erases += keys.length;
        return f(keys, opts);
      };
    }
    if (inner.erasePrefix) {
      const f = inner.erasePrefix.bind(inner);
      this.erasePrefix = (prefix: string, opts?: StoreOptions) => {
        c().erases++;
        return f(prefix, opts);
      };
    }
    if (inner.list) {
      const f = inner.list.bind(inner);
      this.list = (opts?: StoreOptions) => {
        c().lists++;
        return f(opts);
      };
    }
    if (inner.listPrefix) {
      const f = inner.listPrefix.bind(inner);
      this.listPrefix = (prefix: string, opts?: StoreOptions) => {
        c().lists++;
        return f(prefix, opts);
      };
    }
    if (inner.listDir) {
      const f = inner.listDir.bind(inner);
      this.listDir = (prefix: string, opts?: StoreOptions): Promise<DirListing> => {
        c().lists++;
        return f(prefix, opts);
      };
    }
  }

  #countRead(key: string, range: ByteRange | undefined, value: Uint8Array | undefined): void {
    this.counts.reads++;
    if (value === undefined) this.counts.misses++;
    else this.counts.readBytes += value.length;
    if (this.options.log) this.counts.log.push(`${key}${describeRange(range)}`);
  }

  /**
   * Reads from the inner store and counts one read (and a miss when the key is
   * missing).
   *
   * @param key - The store key.
   * @param range - A byte range, `{ offset, length? }` or `{ suffix }`. Default:
   *   the whole value.
   * @param options - Passed to the inner store (`signal`, `maxBytes`).
   * @returns What the inner store returns: the bytes, or `undefined` when the
   *   key is missing.
   * @throws Whatever the inner store's `get` throws.
   */
  async get(
    key: string,
    range?: ByteRange,
    options?: StoreOptions,
  ): Promise<Uint8Array | undefined> {
    const value = await this.inner.get(key, range, options);
    this.#countRead(key, range, value ?? undefined);
    return value;
  }

  /**
   * Returns the counters so far and starts again from zero.
   *
   * @returns The counters before the reset (a new object replaces `counts`).
   */
  reset(): StoreCounts {
    const before = this.counts;
    this.counts = emptyCounts();
    return before;
  }
}

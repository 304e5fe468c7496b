/**
 * {@link CachingStore}: an in-memory, byte-bounded LRU read cache in front of any
 * store. Built only on @zarr/core's public store interface (`AnyStore`,
 * `resolveStore`, the range helpers and errors).
 *
 * @module
 */

import { AbortError, type AnyStore, type Store, type StoreOptions } from "@zarr/core";
import {
  type ByteRange,
  type DirListing,
  isSuffixRange,
  type KeyRange,
  type KeyWrite,
  type ReadableStore,
  resolveStore,
  sliceRange,
  throwIfAborted,
} from "@zarr/core/store";
import { ByteLru } from "./lru.js";

/** Options of {@link CachingStore}. */
export interface CachingStoreOptions {
  /** Total bytes the cache may hold, values plus 64 bytes per entry (default 64 MiB). */
  maxBytes?: number;
  /** Values larger than this are passed through, never cached (default `maxBytes / 4`). */
  maxEntryBytes?: number;
  /** Remember that a key is missing, so repeated probes cost nothing (default `true`). */
  cacheMisses?: boolean;
}

/** Counters of a {@link CachingStore}. */
export interface CacheStats {
  /** Reads answered from the cache. */
  hits: number;
  /** Reads that went to the inner store. */
  misses: number;
  /** Reads that joined a request already in flight for the same key and range. */
  shared: number;
  /** Entries held (values, ranges and remembered misses). */
  entries: number;
  /** Bytes charged against `maxBytes`. */
  bytes: number;
}

interface InFlight {
  readonly key: string;
  readonly promise: Promise<Uint8Array | undefined>;
  readonly controller: AbortController;
  waiters: number;
}

// NUL cannot occur in a valid key, so it separates key and range in entry ids.
const SEP = "\0";

function rangeId(range: ByteRange | undefined): string {
  if (range === undefined) return "";
  if (isSuffixRange(range)) return `-${range.suffix}`;
  return `${range.offset}+${range.length ?? ""}`;
}

function validSize(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`CachingStore: ${name} must be a non-negative integer, got ${value}`);
  }
  return value;
}

/**
 * A read cache around `inner`. Whole values and byte ranges are cached as read
 * (a cached whole value also answers every range of it); concurrent reads of
 * the same key and range share one request to `inner`. Every value handed out
 * is a fresh copy, so callers can mutate results freely.
 *
 * Writes go through to `inner` and drop the cached entries of the keys they
 * touch; a read that overlaps a write is not cached. The cache is only
 * coherent for writes made through this object: wrap a store that others write
 * to (another process, another wrapper) only if stale reads are acceptable,
 * or call {@link CachingStore.clear}.
 *
 * The wrapper has exactly the capabilities of `inner`: it is writable or
 * listable only when `inner` is.
 */
export class CachingStore implements ReadableStore {
  /** `inner`, resolved: validated keys and generic fallbacks for what it lacks. */
  readonly inner: Store;
  readonly set?: (key: string, value: Uint8Array, options?: StoreOptions) => Promise<void>;
  readonly setPartialValues?: (
    writes: readonly KeyWrite[],
    options?: StoreOptions,
  ) => Promise<void>;
  readonly erase?: (key: string, options?: StoreOptions) => Promise<void>;
  readonly eraseValues?: (keys: readonly string[], options?: StoreOptions) => Promise<void>;
  readonly erasePrefix?: (prefix: string, options?: StoreOptions) => Promise<void>;
  readonly list?: (options?: StoreOptions) => AsyncIterable<string>;
  readonly listPrefix?: (prefix: string, options?: StoreOptions) => AsyncIterable<string>;
  readonly listDir?: (prefix: string, options?: StoreOptions) => Promise<DirListing>;

  readonly #lru: ByteLru;
  readonly #maxEntryBytes: number;
  readonly #cacheMisses: boolean;
  /** Entry ids per key, to drop every range of a key on a write. */
  readonly #idsByKey = new Map<string, Set<string>>();
  readonly #inFlight = new Map<string, InFlight>();
  /** Bumped by every write: a read caches its result only if no write ran meanwhile. */
  #writes = 0;
  #hits = 0;
  #misses = 0;
  #shared = 0;

  constructor(inner: AnyStore, options: CachingStoreOptions = {}) {
    this.inner = resolveStore(inner);
    const maxBytes = validSize(options.maxBytes ?? 64 * 2 ** 20, "maxBytes");
    this.#maxEntryBytes = validSize(
      options.maxEntryBytes ?? Math.floor(maxBytes / 4),
      "maxEntryBytes",
    );
    this.#cacheMisses = options.cacheMisses ?? true;
    this.#lru = new ByteLru(maxBytes, (id) => this.#forget(id));

    const s = this.inner;
    if (s.writable) {
      this.set = (key, value, o) => this.#write([key], () => s.set(key, value, o));
      this.setPartialValues = (writes, o) =>
        this.#write(
          writes.map((w) => w.key),
          () => s.setPartialValues(writes, o),
        );
      this.erase = (key, o) => this.#write([key], () => s.erase(key, o));
      this.eraseValues = (keys, o) => this.#write(keys, () => s.eraseValues(keys, o));
      this.erasePrefix = async (prefix, o) => {
        this.#invalidatePrefix(prefix);
        try {
          await s.erasePrefix(prefix, o);
        } finally {
          this.#invalidatePrefix(prefix);
        }
      };
    }
    if (s.listable) {
      this.list = (o) => s.list(o);
      this.listPrefix = (prefix, o) => s.listPrefix(prefix, o);
      this.listDir = (prefix, o) => s.listDir(prefix, o);
    }
  }

  /** Reads `key` (or a range of it) from the cache, or from `inner` on a miss. */
  async get(
    key: string,
    range?: ByteRange,
    options?: StoreOptions,
  ): Promise<Uint8Array | undefined> {
    throwIfAborted(options?.signal, key);
    const hit = this.#lookup(key, range);
    if (hit) {
      this.#hits++;
      return hit.value?.slice();
    }
    const value = await this.#fetch(key, range, options?.signal);
    return value?.slice();
  }

  /** Answers what the cache holds and sends the rest to `inner` as one batch. */
  async getPartialValues(
    requests: readonly KeyRange[],
    options?: StoreOptions,
  ): Promise<(Uint8Array | undefined)[]> {
    throwIfAborted(options?.signal);
    const results: (Uint8Array | undefined)[] = new Array(requests.length);
    const missing: number[] = [];
    requests.forEach(({ key, range }, i) => {
      const hit = this.#lookup(key, range);
      if (hit) results[i] = hit.value?.slice();
      else missing.push(i);
    });
    this.#hits += requests.length - missing.length;
    if (missing.length === 0) return results;
    this.#misses += missing.length;
    const writes = this.#writes;
    const fetched = await this.inner.getPartialValues(
      missing.map((i) => requests[i]),
      options,
    );
    missing.forEach((i, j) => {
      const value = fetched[j];
      if (writes === this.#writes) this.#remember(requests[i].key, requests[i].range, value);
      results[i] = value?.slice();
    });
    return results;
  }

  /** The size from a cached whole value, else from `inner`. */
  async getSize(key: string, options?: StoreOptions): Promise<number | undefined> {
    throwIfAborted(options?.signal, key);
    const hit = this.#lru.lookup(key + SEP);
    if (hit) return hit.value?.length;
    return this.inner.getSize(key, options);
  }

  /** Hit/miss counters and the current size of the cache. */
  stats(): CacheStats {
    return {
      hits: this.#hits,
      misses: this.#misses,
      shared: this.#shared,
      entries: this.#lru.size,
      bytes: this.#lru.bytes,
    };
  }

  /** Drops every cached entry (e.g. after someone else wrote to the inner store). */
  clear(): void {
    this.#writes++;
    this.#lru.clear();
    this.#inFlight.clear();
  }

  #lookup(
    key: string,
    range: ByteRange | undefined,
  ): { value: Uint8Array | undefined } | undefined {
    const whole = this.#lru.lookup(key + SEP);
    if (whole) return { value: whole.value && sliceRange(whole.value, range) };
    return range === undefined ? undefined : this.#lru.lookup(key + SEP + rangeId(range));
  }

  #remember(key: string, range: ByteRange | undefined, value: Uint8Array | undefined): void {
    if (value === undefined) {
      // A missing key is missing whatever the range: remember it for the whole key.
      if (this.#cacheMisses) this.#add(key, key + SEP, undefined);
      return;
    }
    if (value.length > this.#maxEntryBytes) return;
    this.#add(key, key + SEP + rangeId(range), value);
  }

  #add(key: string, id: string, value: Uint8Array | undefined): void {
    this.#lru.set(id, value);
    if (!this.#lru.has(id)) return; // larger than the whole cache
    const ids = this.#idsByKey.get(key);
    if (ids) ids.add(id);
    else this.#idsByKey.set(key, new Set([id]));
  }

  #forget(id: string): void {
    const key = id.slice(0, id.indexOf(SEP));
    const ids = this.#idsByKey.get(key);
    ids?.delete(id);
    if (ids?.size === 0) this.#idsByKey.delete(key);
  }

  /** One request to `inner` per key and range at a time, shared by every caller. */
  #fetch(
    key: string,
    range: ByteRange | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Uint8Array | undefined> {
    const id = key + SEP + rangeId(range);
    let flight = this.#inFlight.get(id);
    if (flight) {
      this.#shared++;
    } else {
      this.#misses++;
      const controller = new AbortController();
      const writes = this.#writes;
      const request = async () => {
        try {
          const value = await this.inner.get(key, range, { signal: controller.signal });
          if (writes === this.#writes) this.#remember(key, range, value);
          return value;
        } finally {
          if (this.#inFlight.get(id) === flight) this.#inFlight.delete(id);
        }
      };
      flight = { key, promise: request(), controller, waiters: 0 };
      this.#inFlight.set(id, flight);
    }
    return this.#wait(flight, signal);
  }

  /** Waits for a shared request; the request is cancelled once every waiter gave up. */
  #wait(flight: InFlight, signal: AbortSignal | undefined): Promise<Uint8Array | undefined> {
    flight.waiters++;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (--flight.waiters === 0) flight.controller.abort(signal?.reason);
        reject(
          new AbortError(`operation aborted at "${flight.key}"`, {
            path: flight.key,
            cause: signal?.reason,
          }),
        );
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      flight.promise.then(
        (value) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      );
    });
  }

  async #write(keys: readonly string[], operation: () => Promise<void>): Promise<void> {
    // Before: no reader sees the old value from the cache once the write started.
    // After: a read that ran during the write may have cached either value.
    for (const key of keys) this.#invalidate(key);
    try {
      await operation();
    } finally {
      for (const key of keys) this.#invalidate(key);
    }
  }

  #invalidate(key: string): void {
    this.#writes++;
    for (const id of [...(this.#idsByKey.get(key) ?? [])]) this.#lru.delete(id);
    for (const [id, flight] of this.#inFlight) if (flight.key === key) this.#inFlight.delete(id);
  }

  #invalidatePrefix(prefix: string): void {
    this.#writes++;
    for (const key of [...this.#idsByKey.keys()]) {
      if (key.startsWith(prefix))
        for (const id of [...this.#idsByKey.get(key)!]) this.#lru.delete(id);
    }
    for (const [id, flight] of this.#inFlight) {
      if (flight.key.startsWith(prefix)) this.#inFlight.delete(id);
    }
  }
}

/**
 * {@link ChunkCache}: decoded chunks kept across reads, bounded by bytes.
 *
 * @module
 */

import type { NDArray } from "../codecs/types.js";
import type { DataArray } from "../dtypes/types.js";
import { isResolvedStore } from "../store/resolve.js";
import type { AnyStore, Store } from "../store/types.js";
import { type ChunkHolder, holdValuesOf, storeId } from "./registry.js";

/** A cached chunk: its decoded values, or `null` when it is not stored (reads as the fill value). */
export type CachedChunk = NDArray | null;

/** Bytes every entry counts beside its values (key, bookkeeping); a chunk that is not stored counts only this. */
export const ENTRY_OVERHEAD_BYTES = 64;

/** Counters of a {@link ChunkCache} since it was made. */
export interface ChunkCacheStats {
  /** Chunks served from the cache, or from a load another read had started. */
  hits: number;
  /** Chunks loaded (read from the store and decoded) through the cache. */
  misses: number;
  /** Entries dropped to stay within `maxBytes`. */
  evictions: number;
}

interface Entry {
  readonly value: CachedChunk;
  readonly bytes: number;
  /** What the values depend on besides the stored bytes (see `chunkCacheTag`). */
  readonly tag: string;
  readonly group: string;
}

interface Loading {
  readonly promise: Promise<CachedChunk>;
  readonly tag: string;
  readonly group: string;
}

/** A load registered with {@link ChunkCache.begin}: the loader settles it exactly once. */
export interface PendingChunk {
  /** Resolves with what readers copy from (never the caller's `value` itself). */
  readonly promise: Promise<CachedChunk>;
  /** Hands over the decoded chunk (or `null`: not stored); returns what readers copy from. */
  settle(value: CachedChunk): CachedChunk;
  fail(error: unknown): void;
}

/**
 * Keeps decoded chunks across reads, least recently used first out, within
 * `maxBytes`, and shares one cache between any number of arrays and stores.
 * Pass it to reads: `array.get(selection, { chunkCache })`.
 *
 * - Entries are keyed by store object (not URL), chunk key (which holds the
 *   array's path) and, for sharded arrays, inner chunk. Sharded arrays cache
 *   decoded inner chunks, so regions that share inner chunks share entries and
 *   a region reads only the inner chunks that are not cached.
 * - Values are copies the cache owns: reads copy out of them into their own
 *   output, so no caller can change what a later read gets. They are decoded
 *   values in host byte order (big-endian data is swapped once, when decoded).
 * - Concurrent reads of one chunk share one load: it is read and decoded once.
 *   A load shared by several reads runs on when one of them is aborted.
 * - Writes through any store handle on the same store object (`set`,
 *   `setChunk`, `resize`, erasing nodes; from any `ZarrArray` on it) drop the
 *   entries of the chunks they replace. Writes by other processes or through
 *   other store objects are not seen: call {@link invalidate} or
 *   {@link clear} after them. An array re-created with another data type,
 *   chunk shape or codecs never gets the old entries (they carry the metadata
 *   they were decoded with).
 * - Each entry counts its decoded bytes plus {@link ENTRY_OVERHEAD_BYTES};
 *   the total never exceeds `maxBytes`. A chunk larger than that is read but
 *   not kept. Chunks of variable-size elements count an estimate, and chunks
 *   of `bytes` elements (mutable objects) are not kept.
 *
 * @example
 * ```ts
 * import { ChunkCache, openArray, slice } from "@zarr/core";
 * const chunkCache = new ChunkCache({ maxBytes: 256 * 2 ** 20 });
 * const image = await openArray(store, "image");
 * for (const [y, x] of viewport) {
 *   await image.get([slice(y, y + 256), slice(x, x + 256)], { chunkCache });
 * }
 * ```
 */
export class ChunkCache implements ChunkHolder {
  /** The most bytes held at once. */
  readonly maxBytes: number;
  readonly #entries = new Map<string, Entry>(); // least recently used first
  readonly #loading = new Map<string, Loading>();
  /** Entry and load ids by store id + store key, for invalidation. */
  readonly #groups = new Map<string, Set<string>>();
  readonly #self = new WeakRef<ChunkHolder>(this);
  readonly #registered = new WeakSet<object>();
  #bytes = 0;
  readonly #stats: ChunkCacheStats = { hits: 0, misses: 0, evictions: 0 };

  /**
   * @param options.maxBytes - The most bytes of decoded chunks held at once
   *   (a non-negative safe integer; 0 keeps nothing but still shares
   *   concurrent loads).
   */
  constructor(options: { maxBytes: number }) {
    const max = options?.maxBytes;
    if (!Number.isSafeInteger(max) || max < 0) {
      throw new RangeError(`maxBytes must be a non-negative safe integer, got ${String(max)}`);
    }
    this.maxBytes = max;
  }

  /** Bytes held (decoded values plus per-entry overhead). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Number of chunks held. */
  get size(): number {
    return this.#entries.size;
  }

  /** Hits, misses and evictions so far (a copy). */
  get stats(): ChunkCacheStats {
    return { ...this.#stats };
  }

  /** Drops every entry. Loads in flight finish for their readers but are not kept. */
  clear(): void {
    this.#entries.clear();
    this.#loading.clear();
    this.#groups.clear();
    this.#bytes = 0;
  }

  /**
   * Drops the entries of `store` (the store object given to `openArray`, or
   * the array's `store`), all of them or those of the array or group at
   * `path` and below: for writes this cache cannot see (another process,
   * another store object).
   *
   * @example
   * ```ts
   * chunkCache.invalidate(array.store, array.path);
   * ```
   */
  invalidate(store: AnyStore | Store, path?: string): void {
    const scope = isResolvedStore(store) ? store.inner : store;
    const p = path?.replace(/^\/+|\/+$/g, "") ?? "";
    this.dropPrefix(storeId(scope), p === "" ? "" : `${p}/`);
  }

  /**
   * For readers: the cached chunk `sub` ("" for a whole chunk, inner chunk
   * coordinates in a shard) of store key `key` when its `tag` matches, a
   * promise of it while another read loads it, or `undefined`: then call
   * {@link begin}. The value is the cache's own: copy out of it, never hand it out.
   * @internal
   */
  peek(
    scope: object,
    key: string,
    sub: string,
    tag: string,
  ): CachedChunk | Promise<CachedChunk> | undefined {
    const id = `${storeId(scope)}\u0000${key}\u0000${sub}`;
    const entry = this.#entries.get(id);
    if (entry !== undefined) {
      this.#entries.delete(id);
      if (entry.tag === tag) {
        this.#entries.set(id, entry); // most recently used
        this.#stats.hits++;
        return entry.value;
      }
      this.#bytes -= entry.bytes; // decoded with other metadata: stale
      this.#unmember(entry.group, id);
    }
    const loading = this.#loading.get(id);
    if (loading !== undefined && loading.tag === tag) {
      this.#stats.hits++;
      return loading.promise;
    }
    return undefined;
  }

  /**
   * For readers, after a {@link peek} miss: registers a load of chunk `sub`
   * of `key` that concurrent readers share. The loader must settle it.
   * @internal
   */
  begin(scope: object, key: string, sub: string, tag: string): PendingChunk {
    const sid = storeId(scope);
    if (!this.#registered.has(scope)) {
      this.#registered.add(scope);
      holdValuesOf(scope, this.#self);
    }
    const group = `${sid}\u0000${key}`;
    const id = `${group}\u0000${sub}`;
    let resolve!: (value: CachedChunk) => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<CachedChunk>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(() => {}); // a load nobody waits for any more must not be an unhandled rejection
    const loading: Loading = { promise, tag, group };
    this.#loading.set(id, loading);
    this.#member(group, id);
    this.#stats.misses++;
    let done = false;
    const current = () => this.#loading.get(id) === loading;
    return {
      promise,
      settle: (value) => {
        if (done) throw new Error("a pending chunk is settled once");
        done = true;
        const owned = value === null ? { value, bytes: 0 } : ownedCopy(value);
        if (current()) {
          this.#loading.delete(id);
          const bytes = owned.bytes + ENTRY_OVERHEAD_BYTES;
          if (owned.bytes >= 0 && bytes <= this.maxBytes) {
            this.#insert(id, { value: owned.value, bytes, tag, group });
          } else {
            this.#unmember(group, id);
          }
        }
        resolve(owned.value);
        return owned.value;
      },
      fail: (error) => {
        if (done) return;
        done = true;
        if (current()) {
          this.#loading.delete(id);
          this.#unmember(group, id);
        }
        reject(error);
      },
    };
  }

  /** @internal See {@link ChunkHolder.dropKeys}. */
  dropKeys(sid: number, keys: readonly string[]): void {
    for (const key of keys) this.#dropGroup(`${sid}\u0000${key}`);
  }

  /** @internal See {@link ChunkHolder.dropPrefix}. */
  dropPrefix(sid: number, prefix: string): void {
    const start = `${sid}\u0000${prefix}`;
    for (const group of [...this.#groups.keys()]) {
      if (group.startsWith(start)) this.#dropGroup(group);
    }
  }

  #dropGroup(group: string): void {
    const ids = this.#groups.get(group);
    if (ids === undefined) return;
    this.#groups.delete(group);
    for (const id of ids) {
      const entry = this.#entries.get(id);
      if (entry !== undefined) {
        this.#entries.delete(id);
        this.#bytes -= entry.bytes;
      }
      // A load in flight read the old value: its readers get it, the cache does not keep it.
      this.#loading.delete(id);
    }
  }

  #insert(id: string, entry: Entry): void {
    const old = this.#entries.get(id);
    if (old !== undefined) {
      this.#entries.delete(id);
      this.#bytes -= old.bytes;
    }
    this.#entries.set(id, entry);
    this.#bytes += entry.bytes;
    for (const [oldest, e] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldest);
      this.#unmember(e.group, oldest);
      this.#bytes -= e.bytes;
      this.#stats.evictions++;
    }
  }

  #member(group: string, id: string): void {
    let ids = this.#groups.get(group);
    if (ids === undefined) {
      ids = new Set();
      this.#groups.set(group, ids);
    }
    ids.add(id);
  }

  #unmember(group: string, id: string): void {
    if (this.#entries.has(id) || this.#loading.has(id)) return;
    const ids = this.#groups.get(group);
    if (ids === undefined) return;
    ids.delete(id);
    if (ids.size === 0) this.#groups.delete(group);
  }
}

/**
 * A copy of `chunk` that shares no memory with it (decoded values may be views
 * of a store's buffers), and its size in bytes; `bytes` is -1 when it must not
 * be kept (elements that are mutable objects, e.g. `bytes` values).
 */
function ownedCopy(chunk: NDArray): { value: NDArray; bytes: number } {
  const data = chunk.data;
  if (ArrayBuffer.isView(data)) {
    return { value: { ...chunk, data: data.slice() as DataArray }, bytes: data.byteLength };
  }
  let bytes = 0;
  let keep = true;
  const copy = (data as unknown[]).map((v) => {
    if (typeof v === "string") bytes += 16 + 2 * v.length;
    else if (v instanceof Uint8Array) {
      keep = false;
      return v.slice();
    } else if (typeof v === "object" && v !== null) keep = false;
    else bytes += 16;
    return v;
  });
  return { value: { ...chunk, data: copy as DataArray }, bytes: keep ? bytes : -1 };
}

/**
 * The entries of a {@link ChunkCache}: decoded chunks by store, key and inner
 * chunk, least recently used first, within a byte budget; loads in flight
 * shared by concurrent readers; invalidation by key or prefix.
 *
 * @module
 */

import type { NDArray } from "../codecs/types.js";
import type { DataArray } from "../dtypes/types.js";
import { AbortError, untilAborted } from "../errors.js";
import type { ChunkCache } from "./chunk-cache.js";
import type { ChunkHolder } from "./registry.js";

/** A cached chunk: its decoded values, or `null` when it is not stored (reads as the fill value). */
export type CachedChunk = NDArray | null;

/**
 * Bytes every entry counts beside its values and key, measured on V8 (Node 20
 * and 24, `node --expose-gc` heap + array buffers retained per entry, see
 * docs/performance.md): the `Map` and `Set` slots and the entry object.
 */
export const ENTRY_OVERHEAD_BYTES = 352;

/** Bytes a stored chunk's entry counts beside its values: the array object, the typed array and its buffer (measured as above). */
export const VALUE_OVERHEAD_BYTES = 288;

/**
 * What the entry `id` counts beside its decoded values: {@link ENTRY_OVERHEAD_BYTES},
 * {@link VALUE_OVERHEAD_BYTES} when the chunk is stored, and 2 bytes per
 * character of its key (which holds the array's path).
 */
export function entryOverhead(id: string, stored: boolean): number {
  return ENTRY_OVERHEAD_BYTES + (stored ? VALUE_OVERHEAD_BYTES : 0) + 2 * id.length;
}

/** Where {@link ChunkEntries} finds store ids and records the stores it holds (cache/registry.ts). */
export interface StoreRegistry {
  storeId(scope: object): number;
  holdValuesOf(scope: object, ref: WeakRef<ChunkHolder>): void;
  writeMark(scope: object): number | undefined;
  unchangedSince(scope: object, mark: number | undefined): boolean;
}

/**
 * The entries behind `cache`, for core's read paths. A property under a
 * `Symbol.for` key rather than a shared module: the read paths that need
 * entries load on demand, and must not pull the cache into every bundle.
 */
export function chunkEntries(cache: ChunkCache): ChunkEntries {
  const entries = (cache as unknown as Record<symbol, ChunkEntries | undefined>)[entriesKey()];
  if (entries === undefined) throw new TypeError("chunkCache must be a ChunkCache");
  return entries;
}

/**
 * The key of a `ChunkCache`'s entries (see {@link chunkEntries}); a function,
 * not a constant: a module-level `Symbol.for` call would count as a side effect
 * and keep this module in bundles that never make a cache.
 */
export function entriesKey(): symbol {
  return Symbol.for("@zarr/core.chunkEntries");
}

/**
 * What readers must agree on to share one load: the decode limits they read
 * under (a strict reader's limits must not fail a default reader, nor a
 * default reader's load hand a strict reader values it would reject).
 */
export function shareKey(options: { decodeLimits?: object }): string {
  const limits = options.decodeLimits;
  return limits === undefined ? "" : JSON.stringify(Object.entries(limits).sort());
}

/**
 * `chunk` as one reader may take it: the cache's own values, except elements
 * that are mutable objects (`bytes` values, `Uint8Array`s), which each reader
 * gets copies of: readers sharing a load share one decoded chunk.
 */
export function readerCopy<T extends { data: unknown } | null>(chunk: T): T {
  if (chunk === null) return chunk;
  const data = chunk.data;
  if (!Array.isArray(data) || !data.some((v) => v instanceof Uint8Array)) return chunk;
  return { ...chunk, data: data.map((v) => (v instanceof Uint8Array ? v.slice() : v)) };
}

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
  /** Ends the load's store requests and decoding when every reader waiting on it has aborted; none when the first reader cannot abort. */
  readonly controller: AbortController | undefined;
  /** Readers waiting (see {@link ChunkEntries.wait}); the load is abandoned when this falls to 0 by aborts. */
  readers: number;
  /** Drops the load from the cache (it is not kept) and aborts it. */
  abandon(reason: unknown): void;
}

/** A load registered with {@link ChunkEntries.begin}: the loader settles it exactly once. */
export interface PendingChunk {
  /** Resolves with what readers copy from (never the caller's `value` itself); wait on it with {@link ChunkEntries.wait}. */
  readonly promise: Promise<CachedChunk>;
  /**
   * The load's own signal: aborted when every reader waiting on it has
   * aborted; `undefined` when the reader that began it has no signal (the
   * load then always runs to the end: that reader waits for it).
   */
  readonly signal: AbortSignal | undefined;
  /** Hands over the decoded chunk (or `null`: not stored); returns what readers copy from. */
  settle(value: CachedChunk): CachedChunk;
  fail(error: unknown): void;
}

/** The entries of one {@link ChunkCache} (see there for the rules). */
export class ChunkEntries implements ChunkHolder {
  readonly maxBytes: number;
  readonly #entries = new Map<string, Entry>(); // least recently used first
  /** Loads in flight by entry id, then by what readers must agree on to share one (decode limits). */
  readonly #loading = new Map<string, Map<string, Loading>>();
  readonly #byPromise = new WeakMap<Promise<CachedChunk>, Loading>();
  /** Entry and load ids by store id + store key, for invalidation. */
  readonly #groups = new Map<string, Set<string>>();
  readonly #self = new WeakRef<ChunkHolder>(this);
  readonly #registered = new WeakSet<object>();
  #bytes = 0;
  readonly #stats: ChunkCacheStats = { hits: 0, misses: 0, evictions: 0 };

  readonly #stores: StoreRegistry;

  constructor(maxBytes: number, stores: StoreRegistry) {
    this.maxBytes = maxBytes;
    this.#stores = stores;
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
   * For readers: the cached chunk `sub` ("" for a whole chunk, inner chunk
   * coordinates in a shard) of store key `key` when its `tag` matches, a
   * promise of it while another read loads it, or `undefined`: then call
   * {@link begin}. The value is the cache's own: copy out of it, never hand it out.
   */
  peek(
    scope: object,
    key: string,
    sub: string,
    tag: string,
    share = "",
  ): CachedChunk | Promise<CachedChunk> | undefined {
    const id = `${this.#stores.storeId(scope)}\u0000${key}\u0000${sub}`;
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
    const loading = this.#loading.get(id)?.get(share);
    if (loading !== undefined && loading.tag === tag) {
      this.#stats.hits++;
      return loading.promise;
    }
    return undefined;
  }

  /**
   * For readers, after a {@link peek} miss: registers a load of chunk `sub`
   * of `key` that concurrent readers with the same `share` (decode limits)
   * share. The loader must settle it, reading under its `signal` (made when
   * `abortable`: the reader beginning it has a signal). Its value is kept only
   * when no write of the store ran while it loaded.
   */
  begin(
    scope: object,
    key: string,
    sub: string,
    tag: string,
    share = "",
    abortable = false,
  ): PendingChunk {
    const sid = this.#stores.storeId(scope);
    if (!this.#registered.has(scope)) {
      this.#registered.add(scope);
      this.#stores.holdValuesOf(scope, this.#self);
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
    const mark = this.#stores.writeMark(scope);
    let done = false;
    const stop = () => {
      const shares = this.#loading.get(id);
      if (shares?.get(share) !== loading) return false;
      shares.delete(share);
      if (shares.size === 0) this.#loading.delete(id);
      return true;
    };
    const loading: Loading = {
      promise,
      tag,
      group,
      controller: abortable ? new AbortController() : undefined, // costly on Node: only when needed
      readers: 0,
      abandon: (reason) => {
        if (done) return;
        if (stop()) this.#unmember(group, id);
        loading.controller?.abort(reason);
      },
    };
    let shares = this.#loading.get(id);
    if (shares === undefined) {
      shares = new Map();
      this.#loading.set(id, shares);
    }
    shares.set(share, loading);
    this.#byPromise.set(promise, loading);
    this.#member(group, id);
    this.#stats.misses++;
    return {
      promise,
      signal: loading.controller?.signal,
      settle: (value) => {
        if (done) throw new Error("a pending chunk is settled once");
        done = true;
        const owned = value === null ? { value, bytes: 0 } : ownedCopy(value);
        if (stop()) {
          const bytes = owned.bytes + entryOverhead(id, owned.value !== null);
          if (
            owned.bytes >= 0 &&
            bytes <= this.maxBytes &&
            this.#stores.unchangedSince(scope, mark)
          ) {
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
        if (stop()) this.#unmember(group, id);
        reject(error);
      },
    };
  }

  /**
   * For readers: waits for `found` (from {@link peek} or {@link begin}) until
   * `signal` aborts. A load every waiting reader has aborted is abandoned:
   * its requests are aborted and its value is not kept.
   */
  wait(
    found: Promise<CachedChunk>,
    signal: AbortSignal | undefined,
    path: string,
  ): Promise<CachedChunk> {
    const loading = this.#byPromise.get(found);
    if (loading !== undefined) loading.readers++;
    if (signal === undefined) return found;
    const leave = () => {
      if (loading !== undefined && --loading.readers === 0) loading.abandon(signal.reason);
    };
    if (signal.aborted) {
      leave();
      return Promise.reject(
        new AbortError(`operation aborted at "${path}"`, { path, cause: signal.reason }),
      );
    }
    return untilAborted(found, signal, path).catch((e: unknown) => {
      if (signal.aborted) leave();
      throw e;
    });
  }

  /** See {@link ChunkHolder.dropKeys}. */
  dropKeys(sid: number, keys: readonly string[]): void {
    for (const key of keys) this.#dropGroup(`${sid}\u0000${key}`);
  }

  /** See {@link ChunkHolder.dropPrefix}. */
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

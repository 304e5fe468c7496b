/**
 * {@link ChunkCache}: decoded chunks kept across reads, bounded by bytes.
 *
 * @module
 */

import type { AnyStore, Store } from "../store/types.js";
import { type ChunkCacheStats, ChunkEntries, entriesKey } from "./entries.js";
import { holdValuesOf, noteChange, storeId, unchangedSince, writeMark } from "./registry.js";

export type { ChunkCacheStats } from "./entries.js";

/** The entries of each cache, for core's read paths (not part of the class's API). */

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
 * - Concurrent reads of one chunk under the same `decodeLimits` share one
 *   load: it is read and decoded once. Aborting one read rejects that read;
 *   the load is aborted (store request included) and not kept when every
 *   read waiting on it has aborted.
 * - Writes through an array or group handle on the same store object (`set`,
 *   `setChunk`, `resize`, erasing nodes; from any `ZarrArray` on it) drop
 *   the entries of the chunks they replace, and a load that overlaps a write
 *   of its store is not kept. Not seen: writes made directly on the raw
 *   store object (`store.set`), by other processes or through other store
 *   objects: call {@link invalidate} or {@link clear} after them. An array
 *   re-created with another data type, chunk shape or codecs never gets the
 *   old entries (they carry the metadata they were decoded with).
 * - Each entry counts its decoded bytes, 352 bytes of bookkeeping, 288 more
 *   for a stored chunk's array objects and 2 bytes per character of its key
 *   (measured V8 heap cost); the total never exceeds `maxBytes`. A chunk
 *   larger than that is read but not kept. Chunks that are not stored are
 *   kept as such (no request on the next read). Chunks of variable-size
 *   elements count an estimate, and chunks of `bytes` elements (mutable
 *   objects) are not kept.
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
export class ChunkCache {
  readonly #entries: ChunkEntries;

  /**
   * @param options - `maxBytes`: the most bytes held at once: decoded
   *   chunks plus their measured per-entry overhead (a non-negative safe
   *   integer; 0 keeps nothing but still shares concurrent loads).
   * @throws RangeError when `maxBytes` is not a non-negative safe integer.
   */
  constructor(options: { maxBytes: number }) {
    const max = options?.maxBytes;
    if (!Number.isSafeInteger(max) || max < 0) {
      throw new RangeError(`maxBytes must be a non-negative safe integer, got ${String(max)}`);
    }
    this.#entries = new ChunkEntries(max, { storeId, holdValuesOf, writeMark, unchangedSince });
    // For core's read paths (see chunkEntries), not part of the API.
    Object.defineProperty(this, entriesKey(), { value: this.#entries });
  }

  /** The most bytes held at once. */
  get maxBytes(): number {
    return this.#entries.maxBytes;
  }

  /** Bytes held (decoded values plus per-entry overhead), at most {@link maxBytes}. */
  get bytes(): number {
    return this.#entries.bytes;
  }

  /** Number of chunks (inner chunks, for sharded arrays) held. */
  get size(): number {
    return this.#entries.size;
  }

  /** Hits, misses and evictions so far (a copy). */
  get stats(): ChunkCacheStats {
    return this.#entries.stats;
  }

  /** Drops every entry. Loads in flight finish for their readers but are not kept. */
  clear(): void {
    this.#entries.clear();
  }

  /**
   * Drops the entries of `store` (the store object given to `openArray`, or
   * an array's `store`): all of them, or those of the array or group at
   * `path` and below. For writes this cache cannot see (another process,
   * another store object).
   *
   * @param store - The store object the arrays were opened on (as given to
   *   `openArray`, or an array's `store`).
   * @param path - An array or group path (`"temps"`, `"/temps"`); omitted or
   *   `""`: every entry of the store.
   *
   * @throws TypeError when `store` is not an object or `path` not a string.
   *
   * @example
   * ```ts
   * chunkCache.invalidate(array.store, array.path);
   * ```
   */
  invalidate(store: AnyStore | Store, path?: string): void {
    if (typeof store !== "object" || store === null) {
      throw new TypeError(
        `ChunkCache.invalidate: store must be a store object, got ${store === null ? "null" : typeof store}`,
      );
    }
    if (path !== undefined && typeof path !== "string") {
      throw new TypeError(`ChunkCache.invalidate: path must be a string, got ${typeof path}`);
    }
    // A store made by resolveStore (its marker, not an import: this module stays off the read path).
    const scope = Symbol.for("@zarr/core.resolvedStore") in store ? (store as Store).inner : store;
    const p = path?.replace(/^\/+|\/+$/g, "") ?? "";
    noteChange(scope);
    this.#entries.dropPrefix(storeId(scope), p === "" ? "" : `${p}/`);
  }
}

/**
 * {@link MemoryStore}: an in-memory store backed by a `Map`.
 *
 * @module
 */

import { throwIfAborted } from "../errors.js";
import { validateKey, validatePrefix } from "./keys.js";
import { applyWrites, groupWrites, validateValue } from "./patch.js";
import { sliceRange, validateRange } from "./range.js";
import type {
  ByteRange,
  DirListing,
  KeyRange,
  KeyWrite,
  ListableStore,
  ReadableStore,
  StoreOptions,
  WritableStore,
} from "./types.js";

/**
 * A readable, writable and listable store that keeps values in memory.
 *
 * Values are copied on the way in and on the way out, so neither the caller's
 * input nor a returned value can change what the store holds. Every operation
 * is atomic (single-threaded JavaScript). Keys are validated here too, so the
 * store can be used without `resolveStore` (from `@zarr/core/store`).
 *
 * @example
 * ```ts
 * import { MemoryStore, createArray } from "@zarr/core";
 * const store = new MemoryStore();
 * await store.set("zarr.json", new TextEncoder().encode('{"zarr_format":3,"node_type":"group"}'));
 * const bytes = await store.get("zarr.json", { suffix: 1 }); // "}"
 * const a = await createArray(store, "temps", { shape: [4], dataType: "float32", chunkShape: [2] });
 * ```
 */
export class MemoryStore implements ReadableStore, WritableStore, ListableStore {
  readonly #map = new Map<string, Uint8Array>();

  /**
   * Creates a store, empty or holding `initial`.
   *
   * @param initial - `(key, value)` pairs to start with, e.g. a `Map<string,
   *   Uint8Array>` or another store's `map`; keys and values are validated and
   *   the values copied. Default: none.
   * @throws {@link InvalidKeyError} for an invalid key; {@link StoreError} for a
   *   value that is not a `Uint8Array`.
   *
   * @example
   * ```ts
   * import { MemoryStore } from "@zarr/core";
   * const copy = new MemoryStore(original.map); // a snapshot of another MemoryStore
   * ```
   */
  constructor(initial?: Iterable<readonly [string, Uint8Array]>) {
    if (initial) {
      for (const [key, value] of initial) {
        this.#map.set(validateKey(key), validateValue(value, key).slice());
      }
    }
  }

  /** The stored values, for inspection in tests. Do not mutate the arrays. */
  get map(): ReadonlyMap<string, Uint8Array> {
    return this.#map;
  }

  /**
   * Reads a copy of the value of `key`, or of a byte range of it.
   *
   * @param key - The store key, e.g. `"temps/c/0/0"`.
   * @param range - `{ offset, length? }` or `{ suffix }`, in bytes; clipped to
   *   the value. Default: the whole value.
   * @param options - `signal` cancels the call; `maxBytes` is ignored.
   * @throws {@link AbortError} if `options.signal` is aborted.
   * @returns The bytes, or `undefined` when the key is missing.
   * @throws {@link InvalidKeyError} for an invalid key; {@link InvalidRangeError}
   *   for a malformed range.
   */
  async get(key: string, range?: ByteRange, options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    validateKey(key);
    validateRange(range, key);
    const value = this.#map.get(key);
    return value && sliceRange(value, range).slice();
  }

  /**
   * Reads several keys or byte ranges, as {@link MemoryStore.get} does for each.
   *
   * @param requests - `{ key, range? }` per value to read.
   * @param options - `signal` cancels the call; `maxBytes` is ignored.
   * @throws {@link AbortError} if `options.signal` is aborted.
   * @returns One entry per request, in order: the bytes, or `undefined` for a
   *   missing key.
   * @throws {@link InvalidKeyError} or {@link InvalidRangeError} for an invalid
   *   request.
   */
  async getPartialValues(requests: readonly KeyRange[], options?: StoreOptions) {
    return Promise.all(requests.map(({ key, range }) => this.get(key, range, options)));
  }

  /**
   * The size of a value.
   *
   * @param key - The store key.
   * @param options - `signal` cancels the call; `maxBytes` is ignored.
   * @throws {@link AbortError} if `options.signal` is aborted.
   * @returns The size in bytes, or `undefined` when the key is missing.
   * @throws {@link InvalidKeyError} for an invalid key.
   */
  async getSize(key: string, options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    return this.#map.get(validateKey(key))?.length;
  }

  /**
   * Stores a copy of `value` under `key`, replacing any previous value.
   *
   * @param key - The store key.
   * @param value - The bytes; copied, so later changes to it do not reach the store.
   * @param options - `signal` cancels the call; `maxBytes` is ignored.
   * @throws {@link AbortError} if `options.signal` is aborted.
   * @throws {@link InvalidKeyError} for an invalid key; {@link StoreError} when
   *   `value` is not a `Uint8Array`.
   */
  async set(key: string, value: Uint8Array, options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    validateKey(key);
    this.#map.set(key, validateValue(value, key).slice());
  }

  /**
   * Writes bytes at offsets of existing or new values, in order (later writes
   * win where they overlap); a value grows, zero-filled, where a write starts
   * past its end. All writes are checked before any is applied.
   *
   * @param writes - `{ key, offset, value }` per write; `offset` in bytes.
   * @param options - `signal` cancels the call.
   * @throws {@link AbortError} if `options.signal` is aborted;
   *   {@link InvalidKeyError} for an invalid key; {@link StoreError} for an
   *   invalid offset or value.
   */
  async setPartialValues(writes: readonly KeyWrite[], options?: StoreOptions) {
    throwIfAborted(options?.signal);
    for (const [key, keyWrites] of groupWrites(writes)) {
      this.#map.set(key, applyWrites(key, this.#map.get(key), keyWrites));
    }
  }

  /**
   * Removes `key`; a missing key is not an error.
   *
   * @param key - The store key.
   * @param options - `signal` cancels the call.
   * @throws {@link AbortError} if `options.signal` is aborted;
   *   {@link InvalidKeyError} for an invalid key.
   */
  async erase(key: string, options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    this.#map.delete(validateKey(key));
  }

  /**
   * Removes several keys; missing keys are skipped. Nothing is removed if a key
   * is invalid.
   *
   * @param keys - The store keys.
   * @param options - `signal` cancels the call.
   * @throws {@link AbortError} if `options.signal` is aborted;
   *   {@link InvalidKeyError} for an invalid key.
   */
  async eraseValues(keys: readonly string[], options?: StoreOptions) {
    throwIfAborted(options?.signal);
    keys.forEach(validateKey);
    for (const key of keys) this.#map.delete(key);
  }

  /**
   * Removes every key that starts with `prefix`.
   *
   * @param prefix - `""` (the whole store) or a key followed by `/`, e.g. `"temps/"`.
   * @param options - `signal` cancels the call.
   * @throws {@link AbortError} if `options.signal` is aborted;
   *   {@link InvalidKeyError} for an invalid prefix.
   */
  async erasePrefix(prefix: string, options?: StoreOptions) {
    throwIfAborted(options?.signal, prefix);
    validatePrefix(prefix);
    for (const key of [...this.#map.keys()]) {
      if (key.startsWith(prefix)) this.#map.delete(key);
    }
  }

  /**
   * Yields every key, in insertion order.
   *
   * @param options - `signal` cancels the call.
   * @throws {@link AbortError} if `options.signal` is aborted.
   */
  async *list(options?: StoreOptions): AsyncGenerator<string> {
    yield* this.listPrefix("", options);
  }

  /**
   * Yields every key that starts with `prefix`, in insertion order. The keys
   * are those present when iteration starts.
   *
   * @param prefix - `""` (the whole store) or a key followed by `/`, e.g. `"temps/"`.
   * @param options - `signal` cancels the call.
   * @throws {@link AbortError} if `options.signal` is aborted;
   *   {@link InvalidKeyError} for an invalid prefix.
   */
  async *listPrefix(prefix: string, options?: StoreOptions): AsyncGenerator<string> {
    throwIfAborted(options?.signal, prefix);
    validatePrefix(prefix);
    // A snapshot, so that writes during iteration don't affect it.
    for (const key of [...this.#map.keys()]) {
      if (key.startsWith(prefix)) yield key;
    }
  }

  /**
   * Lists what is directly under `prefix`, like one level of a directory.
   *
   * @param prefix - `""` (the root) or a key followed by `/`, e.g. `"temps/"`.
   * @param options - `signal` cancels the call.
   * @returns `keys`: names of values directly under `prefix`; `prefixes`:
   *   names of child prefixes (without `/`); both sorted.
   * @throws {@link AbortError} if `options.signal` is aborted;
   *   {@link InvalidKeyError} for an invalid prefix.
   */
  async listDir(prefix: string, options?: StoreOptions): Promise<DirListing> {
    throwIfAborted(options?.signal, prefix);
    validatePrefix(prefix);
    const keys: string[] = [];
    const prefixes = new Set<string>();
    for (const key of this.#map.keys()) {
      if (!key.startsWith(prefix)) continue;
      const rest = key.slice(prefix.length);
      const slash = rest.indexOf("/");
      if (slash < 0) keys.push(rest);
      else prefixes.add(rest.slice(0, slash));
    }
    return { keys: keys.sort(), prefixes: [...prefixes].sort() };
  }
}

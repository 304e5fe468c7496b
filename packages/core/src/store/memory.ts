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
 * store can be used without {@link resolveStore}.
 *
 * @example
 * const store = new MemoryStore();
 * await store.set("zarr.json", new TextEncoder().encode('{"zarr_format":3,"node_type":"group"}'));
 * const bytes = await store.get("zarr.json", { suffix: 1 }); // "}"
 */
export class MemoryStore implements ReadableStore, WritableStore, ListableStore {
  readonly #map = new Map<string, Uint8Array>();

  /** Initial `(key, value)` pairs are validated and copied. */
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

  async get(key: string, range?: ByteRange, options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    validateKey(key);
    validateRange(range, key);
    const value = this.#map.get(key);
    return value && sliceRange(value, range).slice();
  }

  async getPartialValues(requests: readonly KeyRange[], options?: StoreOptions) {
    return Promise.all(requests.map(({ key, range }) => this.get(key, range, options)));
  }

  async getSize(key: string, options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    return this.#map.get(validateKey(key))?.length;
  }

  async set(key: string, value: Uint8Array, options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    validateKey(key);
    this.#map.set(key, validateValue(value, key).slice());
  }

  async setPartialValues(writes: readonly KeyWrite[], options?: StoreOptions) {
    throwIfAborted(options?.signal);
    for (const [key, keyWrites] of groupWrites(writes)) {
      this.#map.set(key, applyWrites(key, this.#map.get(key), keyWrites));
    }
  }

  async erase(key: string, options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    this.#map.delete(validateKey(key));
  }

  async eraseValues(keys: readonly string[], options?: StoreOptions) {
    throwIfAborted(options?.signal);
    keys.forEach(validateKey);
    for (const key of keys) this.#map.delete(key);
  }

  async erasePrefix(prefix: string, options?: StoreOptions) {
    throwIfAborted(options?.signal, prefix);
    validatePrefix(prefix);
    for (const key of [...this.#map.keys()]) {
      if (key.startsWith(prefix)) this.#map.delete(key);
    }
  }

  async *list(options?: StoreOptions): AsyncGenerator<string> {
    yield* this.listPrefix("", options);
  }

  async *listPrefix(prefix: string, options?: StoreOptions): AsyncGenerator<string> {
    throwIfAborted(options?.signal, prefix);
    validatePrefix(prefix);
    // A snapshot, so that writes during iteration don't affect it.
    for (const key of [...this.#map.keys()]) {
      if (key.startsWith(prefix)) yield key;
    }
  }

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

/**
 * {@link resolveStore}: turns any store into a {@link Store} with validated keys
 * and every operation of the v3 abstract store interface, filling in what the
 * store lacks with generic fallbacks built on what it has.
 *
 * @module
 */

import { changing } from "../cache/registry.js";
import {
  StoreCapabilityError,
  StoreError,
  throwIfAborted,
  ValueError,
  ValueTooLargeError,
} from "../errors.js";
import { withKeyLock } from "../util/concurrency.js";
import { mapConcurrent, STORE_CONCURRENCY } from "./concurrency.js";
import { validateKey, validatePrefix } from "./keys.js";
import { applyWrites, groupWrites, validateValue } from "./patch.js";
import { maxRangeLength, validateRange } from "./range.js";
import type {
  AnyStore,
  ByteRange,
  DirListing,
  KeyRange,
  KeyWrite,
  Store,
  StoreOptions,
} from "./types.js";

/** Marks stores made by {@link resolveStore} (shared across copies of this module). */
const RESOLVED: unique symbol = Symbol.for("@zarr/core.resolvedStore");

/** True when `store` was made by {@link resolveStore}. */
export function isResolvedStore(store: unknown): store is Store {
  return typeof store === "object" && store !== null && RESOLVED in store;
}

/**
 * Returns a {@link Store} for `store`: the same object when it already is one,
 * otherwise a wrapper that
 * - validates every key, prefix and byte range before the store sees it
 *   (`InvalidKeyError`, `InvalidRangeError`), so no key can escape the store's root;
 * - checks the abort signal of every operation (`AbortError`);
 * - checks what the store returns (a `Uint8Array` no longer than the range asked for);
 * - provides the operations the store lacks: `getPartialValues` from `get` (16
 *   requests in flight), `getSize` and `has` from `get`, `setPartialValues` by
 *   read-modify-write (not atomic against concurrent writers of the same key),
 *   `eraseValues` from `erase`, `erasePrefix` from listing + `erase`, `listPrefix`
 *   from `list`, `listDir` from `listPrefix` (sorted, deduplicated names);
 * - throws a `StoreCapabilityError` naming the operation when it cannot
 *   (e.g. `set` on a store without `set`).
 *
 * `writable` is true when the store has `set` and `erase`; `listable` when it
 * has `list`. A store with `set` but no `erase` (e.g. an append-only archive)
 * still accepts `set`.
 */
export function resolveStore(store: AnyStore | Store): Store {
  if (isResolvedStore(store)) return store;
  if (typeof store !== "object" || store === null || typeof store.get !== "function") {
    throw new StoreError("not a store: expected an object with a get(key, range?) method");
  }
  return new ResolvedStore(store);
}

function checkValue(
  value: unknown,
  key: string,
  range: ByteRange | undefined,
  maxBytes?: number,
): Uint8Array | undefined {
  // null is accepted for missing keys, as the spec's get_partial_values allows it.
  if (value === undefined || value === null) return undefined;
  if (!(value instanceof Uint8Array)) {
    throw new StoreError(
      `store returned ${typeof value} for key ${JSON.stringify(key)}: expected a Uint8Array or undefined`,
      { path: key },
    );
  }
  const max = maxRangeLength(range);
  if (value.length > max) {
    throw new StoreError(
      `store returned ${value.length} bytes for key ${JSON.stringify(key)} and range ${JSON.stringify(range)} (at most ${max} expected): the store ignores byte ranges`,
      { path: key },
    );
  }
  if (maxBytes !== undefined && value.length > maxBytes) {
    throw new ValueTooLargeError(
      `value of key ${JSON.stringify(key)} has ${value.length} bytes, more than the ${maxBytes} this read accepts`,
      { path: key },
    );
  }
  // A Buffer (or other subclass) has surprising methods (Buffer#slice is a view): hand out a plain Uint8Array.
  return value.constructor === Uint8Array
    ? value
    : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
}

/** Copies `value` into `into`, the views laid end to end (their total length is `value.length`). */
function scatter(value: Uint8Array, into: readonly Uint8Array[]): void {
  let at = 0;
  for (const view of into) {
    view.set(value.subarray(at, at + view.length));
    at += view.length;
  }
}

/** The views laid end to end, in a new array. */
function joinViews(views: readonly Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(views.reduce((n, v) => n + v.length, 0));
  let at = 0;
  for (const view of views) {
    joined.set(view, at);
    at += view.length;
  }
  return joined;
}

function missing(operation: string, needs: string): StoreCapabilityError {
  return new StoreCapabilityError(`store does not support ${operation}: it has no ${needs}`);
}

function sortedUnique(names: Iterable<string>): string[] {
  return [...new Set(names)].sort();
}

class ResolvedStore implements Store {
  readonly [RESOLVED] = true;
  readonly readable = true as const;
  readonly writable: boolean;
  readonly listable: boolean;
  readonly copiesOnSet: boolean;
  readonly gathersOnSet: boolean;

  /** The inner store's location, read on each use (a store may resolve it late). */
  get location(): string | undefined {
    const location = this.inner.location;
    return typeof location === "string" ? location : undefined;
  }

  constructor(readonly inner: AnyStore) {
    this.copiesOnSet = inner.copiesOnSet === true;
    this.gathersOnSet = typeof inner.setFrom === "function";
    this.writable = typeof inner.set === "function" && typeof inner.erase === "function";
    this.listable = typeof inner.list === "function";
  }

  async close(): Promise<void> {
    if (typeof this.inner.close === "function") await this.inner.close();
  }

  async get(key: string, range?: ByteRange, options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    validateKey(key);
    validateRange(range, key);
    return checkValue(await this.inner.get(key, range, options), key, range, options?.maxBytes);
  }

  async getPartialValues(requests: readonly KeyRange[], options?: StoreOptions) {
    const signal = options?.signal;
    throwIfAborted(signal);
    if (!Array.isArray(requests)) throw new StoreError("getPartialValues expects an array");
    for (const { key, range } of requests) {
      validateKey(key);
      validateRange(range, key);
    }
    if (requests.length === 0) return [];
    const inner = this.inner;
    if (typeof inner.getPartialValues === "function") {
      const values = await inner.getPartialValues(requests, options);
      if (!Array.isArray(values) || values.length !== requests.length) {
        throw new StoreError(
          `store returned ${Array.isArray(values) ? values.length : "no"} values for ${requests.length} requests in getPartialValues`,
        );
      }
      return values.map((v, i) =>
        checkValue(v, requests[i].key, requests[i].range, options?.maxBytes),
      );
    }
    return mapConcurrent(
      requests,
      STORE_CONCURRENCY,
      async ({ key, range }) =>
        checkValue(await inner.get(key, range, options), key, range, options?.maxBytes),
      signal,
    );
  }

  async getSize(key: string, options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    validateKey(key);
    if (typeof this.inner.getSize !== "function") {
      return checkValue(await this.inner.get(key, undefined, options), key, undefined)?.length;
    }
    const size = await this.inner.getSize(key, options);
    if (size !== undefined && !(Number.isSafeInteger(size) && size >= 0)) {
      throw new StoreError(
        `store returned an invalid size ${String(size)} for key ${JSON.stringify(key)}`,
        { path: key },
      );
    }
    return size;
  }

  async getInto(key: string, into: readonly Uint8Array[], options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    validateKey(key);
    let total = 0;
    for (const view of into) {
      if (!(view instanceof Uint8Array)) {
        throw new ValueError(
          `getInto of key ${JSON.stringify(key)}: every target must be a Uint8Array`,
        );
      }
      total += view.length;
    }
    if (typeof this.inner.getInto === "function") {
      const size = await this.inner.getInto(key, into, options);
      if (size !== undefined && size !== null && !(Number.isSafeInteger(size) && size >= 0)) {
        throw new StoreError(
          `store returned an invalid size ${typeof size === "number" ? size : `${JSON.stringify(String(size))} (a ${typeof size})`} from getInto of key ${JSON.stringify(key)}`,
          { path: key },
        );
      }
      return size ?? undefined;
    }
    const value = checkValue(
      await this.inner.get(key, undefined, options),
      key,
      undefined,
      options?.maxBytes,
    );
    if (value === undefined) return undefined;
    try {
      if (value.length === total) scatter(value, into);
      return value.length;
    } finally {
      this.release(value);
    }
  }

  release(value: Uint8Array): void {
    if (typeof this.inner.release === "function") this.inner.release(value);
  }

  async has(key: string, options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    validateKey(key);
    if (typeof this.inner.getSize === "function") {
      return (await this.getSize(key, options)) !== undefined;
    }
    // An empty range tells existence without transferring the value.
    return (await this.get(key, { offset: 0, length: 0 }, options)) !== undefined;
  }

  async set(key: string, value: Uint8Array, options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    validateKey(key);
    const set = this.inner.set;
    if (typeof set !== "function") throw missing("set", "set()");
    const checked = validateValue(value, key);
    await changing(this.inner, { keys: [key] }, () => set.call(this.inner, key, checked, options));
  }

  async setFrom(key: string, from: readonly Uint8Array[], options?: StoreOptions) {
    if (!Array.isArray(from)) {
      throw new StoreError(`setFrom of key ${JSON.stringify(key)} expects an array of Uint8Array`, {
        path: key,
      });
    }
    // Validated before anything is joined: a wider typed array would be converted.
    for (const view of from) validateValue(view, key);
    const setFrom = this.inner.setFrom;
    if (typeof setFrom !== "function") return this.set(key, joinViews(from), options);
    throwIfAborted(options?.signal, key);
    validateKey(key);
    await changing(this.inner, { keys: [key] }, () => setFrom.call(this.inner, key, from, options));
  }

  async setPartialValues(writes: readonly KeyWrite[], options?: StoreOptions) {
    const signal = options?.signal;
    throwIfAborted(signal);
    const byKey = groupWrites(writes);
    const inner = this.inner;
    if (typeof inner.setPartialValues !== "function" && typeof inner.set !== "function") {
      throw missing("setPartialValues", "setPartialValues() or set()");
    }
    if (byKey.size === 0) return;
    await changing(inner, { keys: [...byKey.keys()] }, () =>
      this.#setPartial(byKey, writes, options),
    );
  }

  async #setPartial(
    byKey: ReturnType<typeof groupWrites>,
    writes: readonly KeyWrite[],
    options?: StoreOptions,
  ) {
    const signal = options?.signal;
    const inner = this.inner;
    if (typeof inner.setPartialValues === "function") {
      await inner.setPartialValues(writes, options);
      return;
    }
    const set = inner.set!;
    await mapConcurrent(
      [...byKey],
      STORE_CONCURRENCY,
      ([key, keyWrites]) =>
        withKeyLock(this, key, async () => {
          const current = checkValue(await inner.get(key, undefined, options), key, undefined);
          const value = applyWrites(key, current, keyWrites);
          throwIfAborted(signal, key);
          await set.call(inner, key, value, options);
        }),
      signal,
    );
  }

  async erase(key: string, options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    validateKey(key);
    const erase = this.inner.erase;
    if (typeof erase !== "function") throw missing("erase", "erase()");
    await changing(this.inner, { keys: [key] }, () => erase.call(this.inner, key, options));
  }

  async eraseValues(keys: readonly string[], options?: StoreOptions) {
    const signal = options?.signal;
    throwIfAborted(signal);
    if (!Array.isArray(keys)) throw new StoreError("eraseValues expects an array");
    keys.forEach(validateKey);
    const inner = this.inner;
    if (typeof inner.eraseValues !== "function" && typeof inner.erase !== "function") {
      throw missing("eraseValues", "eraseValues() or erase()");
    }
    if (keys.length === 0) return;
    await changing(inner, { keys }, async () => {
      if (typeof inner.eraseValues === "function") {
        await inner.eraseValues(keys, options);
        return;
      }
      const erase = inner.erase!;
      await mapConcurrent(
        [...new Set(keys)],
        STORE_CONCURRENCY,
        (key) => erase.call(inner, key, options),
        signal,
      );
    });
  }

  async erasePrefix(prefix: string, options?: StoreOptions) {
    throwIfAborted(options?.signal, prefix);
    validatePrefix(prefix);
    const inner = this.inner;
    if (typeof inner.erasePrefix === "function") {
      await changing(inner, { prefix }, () => inner.erasePrefix!(prefix, options));
      return;
    }
    if (typeof inner.erase !== "function" || typeof inner.list !== "function") {
      throw missing("erasePrefix", "erasePrefix(), or list() and erase()");
    }
    // Collect first: erasing while the store iterates could skip keys.
    const keys: string[] = [];
    for await (const key of this.listPrefix(prefix, options)) keys.push(key);
    await this.eraseValues(keys, options);
  }

  async *list(options?: StoreOptions): AsyncGenerator<string> {
    const signal = options?.signal;
    throwIfAborted(signal);
    const list = this.inner.list;
    if (typeof list !== "function") throw missing("list", "list()");
    for await (const key of list.call(this.inner, options)) {
      throwIfAborted(signal);
      yield key;
    }
  }

  async *listPrefix(prefix: string, options?: StoreOptions): AsyncGenerator<string> {
    const signal = options?.signal;
    throwIfAborted(signal, prefix);
    validatePrefix(prefix);
    const inner = this.inner;
    if (typeof inner.listPrefix !== "function" && typeof inner.list !== "function") {
      throw missing("listPrefix", "listPrefix() or list()");
    }
    const keys =
      typeof inner.listPrefix === "function"
        ? inner.listPrefix(prefix, options)
        : inner.list!(options);
    for await (const key of keys) {
      throwIfAborted(signal, prefix);
      if (key.startsWith(prefix)) yield key;
    }
  }

  async listDir(prefix: string, options?: StoreOptions): Promise<DirListing> {
    throwIfAborted(options?.signal, prefix);
    validatePrefix(prefix);
    const inner = this.inner;
    if (typeof inner.listDir === "function") {
      const listing = await inner.listDir(prefix, options);
      if (!listing || !Array.isArray(listing.keys) || !Array.isArray(listing.prefixes)) {
        throw new StoreError(`store returned a malformed listDir result for prefix "${prefix}"`, {
          path: prefix,
        });
      }
      return { keys: sortedUnique(listing.keys), prefixes: sortedUnique(listing.prefixes) };
    }
    if (typeof inner.listPrefix !== "function" && typeof inner.list !== "function") {
      throw missing("listDir", "listDir(), listPrefix() or list()");
    }
    const keys = new Set<string>();
    const prefixes = new Set<string>();
    for await (const key of this.listPrefix(prefix, options)) {
      const rest = key.slice(prefix.length);
      const slash = rest.indexOf("/");
      if (slash < 0) keys.add(rest);
      else prefixes.add(rest.slice(0, slash));
    }
    return { keys: sortedUnique(keys), prefixes: sortedUnique(prefixes) };
  }
}

/**
 * The abstract store interface of the Zarr v3 core spec ("Abstract store
 * interface"), as capabilities. A store implements `get` and whatever else it
 * can; {@link resolveStore} adds key validation and generic fallbacks for the rest.
 *
 * Keys are `/`-separated strings without a leading `/`, e.g. `"foo/bar/zarr.json"`.
 * Every key a store receives through core has been validated (no empty, `.` or
 * `..` segment, no leading `/`, no backslash or NUL), so it cannot escape the
 * store's root.
 *
 * @module
 */

/**
 * A byte range: `{offset, length?}` reads `length` bytes from `offset` (to the end
 * when `length` is omitted); `{suffix}` reads the last `suffix` bytes. A range
 * past the end of a value is clipped to the value (an empty result when it
 * starts past the end).
 */
export type ByteRange = { offset: number; length?: number } | { suffix: number };

/** Options accepted by every store operation. */
export interface StoreOptions {
  /** Cancels the operation. */
  signal?: AbortSignal;
  /**
   * Reads only: the most bytes the caller can accept for this value (or
   * range). Core sets it from the metadata: a chunk's largest possible encoded
   * size, or a cap for metadata documents. A store that streams (HTTP, S3,
   * GCS) stops reading once a body passes it and throws a `StoreError` naming
   * the key, so a hostile or broken server cannot make it buffer more; core
   * checks every returned value against it as well.
   */
  maxBytes?: number;
}

/** One request of {@link ReadableStore.getPartialValues}. */
export interface KeyRange {
  key: string;
  range?: ByteRange;
}

/** One write of {@link WritableStore.setPartialValues}: writes `value` at `offset` of `key`. */
export interface KeyWrite {
  key: string;
  offset: number;
  value: Uint8Array;
}

/** What {@link ListableStore.listDir} returns for a prefix. */
export interface DirListing {
  /** Names (relative to the prefix, without `/`) of keys directly under the prefix. */
  keys: string[];
  /** Names (relative to the prefix, without a trailing `/`) of child prefixes. */
  prefixes: string[];
}

/** The minimum a store implements: read one value, optionally a byte range of it. */
export interface ReadableStore {
  /** Returns the value (or the range of it), or `undefined` when the key is missing. */
  get(key: string, range?: ByteRange, options?: StoreOptions): Promise<Uint8Array | undefined>;
  /** Reads several keys/ranges at once; `undefined` for missing keys. */
  getPartialValues?(
    requests: readonly KeyRange[],
    options?: StoreOptions,
  ): Promise<(Uint8Array | undefined)[]>;
  /** Size in bytes of a value, or `undefined` when missing (used to resolve suffix ranges). */
  getSize?(key: string, options?: StoreOptions): Promise<number | undefined>;
  /**
   * Optional: reads the whole value of `key` straight into `into`, the views
   * laid end to end (a scatter read: a file store reads chunk rows into their
   * places in an array's output without a buffer in between). Resolves to the
   * value's size in bytes, or `undefined` when the key is missing. The views
   * hold the value only when that size equals their total length; otherwise
   * their contents are unspecified and nothing past their total length is
   * read. Stores without it get core's fallback: `get`, then a copy.
   */
  getInto?(
    key: string,
    into: readonly Uint8Array[],
    options?: StoreOptions,
  ): Promise<number | undefined>;
  /**
   * Optional: the caller is done with `value`, which this store's `get`
   * returned, and will not touch it again, so the store may reuse its memory
   * for later reads (e.g. a file store's read buffers). Callers that keep
   * values (caches) never call it; wrappers that keep values must not forward it.
   */
  release?(value: Uint8Array): void;
  /**
   * Releases what the store holds open (file handles, connections, pending
   * uploads). Optional: stores that hold nothing omit it.
   */
  close?(): Promise<void>;
  /**
   * Optional: the canonical location of the store's root, as a URL without a
   * trailing `/` (e.g. `file:///data/a.zarr` with symbolic links resolved, or
   * `s3://host:9000/bucket/prefix`). It names the place, not the object: two
   * store objects on one place, or one rooted inside the other, give the same
   * `location + "/" + key` for the same stored value. Core serializes
   * read-modify-write of a chunk by that string, so writers holding different
   * store objects never lose each other's updates within one process. Stores
   * without it are serialized per object (see {@link withKeyLock}).
   */
  readonly location?: string;
}

/** Write operations. `set` and `erase` are required for a store to count as writable. */
export interface WritableStore {
  /**
   * Optional: true when `set` keeps no reference to its value once it
   * resolves (it wrote or copied the bytes), so callers may reuse that memory
   * for the next value. Stores that keep values (e.g. `MemoryStore`) leave it out.
   */
  readonly copiesOnSet?: boolean;
  /** Stores `value` under `key`, replacing any previous value atomically where the backend allows. */
  set(key: string, value: Uint8Array, options?: StoreOptions): Promise<void>;
  /**
   * Optional: stores the views of `from`, laid end to end, as the value of
   * `key`, exactly as `set` would store their concatenation (a gather write: a
   * file store writes an uncompressed chunk's rows from their places in the
   * caller's array, without joining them in a buffer first). Like `set`, it
   * keeps no reference to the views once it resolves. Stores without it get
   * core's fallback: the views joined, then `set`.
   */
  setFrom?(key: string, from: readonly Uint8Array[], options?: StoreOptions): Promise<void>;
  /** Writes byte ranges into existing (or new, zero-extended) values. */
  setPartialValues?(writes: readonly KeyWrite[], options?: StoreOptions): Promise<void>;
  /** Removes `key`; removing a missing key is not an error. */
  erase(key: string, options?: StoreOptions): Promise<void>;
  /** Removes several keys. */
  eraseValues?(keys: readonly string[], options?: StoreOptions): Promise<void>;
  /** Removes every key starting with `prefix` (`""` clears the store). */
  erasePrefix?(prefix: string, options?: StoreOptions): Promise<void>;
}

/** Listing operations. `list` is required for a store to count as listable. */
export interface ListableStore {
  /** Every key in the store, in no particular order. */
  list(options?: StoreOptions): AsyncIterable<string>;
  /** Every key starting with `prefix` (full keys, not relative). */
  listPrefix?(prefix: string, options?: StoreOptions): AsyncIterable<string>;
  /** Direct children of `prefix` (`""` or ending in `/`). */
  listDir?(prefix: string, options?: StoreOptions): Promise<DirListing>;
}

/**
 * A store as implemented by a store package: readable, optionally writable and
 * listable. Use {@link resolveStore} to get a {@link Store} with every operation.
 */
export type AnyStore = ReadableStore & Partial<WritableStore> & Partial<ListableStore>;

/**
 * A store with every operation available (writes and listing throw a
 * `StoreCapabilityError` when the underlying store lacks them) and validated keys.
 */
export interface Store {
  /** The wrapped store, as given. */
  readonly inner: AnyStore;
  /** The wrapped store's {@link ReadableStore.location}, when it names one. */
  readonly location: string | undefined;
  readonly readable: true;
  readonly writable: boolean;
  readonly listable: boolean;
  get(key: string, range?: ByteRange, options?: StoreOptions): Promise<Uint8Array | undefined>;
  getPartialValues(
    requests: readonly KeyRange[],
    options?: StoreOptions,
  ): Promise<(Uint8Array | undefined)[]>;
  getSize(key: string, options?: StoreOptions): Promise<number | undefined>;
  /**
   * Reads the whole value of `key` into `into` (see {@link ReadableStore.getInto});
   * stores without it read the value with `get` and copy it into the views.
   */
  getInto(
    key: string,
    into: readonly Uint8Array[],
    options?: StoreOptions,
  ): Promise<number | undefined>;
  /** Hands a value back to the store for reuse (see {@link ReadableStore.release}); a no-op when it cannot. */
  release(value: Uint8Array): void;
  /** See {@link WritableStore.copiesOnSet} (false unless the store says so). */
  readonly copiesOnSet: boolean;
  has(key: string, options?: StoreOptions): Promise<boolean>;
  set(key: string, value: Uint8Array, options?: StoreOptions): Promise<void>;
  /**
   * Stores the views of `from`, laid end to end, as the value of `key` (see
   * {@link WritableStore.setFrom}); stores without it get the views joined, then `set`.
   */
  setFrom(key: string, from: readonly Uint8Array[], options?: StoreOptions): Promise<void>;
  /** True when the wrapped store has its own {@link WritableStore.setFrom} (no joining copy). */
  readonly gathersOnSet: boolean;
  setPartialValues(writes: readonly KeyWrite[], options?: StoreOptions): Promise<void>;
  erase(key: string, options?: StoreOptions): Promise<void>;
  eraseValues(keys: readonly string[], options?: StoreOptions): Promise<void>;
  erasePrefix(prefix: string, options?: StoreOptions): Promise<void>;
  list(options?: StoreOptions): AsyncIterable<string>;
  listPrefix(prefix: string, options?: StoreOptions): AsyncIterable<string>;
  listDir(prefix: string, options?: StoreOptions): Promise<DirListing>;
  /** Calls the wrapped store's `close` when it has one. */
  close(): Promise<void>;
}

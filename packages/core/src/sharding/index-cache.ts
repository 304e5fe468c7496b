/**
 * {@link ShardIndexCache}: shard indexes kept across reads.
 *
 * @module
 */

/**
 * Keeps the shard indexes that partial shard reads load, so that later reads
 * of the same shards skip the index request: one request per region instead
 * of two (what a viewer paging through tiles of sharded data over HTTP
 * needs). Pass it to reads: `array.get(sel, { shardIndexCache })`.
 *
 * Cached indexes are not revalidated against the store: use a cache for data
 * that does not change while it is cached. Writes through `set` with the same
 * cache drop the entries of the shards they replace; after other writers
 * change shards, call {@link clear}. At most `maxEntries` indexes are kept
 * (least recently used first out), per store and key.
 *
 * @example
 * const shardIndexCache = new ShardIndexCache();
 * for (const tile of tiles) await array.get(tile, { shardIndexCache });
 */
export class ShardIndexCache {
  readonly #max: number;
  /** Entries by store scope and key, in least-recently-used-first order. */
  readonly #entries = new Map<string, unknown>();
  readonly #scopes = new WeakMap<object, number>();
  #nextScope = 1;

  /** @param options.maxEntries - indexes kept at most (default 4096). */
  constructor(options: { maxEntries?: number } = {}) {
    const max = options.maxEntries ?? 4096;
    if (!Number.isSafeInteger(max) || max < 1) {
      throw new RangeError(`maxEntries must be a positive integer, got ${max}`);
    }
    this.#max = max;
  }

  /** Number of indexes held. */
  get size(): number {
    return this.#entries.size;
  }

  /** Drops every index. */
  clear(): void {
    this.#entries.clear();
  }

  /** For codecs: the value cached for `key` of the store `scope`, if any (marks it recently used). */
  get(scope: object, key: string): unknown {
    const id = this.#id(scope, key);
    if (!this.#entries.has(id)) return undefined;
    const value = this.#entries.get(id);
    this.#entries.delete(id);
    this.#entries.set(id, value);
    return value;
  }

  /** For codecs: caches `value` for `key` of the store `scope`. */
  set(scope: object, key: string, value: unknown): void {
    const id = this.#id(scope, key);
    this.#entries.delete(id);
    this.#entries.set(id, value);
    while (this.#entries.size > this.#max) {
      this.#entries.delete(this.#entries.keys().next().value as string);
    }
  }

  /** Drops the index of `key` of the store `scope` (its shard was replaced). */
  delete(scope: object, key: string): void {
    this.#entries.delete(this.#id(scope, key));
  }

  #id(scope: object, key: string): string {
    let n = this.#scopes.get(scope);
    if (n === undefined) {
      n = this.#nextScope++;
      this.#scopes.set(scope, n);
    }
    return `${n}\u0000${key}`;
  }
}

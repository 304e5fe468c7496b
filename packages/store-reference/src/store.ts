/**
 * {@link ReferenceStore}: a read-only, listable Zarr store whose values come
 * from a kerchunk reference set (JSON or Parquet), read from their targets.
 *
 * @module
 */

import { StoreError } from "@zarr/core";
import {
  type ByteRange,
  type DirListing,
  type ReadableStore,
  rangeBounds,
  type StoreOptions,
  sliceRange,
  validateKey,
  validatePrefix,
  validateRange,
} from "@zarr/core/store";
import { type JsonReferenceOptions, parseJsonReferences } from "./json.js";
import type { ParquetReferenceOptions } from "./parquet.js";
import { badReference, type Reference, resolveTargetUrl } from "./reference.js";
import {
  createTargetResolver,
  TargetNotFoundError,
  type TargetResolver,
  type TargetResolverOptions,
} from "./targets.js";

/** Where references come from: a key lookup and the list of keys. */
export interface ReferenceSource {
  lookup(key: string, signal?: AbortSignal): Promise<Reference | undefined> | Reference | undefined;
  keys(signal?: AbortSignal): AsyncIterable<string> | Iterable<string>;
  /**
   * One folder's listing, when the source can give it without listing every
   * key (Parquet directories list groups from `.zmetadata` alone).
   */
  listDir?(prefix: string, signal?: AbortSignal): Promise<DirListing>;
}

/** Options of {@link ReferenceStore}. */
export interface ReferenceStoreOptions extends TargetResolverOptions {
  /** The URL or path for references whose URL is `null` (fsspec's `target`). */
  target?: string;
  /**
   * The folder that relative target paths are joined to: by default the
   * folder holding the reference file when the store was opened from one,
   * else relative paths stay relative (to the working directory).
   */
  base?: string;
  /** Reads targets; by default one from {@link createTargetResolver}. */
  targets?: TargetResolver;
  /** Whether `close()` closes `targets` (default: only when the store created it). */
  closeTargets?: boolean;
}

/**
 * A read-only store over kerchunk references: inline values are returned as
 * they are, `[url]` and `[url, offset, length]` references are read from
 * their targets (ranges of one target requested together are merged). A key
 * without a reference is missing (`undefined`); a reference that cannot be
 * read (missing target, range past its end, bad URL) is a `StoreError`
 * naming the key and the target.
 *
 * @example
 * ```ts
 * import "@zarr/store-fs/register";
 * import { openArray } from "@zarr/core";
 * import { ReferenceStore } from "@zarr/store-reference";
 * import "@zarr/v2-compat/register";
 * const store = ReferenceStore.fromJson(JSON.parse(text), { base: "/data/" });
 * const air = await openArray(store, "air");
 * ```
 */
export class ReferenceStore implements ReadableStore {
  private readonly targets: TargetResolver;
  private readonly ownsTargets: boolean;
  private readonly target: string | undefined;
  private readonly base: string | undefined;
  private dirs: Map<string, { keys: Set<string>; prefixes: Set<string> }> | undefined;

  constructor(
    private readonly source: ReferenceSource,
    options: ReferenceStoreOptions = {},
  ) {
    this.ownsTargets = options.closeTargets ?? options.targets === undefined;
    this.targets = options.targets ?? createTargetResolver(options);
    this.target = options.target;
    this.base = options.base;
  }

  /**
   * A store over a parsed kerchunk JSON reference document (version 0 or 1).
   * Throws a `StoreError` naming the key of the first bad reference.
   */
  static fromJson(
    doc: unknown,
    options: ReferenceStoreOptions & JsonReferenceOptions = {},
  ): ReferenceStore {
    const refs = parseJsonReferences(doc, options);
    return new ReferenceStore({ lookup: (key) => refs.get(key), keys: () => refs.keys() }, options);
  }

  /**
   * A store over the Parquet reference directory at `root` (a path or URL,
   * read through the store registry): `.zmetadata` is read now, record files
   * when a key needs them.
   */
  static async fromParquet(
    root: string,
    options: ReferenceStoreOptions & ParquetReferenceOptions = {},
  ): Promise<ReferenceStore> {
    const targets = options.targets ?? createTargetResolver(options);
    const dir = root.replace(/\/+$/, "");
    const read = async (name: string) => {
      try {
        return await targets.read(`${dir}/${name}`, undefined);
      } catch (e) {
        if (e instanceof TargetNotFoundError) return undefined;
        throw e;
      }
    };
    try {
      // Loaded on demand: hyparquet and fzstd are most of this package's size.
      const { ParquetReferences } = await import("./parquet.js");
      const refs = await ParquetReferences.open(read, options);
      return new ReferenceStore(
        {
          lookup: (key, signal) => refs.lookup(key, signal),
          keys: (signal) => refs.keys(signal),
          listDir: (prefix, signal) => refs.listDir(prefix, signal),
        },
        {
          ...options,
          targets,
          closeTargets: options.closeTargets ?? options.targets === undefined,
        },
      );
    } catch (e) {
      if (options.targets === undefined) await targets.close();
      throw e;
    }
  }

  async get(
    key: string,
    range?: ByteRange,
    options?: StoreOptions,
  ): Promise<Uint8Array | undefined> {
    validateKey(key);
    validateRange(range, key);
    const ref = await this.source.lookup(key, options?.signal);
    if (ref === undefined) return undefined;
    // A copy: callers may modify what they get.
    if (ref.kind === "inline") return sliceRange(ref.bytes, range).slice();
    const url = this.urlOf(key, ref.url);
    try {
      if (ref.kind === "file")
        return sliceRange(await this.targets.read(url, undefined, options?.signal), range);
      const [start, end] = rangeBounds(range, ref.length);
      return await this.targets.read(
        url,
        { offset: ref.offset + start, length: end - start },
        options?.signal,
      );
    } catch (e) {
      if (!(e instanceof StoreError) || e.path === key) throw e;
      throw new StoreError(`reference ${JSON.stringify(key)}: ${e.message}`, {
        path: key,
        cause: e,
      });
    }
  }

  async getSize(key: string, options?: StoreOptions): Promise<number | undefined> {
    validateKey(key);
    const ref = await this.source.lookup(key, options?.signal);
    if (ref === undefined) return undefined;
    if (ref.kind === "inline") return ref.bytes.length;
    if (ref.kind === "range") return ref.length;
    return (await this.get(key, undefined, options))?.length;
  }

  async *list(options?: StoreOptions): AsyncGenerator<string> {
    for await (const key of this.source.keys(options?.signal)) yield key;
  }

  async *listPrefix(prefix: string, options?: StoreOptions): AsyncGenerator<string> {
    validatePrefix(prefix);
    for await (const key of this.source.keys(options?.signal))
      if (key.startsWith(prefix)) yield key;
  }

  async listDir(prefix: string, options?: StoreOptions): Promise<DirListing> {
    validatePrefix(prefix);
    if (this.source.listDir) return this.source.listDir(prefix, options?.signal);
    if (this.dirs === undefined) {
      const dirs = new Map<string, { keys: Set<string>; prefixes: Set<string> }>();
      const entry = (p: string) => {
        let e = dirs.get(p);
        if (e === undefined) {
          e = { keys: new Set(), prefixes: new Set() };
          dirs.set(p, e);
        }
        return e;
      };
      for await (const key of this.source.keys(options?.signal)) {
        let start = 0;
        for (let slash = key.indexOf("/"); slash >= 0; slash = key.indexOf("/", start)) {
          entry(key.slice(0, start)).prefixes.add(key.slice(start, slash));
          start = slash + 1;
        }
        entry(key.slice(0, start)).keys.add(key.slice(start));
      }
      this.dirs = dirs;
    }
    const found = this.dirs.get(prefix);
    return {
      keys: found ? [...found.keys].sort() : [],
      prefixes: found ? [...found.prefixes].sort() : [],
    };
  }

  /** Closes the target stores (unless the target resolver was given in the options). */
  async close(): Promise<void> {
    if (this.ownsTargets) await this.targets.close();
  }

  private urlOf(key: string, url: string | undefined): string {
    if (url === undefined) {
      if (this.target === undefined)
        throw badReference(key, "has a null URL and the store has no 'target' option");
      return this.target;
    }
    return resolveTargetUrl(key, url, this.base);
  }
}

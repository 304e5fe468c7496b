/**
 * Reading the files that references point into ("targets"), by URL: each
 * target's parent is opened once through the store registry (`openStore`),
 * and ranged reads of one target issued in the same turn of the event loop
 * are merged into fewer, larger reads.
 *
 * @module
 */

import { StoreError } from "@zarr/core";
import { openStore, resolveStore, type Store, validateKey } from "@zarr/core/store";
import { type ExactRange, mergeRanges } from "./coalesce.js";

/** Options of {@link createTargetResolver}. */
export interface TargetResolverOptions {
  /**
   * Options for the store opened for a target's parent URL (credentials,
   * headers, endpoint, ...), given that parent URL (`s3://bucket/dir/`,
   * `https://host/dir/`, `/data/dir/`). Default: no options.
   */
  storeOptions?: (url: string) => Record<string, unknown>;
  /** Ranges of one target at most this many bytes apart are read together. Default: 16 KiB. */
  maxGap?: number;
  /** Merged reads stop growing at this many bytes (one range is never split). Default: 8 MiB. */
  maxRequestSize?: number;
  /**
   * Whether targets may be local files: plain paths, `file:` URLs, and `zip:`,
   * `reference:` or `icechunk:` locations on them (default `true`). With
   * `false`, reading one is a `StoreError`: a reference file from elsewhere
   * cannot make an application (e.g. `zarr serve`) read the machine's files.
   */
  localFiles?: boolean;
}

/** Reads byte ranges (or whole files) of target URLs. */
export interface TargetResolver {
  /**
   * The bytes of `url` in `range` (the whole file when `range` is undefined).
   * Rejects with a `StoreError` naming the URL when the target is missing or
   * shorter than `offset + length`: never short data.
   */
  read(
    url: string,
    range: { offset: number; length: number } | undefined,
    signal?: AbortSignal,
  ): Promise<Uint8Array>;
  /** Closes every store opened for targets. */
  close(): Promise<void>;
}

/** A target URL split into the URL of its parent (opened as a store) and its key there. */
export interface TargetLocation {
  parent: string;
  key: string;
}

/**
 * A target file does not exist (a `StoreError` whose `path` is its URL).
 *
 * @example
 * ```ts
 * const bytes = await targets.read(url, undefined).catch((e) => {
 *   if (e instanceof TargetNotFoundError) return undefined;
 *   throw e;
 * });
 * ```
 */
export class TargetNotFoundError extends StoreError {
  override name = "TargetNotFoundError";
  constructor(url: string) {
    super(`target ${JSON.stringify(url)} does not exist`, { path: url });
  }
}

const SCHEME = /^([a-z][a-z0-9+.-]+):/i;
/** Schemes whose body is another location (an archive, a reference file, a repository). */
const WRAPPER = /^(?:zip|icechunk|reference(?:\+json|\+parquet)?):/i;

/**
 * Whether `url` names something on the local file system: a path, a `file:`
 * URL (or a Windows drive letter), or a wrapper scheme around one.
 *
 * @example
 * ```ts
 * isLocalLocation("/data/a.nc"); // true
 * isLocalLocation("zip:file:///tmp/a.zip!/x"); // true
 * isLocalLocation("s3://bucket/a.nc"); // false
 * ```
 */
export function isLocalLocation(url: string): boolean {
  let inner = url;
  for (let m = WRAPPER.exec(inner); m; m = WRAPPER.exec(inner)) inner = inner.slice(m[0].length);
  const scheme = SCHEME.exec(inner)?.[1];
  return scheme === undefined || scheme.length === 1 || scheme.toLowerCase() === "file";
}

const DEFAULT_GAP = 16 * 1024;
const DEFAULT_MAX_REQUEST = 8 * 1024 * 1024;

/**
 * Splits a target URL or path into its parent (a store URL) and file name
 * (the key). URLs with a scheme have their name percent-decoded, and their
 * query and fragment stay with the parent; plain paths split at the last `/`
 * or `\`. Throws a `StoreError` when no valid file name ends the URL.
 *
 * @example
 * ```ts
 * splitTargetUrl("s3://bucket/dir/a%20b.nc"); // { parent: "s3://bucket/dir/", key: "a b.nc" }
 * splitTargetUrl("data.nc"); // { parent: "./", key: "data.nc" }
 * ```
 */
export function splitTargetUrl(url: string): TargetLocation {
  const fail = (reason: string, cause?: unknown): never => {
    throw new StoreError(`target ${JSON.stringify(url)} ${reason}`, { path: url, cause });
  };
  if (typeof url !== "string" || url === "") return fail("is not a non-empty string");
  const scheme = SCHEME.exec(url)?.[1];
  let parent: string;
  let name: string;
  if (scheme === undefined) {
    const slash = Math.max(url.lastIndexOf("/"), url.lastIndexOf("\\"));
    parent = slash < 0 ? "./" : url.slice(0, slash + 1);
    name = url.slice(slash + 1);
  } else {
    let end = url.length;
    for (let i = 0; i < url.length; i++) {
      if (url[i] === "?" || url[i] === "#") {
        end = i;
        break;
      }
    }
    const slash = url.lastIndexOf("/", end - 1);
    if (slash < scheme.length) return fail("does not end with a file name");
    parent = url.slice(0, slash + 1) + url.slice(end);
    try {
      name = decodeURIComponent(url.slice(slash + 1, end));
    } catch (cause) {
      return fail("has a malformed percent escape", cause);
    }
  }
  if (name === "") return fail("does not end with a file name");
  try {
    validateKey(name);
  } catch (cause) {
    return fail(`does not end with a usable file name (${(cause as Error).message})`, cause);
  }
  return { parent, key: name };
}

interface Pending extends ExactRange {
  signal: AbortSignal | undefined;
  resolve(bytes: Uint8Array): void;
  reject(error: unknown): void;
}

/**
 * Creates a {@link TargetResolver}: opens each target's parent URL once with
 * `openStore` (so `s3://`, `gs://`, `https://` and local paths work when their
 * store packages are registered; local paths and `file:` need
 * `@zarr/store-fs/register`), caches that store until `close()`, and reads the
 * target's file name as a key. Ranged reads of one target requested in the same
 * event-loop turn (concurrent chunk reads) go out as one `getPartialValues`
 * call, nearby ranges merged (see {@link TargetResolverOptions}).
 *
 * @example
 * ```ts
 * import "@zarr/store-fs/register";
 * import { createTargetResolver } from "@zarr/store-reference";
 * const targets = createTargetResolver({ maxGap: 64 * 1024 });
 * const bytes = await targets.read("/data/air.nc", { offset: 4096, length: 800 });
 * await targets.close();
 * ```
 */
export function createTargetResolver(options: TargetResolverOptions = {}): TargetResolver {
  const maxGap = countOption(options.maxGap, DEFAULT_GAP, "maxGap");
  const maxRequestSize = countOption(options.maxRequestSize, DEFAULT_MAX_REQUEST, "maxRequestSize");
  const stores = new Map<string, Promise<Store>>();
  const queues = new Map<string, Pending[]>();
  let scheduled = false;
  let closed = false;

  const localFiles = options.localFiles ?? true;
  const storeFor = (parent: string): Promise<Store> => {
    let store = stores.get(parent);
    if (store === undefined) {
      if (!localFiles && isLocalLocation(parent)) {
        return Promise.reject(
          new StoreError(
            `target folder ${JSON.stringify(parent)} is on the local file system, which these references may not read (a reference file that is not local itself reads local files only with allowLocalTargets: true; zarr: --allow-local-targets)`,
            { path: parent },
          ),
        );
      }
      store = openStore(parent, options.storeOptions?.(parent) ?? {}).then(resolveStore);
      // A failed open is not cached: the next read tries again.
      store.catch(() => stores.delete(parent));
      stores.set(parent, store);
    }
    return store;
  };

  const flush = (): void => {
    scheduled = false;
    const batches = [...queues];
    queues.clear();
    for (const [url, pending] of batches) void readBatch(url, pending);
  };

  const readBatch = async (url: string, pending: Pending[]): Promise<void> => {
    const live = pending.filter((p) => !p.signal?.aborted);
    if (live.length === 0) return;
    try {
      const { parent, key } = splitTargetUrl(url);
      const store = await storeFor(parent);
      const reads = mergeRanges(live, maxGap, maxRequestSize);
      const first = live[0].signal;
      const signal = live.every((p) => p.signal === first) ? first : undefined;
      const values = await store.getPartialValues(
        reads.map((r) => ({ key, range: { offset: r.offset, length: r.length } })),
        { signal },
      );
      reads.forEach((read, i) => {
        const value = values[i];
        // Members are in offset order; overlapping ones get copies, so no two results share bytes.
        let end = -1;
        for (const m of read.members) {
          const p = live[m];
          if (value === undefined) {
            p.reject(new TargetNotFoundError(url));
            continue;
          }
          const start = p.offset - read.offset;
          if (start + p.length > value.length) {
            p.reject(pastEnd(url, p, value.length === 0 ? 0 : read.offset + value.length));
            continue;
          }
          const overlaps = p.offset < end;
          end = Math.max(end, p.offset + p.length);
          const bytes = value.subarray(start, start + p.length);
          p.resolve(overlaps ? bytes.slice() : bytes);
        }
      });
    } catch (e) {
      const error =
        e instanceof StoreError
          ? e
          : new StoreError(`reading target ${JSON.stringify(url)} failed: ${String(e)}`, {
              path: url,
              cause: e,
            });
      for (const p of live) p.reject(error);
    }
  };

  return {
    async read(url, range, signal) {
      if (closed)
        throw new StoreError(`target resolver is closed (reading ${JSON.stringify(url)})`);
      signal?.throwIfAborted();
      if (range === undefined) {
        const { parent, key } = splitTargetUrl(url);
        const value = await (await storeFor(parent)).get(key, undefined, { signal });
        if (value === undefined) {
          throw new TargetNotFoundError(url);
        }
        return value;
      }
      const { offset, length } = range;
      if (!isCount(offset) || !isCount(length)) {
        throw new StoreError(
          `invalid byte range offset=${offset} length=${length} of target ${JSON.stringify(url)}`,
          { path: url },
        );
      }
      return new Promise<Uint8Array>((resolve, reject) => {
        const onAbort = () => reject(signal?.reason);
        signal?.addEventListener("abort", onAbort, { once: true });
        const done =
          <T>(f: (v: T) => void) =>
          (v: T) => {
            signal?.removeEventListener("abort", onAbort);
            f(v);
          };
        const p: Pending = { offset, length, signal, resolve: done(resolve), reject: done(reject) };
        const queue = queues.get(url);
        if (queue === undefined) queues.set(url, [p]);
        else queue.push(p);
        if (!scheduled) {
          scheduled = true;
          // A macrotask, so that every chunk read started by one array read is queued first.
          setTimeout(flush, 0);
        }
      });
    },
    async close() {
      closed = true;
      const opened = [...stores.values()];
      stores.clear();
      const results = await Promise.allSettled(opened);
      await Promise.all(
        results.map((r) => (r.status === "fulfilled" ? r.value.close() : undefined)),
      );
    },
  };
}

function pastEnd(url: string, p: ExactRange, available: number): StoreError {
  return new StoreError(
    `byte range [${p.offset}, ${p.offset + p.length}) is past the end of target ${JSON.stringify(url)} (${available > 0 ? `it ends at byte ${available}` : "it ends before the range starts"})`,
    { path: url },
  );
}

function isCount(n: unknown): n is number {
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
}

function countOption(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!isCount(value)) {
    throw new StoreError(
      `target resolver option ${name} must be a non-negative integer, got ${value}`,
    );
  }
  return value;
}

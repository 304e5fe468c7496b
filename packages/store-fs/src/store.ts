/**
 * {@link FileSystemStore}: a Zarr store on a local directory.
 *
 * @module
 */

import type { Dirent } from "node:fs";
import { lstat, readdir, rmdir, unlink } from "node:fs/promises";
import { resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { StoreError, type StoreOptions, ValueTooLargeError } from "@zarr/core";
import {
  applyWrites,
  type ByteRange,
  type DirListing,
  groupWrites,
  type KeyRange,
  type KeyWrite,
  type ListableStore,
  mapConcurrent,
  type ReadableStore,
  rangeBounds,
  STORE_CONCURRENCY,
  throwIfAborted,
  validatePrefix,
  validateRange,
  validateValue,
  type WritableStore,
} from "@zarr/core/store";
import { writeFileAtomic } from "./atomic.js";
import type { ReadDescriptor } from "./descriptor.js";
import { errorCode, fsError, isNotFound } from "./fs-errors.js";
import { bufferOf, byteLengthOf, isShared, ownViews } from "./native-read.js";
import { keyPath, prefixPath } from "./paths.js";
import { readBuffers } from "./read-buffers.js";
import { type Dir, type OpenValue, openChild, type ReadValue, RootedTree } from "./tree.js";
import { openListed, readEntries, walkKeys } from "./walk.js";

/** Options of {@link FileSystemStore}. */
export interface FileSystemStoreOptions {
  /**
   * Fsync each written file, its directory and the parent of every directory
   * the write created before `set` resolves, so that completed writes survive a
   * crash or power loss (slower). Default `false`:
   * writes are still atomic, but the last ones may be lost on power loss.
   */
  durable?: boolean;
}

/**
 * A readable, writable and listable store on a local directory: key
 * `"a/b/zarr.json"` is the file `<root>/a/b/zarr.json`.
 *
 * - Reads of a byte range read only that range (suffix ranges `stat` first).
 * - Writes are atomic: the value goes to a temporary file in the same directory,
 *   which is then renamed over the key's file, so readers (in any process) see
 *   the old value or the new one, never a mix. Parent directories are created.
 * - `erase` removes the file and then each parent directory left empty, up to
 *   (not including) the root, so no empty prefix lingers in listings.
 * - A missing root directory is an empty store; the first write creates it.
 * - The root may be a symbolic link: it is resolved once, at construction.
 *   Inside the root, the store never follows a symbolic link, and reads only
 *   regular files. Links (even to inside the root), FIFOs, sockets and devices
 *   are not part of the store: listings skip them and never descend into a
 *   linked directory; `get`, `getSize` and `has` of a key that is one, or whose
 *   path runs through a linked directory, fail with a `StoreError` naming the
 *   key (a missing target reads as missing); `set` and `erase` of such a key
 *   replace or remove the entry itself when it is at the key, and fail with a
 *   `StoreError` when a directory on the key's path is a link; `erasePrefix`
 *   removes links as entries. Nothing outside the root is ever read, written
 *   or erased. On Linux this holds even against links swapped in while the
 *   store works (see the package README for the mechanism and its limits).
 * - Errors other than "not found" become `StoreError`s naming the key and path.
 *
 * @example
 * const store = new FileSystemStore("data/example.zarr");
 * await store.set("zarr.json", bytes);
 * const tail = await store.get("c/0/0", { suffix: 16 });
 */
export class FileSystemStore implements ReadableStore, WritableStore, ListableStore {
  /** Absolute path of the store's root directory, as given (see {@link location} for the resolved one). */
  readonly root: string;
  /**
   * The canonical location of the root: a `file://` URL of its real path
   * (symbolic links resolved; for a root that does not exist yet, its nearest
   * existing ancestor's, resolved again once it exists), without a trailing `/`. The path is
   * not percent-encoded, so that `location + "/" + key` names a file the same
   * way for a store on `dir` and one on `dir/sub`: core serializes
   * read-modify-write of a chunk by that string.
   */
  get location(): string {
    // A root that did not exist yet is resolved again until it does: a link
    // made on its path since then leads its writes elsewhere than the path says.
    if (this.#location === undefined) {
      const real = this.#tree.resolvedRoot();
      if (real === undefined) return fileLocation(this.#tree.root);
      this.#location = fileLocation(real);
    }
    return this.#location;
  }
  #location: string | undefined;
  readonly #tree: RootedTree;
  readonly #durable: boolean;
  /** `set` writes the value out and keeps no reference to it. */
  readonly copiesOnSet = true;

  /** @param root - the directory (a path, or a `file:` URL object). */
  constructor(root: string | URL, options: FileSystemStoreOptions = {}) {
    try {
      this.root = resolve(root instanceof URL ? fileURLToPath(root) : root);
      this.#tree = new RootedTree(this.root);
    } catch (error) {
      // A file URL naming no path, or a root whose real path no string names.
      throw new StoreError(
        `cannot open a store on ${JSON.stringify(String(root))}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    this.#durable = options.durable ?? false;
  }

  /** Validates `key` and returns its path (for messages) and segments. */
  #key(key: string): { path: string; segments: string[] } {
    return { path: keyPath(this.#tree.root, key), segments: key.split("/") };
  }

  async get(key: string, range?: ByteRange, options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    const located = this.#key(key);
    validateRange(range, key);
    const [value] = await this.#read(key, located, [range], options?.maxBytes);
    return value;
  }

  /**
   * Reads the whole file of `key` into `into`, the views laid end to end;
   * resolves to the file's size (the views hold it only when that equals
   * their total length; nothing past that length is read), or `undefined`
   * when missing. With native reads (x86-64 Linux), one thread-pool job reads
   * it into memory of the store's, copied into the views on this thread when
   * it completes (views in a `SharedArrayBuffer`: read into directly); a view
   * whose memory was transferred or shrunk meanwhile is a `StoreError`.
   * Otherwise vectored reads (`preadv`) fill the views, with no buffer in
   * between: their memory must then stay in place until the read settles.
   */
  async getInto(key: string, into: readonly Uint8Array[], options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    const { path, segments } = this.#key(key);
    const views = ownViews(into);
    if (views === undefined) {
      throw new StoreError(
        `getInto of key ${JSON.stringify(key)} (${path}): the targets must be a list of Uint8Arrays`,
        { path: key },
      );
    }
    let total = 0;
    for (const view of views) total += byteLengthOf(view);
    let opened: OpenValue | undefined;
    let bounce: Uint8Array | null = null;
    try {
      // One thread-pool job where native reads are available. It writes from
      // another thread: memory the caller could detach, transfer or shrink
      // meanwhile is read into a buffer of ours and copied when it completes.
      if (views.length === 0 || !isShared(bufferOf(views[0]))) bounce = readBuffers.take(total);
      const read = await this.#tree.readValue(segments, views, true, bounce);
      if (read === null) return undefined; // missing, or a prefix
      if (read !== undefined) return read.bytesRead ?? read.size;
      opened = await this.#tree.openValue(segments);
    } catch (error) {
      throw fsError("get", key, path, error);
    } finally {
      if (bounce !== null) readBuffers.give(bounce);
    }
    if (opened === undefined) return undefined; // missing, or a prefix
    const { handle, size } = opened;
    try {
      if (size !== total) return size;
      return await readvAt(handle, views, 0);
    } catch (error) {
      throw fsError("get", key, path, error);
    } finally {
      await handle.close();
    }
  }

  /**
   * Takes back a value this store's `get` returned, for reuse by later reads
   * (arrays call it once a chunk is decoded). The caller must not use `value`
   * afterwards. The memory is shared by every `FileSystemStore` of the thread
   * (at most 32 MiB kept), so a store opened per read reuses what the last
   * one read into. Values from elsewhere are ignored.
   */
  release(value: Uint8Array): void {
    readBuffers.give(value);
  }

  async getPartialValues(requests: readonly KeyRange[], options?: StoreOptions) {
    const signal = options?.signal;
    throwIfAborted(signal);
    // Open each file once for all the ranges asked of it.
    const byKey = new Map<string, number[]>();
    const located = new Map<string, { path: string; segments: string[] }>();
    for (const [i, { key, range }] of requests.entries()) {
      if (!located.has(key)) located.set(key, this.#key(key));
      validateRange(range, key);
      const indices = byKey.get(key);
      if (indices) indices.push(i);
      else byKey.set(key, [i]);
    }
    const values = new Array<Uint8Array | undefined>(requests.length);
    await mapConcurrent(
      [...byKey],
      STORE_CONCURRENCY,
      async ([key, indices]) => {
        const ranges = indices.map((i) => requests[i].range);
        const read = await this.#read(key, located.get(key)!, ranges, options?.maxBytes);
        indices.forEach((requestIndex, j) => {
          values[requestIndex] = read[j];
        });
      },
      signal,
    );
    return values;
  }

  /**
   * Reads `ranges` of one file; all `undefined` when the key is missing. A range
   * longer than `maxBytes` is a `StoreError` before anything is read.
   */
  async #read(
    key: string,
    { path, segments }: { path: string; segments: string[] },
    ranges: readonly (ByteRange | undefined)[],
    maxBytes?: number,
  ): Promise<(Uint8Array | undefined)[]> {
    if (ranges.length === 1 && ranges[0] === undefined) {
      const whole = await this.#readWhole(key, path, segments, maxBytes);
      if (whole !== NOT_NATIVE) return [whole];
    }
    let handle: ReadDescriptor;
    let size: number;
    try {
      const opened = await this.#tree.openValue(segments);
      if (opened === undefined) return ranges.map(() => undefined); // missing, or a prefix
      ({ handle, size } = opened);
    } catch (error) {
      throw fsError("get", key, path, error);
    }
    try {
      const bounds = ranges.map((range) => rangeBounds(range, size));
      for (const [start, end] of bounds) {
        if (maxBytes !== undefined && end - start > maxBytes) {
          throw tooLarge(key, path, end - start, maxBytes);
        }
      }
      const values: Uint8Array[] = [];
      for (const [start, end] of bounds) {
        values.push(await readAt(handle, start, end - start));
      }
      return values;
    } catch (error) {
      if (error instanceof StoreError) throw error;
      throw fsError("get", key, path, error);
    } finally {
      await handle.close();
    }
  }

  /**
   * Reads the whole value of `key` in one thread-pool job (native reads) into
   * memory of the thread's pool, sized from the last value read; a value that
   * does not fit is read again into memory of its size. {@link NOT_NATIVE}
   * when native reads are unavailable.
   */
  async #readWhole(
    key: string,
    path: string,
    segments: readonly string[],
    maxBytes: number | undefined,
  ): Promise<Uint8Array | undefined | typeof NOT_NATIVE> {
    // A limit other than a whole number of bytes: `node:fs` decides, as it always did.
    if (maxBytes !== undefined && !(Number.isSafeInteger(maxBytes) && maxBytes >= 0)) {
      return NOT_NATIVE;
    }
    // Room taken before the size is known: the last value's size, within the
    // limit, and within a budget for all the reads in flight (beyond it, none:
    // the first job only finds the size).
    let room = Math.min(MAX_GUESSED_BYTES, Math.max(MIN_WHOLE_READ_BYTES, sizeHint));
    if (maxBytes !== undefined) room = Math.min(room, maxBytes);
    // (`takeRoom` may hand out up to twice the room.)
    if (guessedBytes + 2 * room > GUESS_BUDGET_BYTES) room = 0;
    // The file may grow between tries; after a few, `node:fs` reads it (fstat first).
    for (let attempt = 0; attempt < 3; attempt++) {
      let buffer: Uint8Array | undefined;
      let read: ReadValue | null | undefined;
      let guessed = 0;
      try {
        // First memory given back by reads of values about this size; then the size itself.
        buffer = attempt === 0 && room > 0 ? readBuffers.takeRoom(room) : readBuffers.take(room);
        if (attempt === 0) guessedBytes += guessed = buffer.length;
        const limit = maxBytes === undefined ? buffer.length : Math.min(buffer.length, maxBytes);
        read = await this.#tree.readValue(segments, [buffer.subarray(0, limit)], false, null);
      } catch (error) {
        if (buffer !== undefined) readBuffers.give(buffer);
        throw fsError("get", key, path, error);
      } finally {
        guessedBytes -= guessed;
      }
      if (read == null || read.bytesRead === undefined) readBuffers.give(buffer);
      if (read === undefined) return NOT_NATIVE;
      if (read === null) return undefined; // missing, or a prefix
      if (read.bytesRead === undefined) {
        if (maxBytes !== undefined && read.size > maxBytes) {
          throw tooLarge(key, path, read.size, maxBytes);
        }
        room = read.size;
        continue;
      }
      if (buffer.length < read.bytesRead) {
        // Its memory went away meanwhile: a value handed back with `release` still in use.
        throw fsError("get", key, path, new Error(GONE));
      }
      sizeHint = read.size;
      return readBuffers.fit(buffer, read.bytesRead);
    }
    return NOT_NATIVE;
  }

  async getSize(key: string, options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    const { path, segments } = this.#key(key);
    try {
      const opened = await this.#tree.openValue(segments);
      if (opened === undefined) return undefined;
      await opened.handle.close();
      return opened.size;
    } catch (error) {
      throw fsError("getSize", key, path, error);
    }
  }

  async set(key: string, value: Uint8Array, options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    const { path, segments } = this.#key(key);
    validateValue(value, key);
    const name = segments.pop()!;
    try {
      await writeFileAtomic(this.#tree, segments, name, value, this.#durable);
    } catch (error) {
      throw fsError("set", key, path, error);
    }
  }

  /**
   * Stores the views laid end to end as the value of `key`, like `set` of their
   * concatenation (atomic replace, `durable` alike), written by gathering
   * writes straight from the views: an uncompressed chunk goes from its rows in
   * the caller's array to the file without a buffer in between.
   *
   * @example
   * ```ts
   * import { FileSystemStore } from "@zarr/store-fs";
   * const store = new FileSystemStore("data.zarr");
   * const rows = new Uint8Array(8);
   * await store.setFrom("c/0", [rows.subarray(0, 4), rows.subarray(4)]);
   * ```
   */
  async setFrom(key: string, from: readonly Uint8Array[], options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    const { path, segments } = this.#key(key);
    if (!Array.isArray(from)) {
      throw new StoreError(`setFrom of key ${JSON.stringify(key)} expects an array of Uint8Array`, {
        path: key,
      });
    }
    for (const view of from) validateValue(view, key);
    const name = segments.pop()!;
    try {
      await writeFileAtomic(this.#tree, segments, name, from, this.#durable);
    } catch (error) {
      throw fsError("setFrom", key, path, error);
    }
  }

  /**
   * Applies partial writes by read-modify-write of each key, then an atomic
   * replace: readers never see a half-applied write. Concurrent partial writes
   * to the same key (from several processes) can lose one of the updates.
   */
  async setPartialValues(writes: readonly KeyWrite[], options?: StoreOptions) {
    const signal = options?.signal;
    throwIfAborted(signal);
    const byKey = groupWrites(writes);
    for (const key of byKey.keys()) this.#key(key);
    await mapConcurrent(
      [...byKey],
      STORE_CONCURRENCY,
      async ([key, keyWrites]) => {
        const current = await this.get(key, undefined, options);
        await this.set(key, applyWrites(key, current, keyWrites), options);
      },
      signal,
    );
  }

  async erase(key: string, options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    const { path, segments } = this.#key(key);
    const name = segments.pop()!;
    let dir: Dir | undefined;
    try {
      dir = await this.#tree.openDir(segments, false);
      if (dir === undefined) return;
      try {
        // unlink never follows a link: a link at the key is removed, not its target.
        await unlink(dir.child(name));
      } catch (error) {
        if (isNotFound(error)) return;
        const code = errorCode(error);
        // unlink of a directory fails with EISDIR (Linux) or EPERM (macOS): a prefix, not a key.
        if ((code === "EISDIR" || code === "EPERM") && (await isDirectory(dir.child(name)))) return;
        throw error;
      }
    } catch (error) {
      throw fsError("erase", key, path, error);
    } finally {
      await dir?.close();
    }
    await this.#removeEmptyParents(segments);
  }

  async eraseValues(keys: readonly string[], options?: StoreOptions) {
    throwIfAborted(options?.signal);
    for (const key of keys) this.#key(key);
    await mapConcurrent(
      [...new Set(keys)],
      STORE_CONCURRENCY,
      (key) => this.erase(key, options),
      options?.signal,
    );
  }

  /**
   * Removes the directory of `prefix` (`""`: everything inside the root,
   * keeping the root). Symbolic links inside are removed as entries, never
   * followed; a prefix that is itself a link removes the link.
   */
  async erasePrefix(prefix: string, options?: StoreOptions) {
    throwIfAborted(options?.signal, prefix);
    validatePrefix(prefix);
    const path = prefixPath(this.#tree.root, prefix);
    const segments = prefix === "" ? [] : prefix.slice(0, -1).split("/");
    const name = segments.pop();
    let parent: Dir | undefined;
    try {
      parent = await this.#tree.openDir(segments, false);
      if (parent === undefined) return;
      if (name === undefined) {
        await removeContents(parent);
        return;
      }
      if (!(await removeEntry(parent, name, "prefix"))) return; // a file: a key, not a prefix
    } catch (error) {
      throw fsError("erasePrefix", prefix, path, error);
    } finally {
      await parent?.close();
    }
    await this.#removeEmptyParents(segments);
  }

  /** Removes the directories of `segments` and their parents while they are empty, stopping below the root. */
  async #removeEmptyParents(segments: readonly string[]): Promise<void> {
    for (let n = segments.length; n > 0; n--) {
      let parent: Dir | undefined;
      try {
        parent = await this.#tree.openDir(segments.slice(0, n - 1), false);
        if (parent === undefined) return;
        await rmdir(parent.child(segments[n - 1]));
      } catch {
        return; // not empty (or in use, or already gone, or not ours): leave it
      } finally {
        await parent?.close();
      }
    }
  }

  async *list(options?: StoreOptions): AsyncGenerator<string> {
    yield* this.listPrefix("", options);
  }

  async *listPrefix(prefix: string, options?: StoreOptions): AsyncGenerator<string> {
    throwIfAborted(options?.signal, prefix);
    validatePrefix(prefix);
    const path = prefixPath(this.#tree.root, prefix);
    const segments = prefix === "" ? [] : prefix.slice(0, -1).split("/");
    try {
      yield* walkKeys(this.#tree, segments, prefix, options?.signal);
    } catch (error) {
      if (errorCode(error) === undefined) throw error;
      throw fsError("listPrefix", prefix, path, error);
    }
  }

  async listDir(prefix: string, options?: StoreOptions): Promise<DirListing> {
    throwIfAborted(options?.signal, prefix);
    validatePrefix(prefix);
    const path = prefixPath(this.#tree.root, prefix);
    const segments = prefix === "" ? [] : prefix.slice(0, -1).split("/");
    const listing: DirListing = { keys: [], prefixes: [] };
    let dir: Dir | undefined;
    try {
      dir = await openListed(this.#tree, segments);
      if (dir === undefined) return listing;
      for (const entry of (await readEntries(dir)) ?? []) {
        (entry.kind === "file" ? listing.keys : listing.prefixes).push(entry.name);
      }
    } catch (error) {
      throw fsError("listDir", prefix, path, error);
    } finally {
      await dir?.close();
    }
    return listing;
  }
}

const GONE =
  "the memory read into was detached while the value was read (a value given back with release() still in use?)";

/** Returned by `#readWhole` when native reads are unavailable. */
const NOT_NATIVE = Symbol("not native");
/** The least memory a whole-value read starts with (metadata documents fit). */
const MIN_WHOLE_READ_BYTES = 16 * 1024;
/** The most memory a whole-value read takes before it knows the value's size. */
const MAX_GUESSED_BYTES = 4 * 1024 * 1024;
/** The most memory all whole-value reads in flight take before they know their values' sizes. */
const GUESS_BUDGET_BYTES = 32 * 1024 * 1024;
/** Memory whole-value reads in flight took before knowing their values' sizes (this thread's). */
let guessedBytes = 0;
/**
 * Whole-value reads start with room for the size of the value read last (at
 * least; see `ReadBuffers.takeRoom`): a value larger than the room takes a
 * second read. Shared by the thread's stores, as the memory is.
 */
let sizeHint = 0;

function tooLarge(key: string, path: string, bytes: number, maxBytes: number): ValueTooLargeError {
  return new ValueTooLargeError(
    `get of key ${JSON.stringify(key)} (${path}): ${bytes} bytes to read, more than the ${maxBytes} the caller accepts`,
    { path: key },
  );
}

/** The most bytes one `read` call asks for. */
const MAX_BYTES_PER_READ = 2 ** 30;

/** Reads `length` bytes at `position`; fewer if the file is shorter than that. */
async function readAt(
  handle: ReadDescriptor,
  position: number,
  length: number,
): Promise<Uint8Array> {
  // The thread's pool, shared by every store (see read-buffers.ts).
  const buffer = readBuffers.take(length);
  let filled = 0;
  while (filled < length) {
    // At most 1 GiB per call: Node reads nothing when asked for 4 GiB or more at once.
    const ask = Math.min(length - filled, MAX_BYTES_PER_READ);
    const bytesRead = await handle.read(buffer, filled, ask, position + filled);
    if (bytesRead === 0) break; // the file was truncated by someone else
    filled += bytesRead;
  }
  if (filled === length) return buffer;
  buffer.fill(0, filled); // unread memory is never reachable through `.buffer`
  return buffer.subarray(0, filled);
}

/** The most buffers one `readv` takes (Linux's IOV_MAX; libuv reads no more per call). */
const MAX_VIEWS_PER_READ = 1024;

/**
 * Fills `views`, laid end to end, from `position` on; returns the bytes read,
 * fewer than their total length only when the file ends first.
 */
async function readvAt(
  handle: ReadDescriptor,
  views: readonly Uint8Array[],
  position: number,
): Promise<number> {
  // Empty views hold nothing: a batch of only those would read 0 bytes, as at the end of the file.
  const pending = views.filter((view) => byteLengthOf(view) > 0);
  let next = 0;
  let read = 0;
  while (next < pending.length) {
    const batch = pending.slice(next, next + MAX_VIEWS_PER_READ);
    const bytesRead = await handle.readv(batch, position + read);
    if (bytesRead === 0) break; // the file was truncated by someone else
    read += bytesRead;
    // Skip the views filled; a partly filled one continues where it stopped.
    let left = bytesRead;
    while (next < pending.length && left >= pending[next].length) left -= pending[next++].length;
    if (left > 0) pending[next] = pending[next].subarray(left);
  }
  return read;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** How often a directory is emptied again when a concurrent write adds to it. */
const REMOVE_RETRIES = 3;

/** Removes everything inside `dir` (never following links: they are removed as entries). */
async function removeContents(dir: Dir): Promise<void> {
  let dirents: Dirent[];
  try {
    dirents = await readdir(dir.self, { withFileTypes: true });
  } catch (error) {
    if (isNotFound(error)) return;
    throw error;
  }
  for (const dirent of dirents) {
    await removeEntry(dir, dirent.name, dirent.isDirectory() ? "tree" : "any");
  }
}

/**
 * Removes the entry `name` of `dir`: a directory with everything in it, or
 * anything else (a link, a file) as an entry. With `"prefix"`, only a
 * directory or a link is removed, and a regular file is left (false).
 */
async function removeEntry(
  dir: Dir,
  name: string,
  what: "prefix" | "tree" | "any",
): Promise<boolean> {
  const path = dir.child(name);
  if (what === "any") {
    try {
      await unlink(path);
      return true;
    } catch (error) {
      if (isNotFound(error)) return true;
      const code = errorCode(error);
      if (code !== "EISDIR" && code !== "EPERM") throw error;
    }
  }
  for (let attempt = 0; ; attempt++) {
    const sub = await openChild(dir, name);
    if (sub === undefined) return true;
    if (sub === "other" && what === "prefix") return false;
    if (typeof sub === "string") {
      await unlink(path).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
      return true;
    }
    try {
      await removeContents(sub);
    } finally {
      await sub.close();
    }
    try {
      await rmdir(path);
      return true;
    } catch (error) {
      if (isNotFound(error)) return true;
      // A concurrent write created something in it meanwhile: empty it again.
      if (errorCode(error) !== "ENOTEMPTY" || attempt >= REMOVE_RETRIES) throw error;
    }
  }
}

/**
 * A `file://` URL of an absolute path, not percent-encoded (keys are appended
 * to it as they are), without a trailing `/`.
 */
function fileLocation(path: string): string {
  const slashed = sep === "\\" ? path.replaceAll("\\", "/") : path;
  // "/" becomes "file://", so that "file://" + "/" + key names the same file as a
  // store on the key's directory does.
  return `file://${(slashed.startsWith("/") ? slashed : `/${slashed}`).replace(/\/+$/, "")}`;
}

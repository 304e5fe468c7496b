/**
 * {@link FileSystemStore}: a Zarr store on a local directory.
 *
 * @module
 */

import type { FileHandle } from "node:fs/promises";
import { lstat, open, readdir, rm, rmdir, stat, unlink } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
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
  type StoreOptions,
  throwIfAborted,
  validatePrefix,
  validateRange,
  validateValue,
  type WritableStore,
} from "@zarr/core";
import { writeFileAtomic } from "./atomic.js";
import { errorCode, fsError, isNotFound } from "./fs-errors.js";
import { keyPath, prefixPath } from "./paths.js";
import { ReadBuffers } from "./read-buffers.js";
import { readEntries, walkKeys } from "./walk.js";

/** Options of {@link FileSystemStore}. */
export interface FileSystemStoreOptions {
  /**
   * Fsync each written file and its directory before `set` resolves, so that
   * completed writes survive a crash or power loss (slower). Default `false`:
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
 * - Symbolic links inside the root are followed when reading and listing (the
 *   directory's owner put them there); `erase` and `erasePrefix` remove links,
 *   never what they point to. Keys themselves can never leave the root.
 * - Errors other than "not found" become `StoreError`s naming the key and path.
 *
 * @example
 * const store = new FileSystemStore("data/example.zarr");
 * await store.set("zarr.json", bytes);
 * const tail = await store.get("c/0/0", { suffix: 16 });
 */
export class FileSystemStore implements ReadableStore, WritableStore, ListableStore {
  /** Absolute path of the store's root directory. */
  readonly root: string;
  readonly #durable: boolean;
  readonly #buffers = new ReadBuffers();
  /** `set` writes the value out and keeps no reference to it. */
  readonly copiesOnSet = true;

  /** @param root - the directory (a path, or a `file:` URL object). */
  constructor(root: string | URL, options: FileSystemStoreOptions = {}) {
    this.root = resolve(root instanceof URL ? fileURLToPath(root) : root);
    this.#durable = options.durable ?? false;
  }

  async get(key: string, range?: ByteRange, options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    const path = keyPath(this.root, key);
    validateRange(range, key);
    const [value] = await this.#read(key, path, [range]);
    return value;
  }

  /**
   * Takes back a value this store's `get` returned, for reuse by later reads
   * (arrays call it once a chunk is decoded). The caller must not use `value`
   * afterwards. Values from elsewhere are ignored.
   */
  release(value: Uint8Array): void {
    this.#buffers.give(value);
  }

  async getPartialValues(requests: readonly KeyRange[], options?: StoreOptions) {
    const signal = options?.signal;
    throwIfAborted(signal);
    // Open each file once for all the ranges asked of it.
    const byKey = new Map<string, number[]>();
    for (const [i, { key, range }] of requests.entries()) {
      keyPath(this.root, key);
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
        const read = await this.#read(key, keyPath(this.root, key), ranges);
        indices.forEach((requestIndex, j) => {
          values[requestIndex] = read[j];
        });
      },
      signal,
    );
    return values;
  }

  /** Reads `ranges` of one file; all `undefined` when the key is missing. */
  async #read(
    key: string,
    path: string,
    ranges: readonly (ByteRange | undefined)[],
  ): Promise<(Uint8Array | undefined)[]> {
    let handle: FileHandle;
    try {
      handle = await open(path, "r");
    } catch (error) {
      if (isNotFound(error) || errorCode(error) === "EISDIR") return ranges.map(() => undefined);
      throw fsError("get", key, path, error);
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) return ranges.map(() => undefined); // a directory: a prefix, not a key
      const values: Uint8Array[] = [];
      for (const range of ranges) {
        const [start, end] = rangeBounds(range, info.size);
        values.push(await readAt(handle, start, end - start, this.#buffers));
      }
      return values;
    } catch (error) {
      throw fsError("get", key, path, error);
    } finally {
      await handle.close();
    }
  }

  async getSize(key: string, options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    const path = keyPath(this.root, key);
    try {
      const info = await stat(path);
      return info.isFile() ? info.size : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw fsError("getSize", key, path, error);
    }
  }

  async set(key: string, value: Uint8Array, options?: StoreOptions) {
    throwIfAborted(options?.signal, key);
    const path = keyPath(this.root, key);
    validateValue(value, key);
    try {
      await writeFileAtomic(dirname(path), path, value, this.#durable);
    } catch (error) {
      throw fsError("set", key, path, error);
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
    for (const key of byKey.keys()) keyPath(this.root, key);
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
    const path = keyPath(this.root, key);
    try {
      await unlink(path);
    } catch (error) {
      if (isNotFound(error)) return;
      const code = errorCode(error);
      // unlink of a directory fails with EISDIR (Linux) or EPERM (macOS): a prefix, not a key.
      if ((code === "EISDIR" || code === "EPERM") && (await isDirectory(path))) return;
      throw fsError("erase", key, path, error);
    }
    await this.#removeEmptyParents(dirname(path));
  }

  async eraseValues(keys: readonly string[], options?: StoreOptions) {
    throwIfAborted(options?.signal);
    for (const key of keys) keyPath(this.root, key);
    await mapConcurrent(
      [...new Set(keys)],
      STORE_CONCURRENCY,
      (key) => this.erase(key, options),
      options?.signal,
    );
  }

  /** Removes the directory of `prefix` (`""`: everything inside the root, keeping the root). */
  async erasePrefix(prefix: string, options?: StoreOptions) {
    throwIfAborted(options?.signal, prefix);
    validatePrefix(prefix);
    const path = prefixPath(this.root, prefix);
    try {
      if (prefix === "") {
        const names = await readdir(path).catch((error: unknown) => {
          if (isNotFound(error)) return [];
          throw error;
        });
        for (const name of names) await rm(join(path, name), { recursive: true, force: true });
        return;
      }
      let info: Awaited<ReturnType<typeof lstat>>;
      try {
        info = await lstat(path);
      } catch (error) {
        if (isNotFound(error)) return;
        throw error;
      }
      if (info.isDirectory()) {
        // rm never follows symbolic links: links inside are removed, not their targets.
        await rm(path, { recursive: true, force: true });
      } else if (info.isSymbolicLink() && (await isDirectory(path))) {
        await unlink(path);
      } else {
        return; // a file: a key, not a prefix
      }
    } catch (error) {
      throw fsError("erasePrefix", prefix, path, error);
    }
    await this.#removeEmptyParents(dirname(path));
  }

  /** Removes `dir` and its parents while they are empty, stopping below the root. */
  async #removeEmptyParents(dir: string): Promise<void> {
    while (dir.startsWith(this.root + sep)) {
      try {
        await rmdir(dir);
      } catch {
        return; // not empty (or in use, or already gone): leave it
      }
      dir = dirname(dir);
    }
  }

  async *list(options?: StoreOptions): AsyncGenerator<string> {
    yield* this.listPrefix("", options);
  }

  async *listPrefix(prefix: string, options?: StoreOptions): AsyncGenerator<string> {
    throwIfAborted(options?.signal, prefix);
    validatePrefix(prefix);
    const path = prefixPath(this.root, prefix);
    try {
      yield* walkKeys(path, prefix, options?.signal);
    } catch (error) {
      if (errorCode(error) === undefined) throw error;
      throw fsError("listPrefix", prefix, path, error);
    }
  }

  async listDir(prefix: string, options?: StoreOptions): Promise<DirListing> {
    throwIfAborted(options?.signal, prefix);
    validatePrefix(prefix);
    const path = prefixPath(this.root, prefix);
    let entries: Awaited<ReturnType<typeof readEntries>>;
    try {
      entries = await readEntries(path);
    } catch (error) {
      throw fsError("listDir", prefix, path, error);
    }
    const listing: DirListing = { keys: [], prefixes: [] };
    for (const entry of entries ?? []) {
      (entry.kind === "file" ? listing.keys : listing.prefixes).push(entry.name);
    }
    return listing;
  }
}

/** Reads `length` bytes at `position`; fewer if the file is shorter than that. */
async function readAt(
  handle: FileHandle,
  position: number,
  length: number,
  buffers: ReadBuffers,
): Promise<Uint8Array> {
  const buffer = buffers.take(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break; // the file was truncated by someone else
    filled += bytesRead;
  }
  if (filled === length) return buffer;
  buffer.fill(0, filled); // unread memory is never reachable through `.buffer`
  return buffer.subarray(0, filled);
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

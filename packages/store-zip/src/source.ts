/**
 * Where a zip archive's bytes come from: anything that can read a byte range.
 * The reader needs nothing else, so archives can live in memory, in a `Blob`
 * (browser file input), behind any Zarr store (HTTP, S3, ...) or, through
 * `@zarr/store-zip/node`, in a local file.
 *
 * @module
 */

import { type AnyStore, type Store, StoreError } from "@zarr/core";
import { resolveStore } from "@zarr/core/store";

/** Random access to the bytes of an archive. */
export interface RangeSource {
  /** A name for error messages (a path or URL). */
  readonly name: string;
  /** The total size of the archive in bytes. */
  size(signal?: AbortSignal): Promise<number>;
  /**
   * Reads `length` bytes at `offset`. The range is always inside the archive;
   * the result must have exactly `length` bytes and belong to the caller (not
   * be a view of memory the source reuses or exposes elsewhere).
   */
  read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array>;
  /** Releases the source (file handles); optional. */
  close?(): Promise<void>;
}

/** A {@link RangeSource} over bytes in memory (each read returns a copy of the range). */
export function bytesSource(bytes: Uint8Array, name = "<bytes>"): RangeSource {
  return {
    name,
    size: async () => bytes.length,
    read: async (offset, length) => bytes.slice(offset, offset + length),
  };
}

/** A {@link RangeSource} over a `Blob` or `File` (browser file inputs, fetched blobs). */
export function blobSource(
  blob: Blob,
  name = (blob as { name?: string }).name ?? "<blob>",
): RangeSource {
  return {
    name,
    size: async () => blob.size,
    read: async (offset, length) =>
      new Uint8Array(await blob.slice(offset, offset + length).arrayBuffer()),
  };
}

/**
 * A {@link RangeSource} over the value of `key` in a Zarr store, read with
 * ranged `get`s: a zip file on an HTTP server, in S3 or in any other store.
 */
export function storeSource(store: AnyStore | Store, key: string, name = key): RangeSource {
  const resolved = resolveStore(store);
  let size: Promise<number> | undefined;
  const notFound = () =>
    new StoreError(`zip archive ${JSON.stringify(name)} not found`, { path: name });
  return {
    name,
    size(signal) {
      size ??= resolved.getSize(key, { signal }).then((n) => {
        if (n === undefined) throw notFound();
        return n;
      });
      size.catch(() => {
        size = undefined;
      });
      return size;
    },
    async read(offset, length, signal) {
      const value = await resolved.get(key, { offset, length }, { signal });
      if (value === undefined) throw notFound();
      return value;
    },
  };
}

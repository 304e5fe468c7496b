/**
 * {@link ZipWriterStore}: writing a Zarr hierarchy straight into a zip archive.
 *
 * @module
 */

import { StoreCapabilityError, type StoreOptions } from "@zarr/core";
import { type ByteRange, sliceRange } from "@zarr/core/store";
import { ZipFormatError } from "./errors.js";
import type { ZipWriter } from "./writer.js";

/** Metadata documents: small, rewritten while a hierarchy is built, so kept in memory until `close`. */
const METADATA_NAMES = new Set(["zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata"]);

function isMetadataKey(key: string): boolean {
  return METADATA_NAMES.has(key.slice(key.lastIndexOf("/") + 1));
}

/**
 * A write-mostly Zarr store that streams into a {@link ZipWriter}: create
 * arrays and write their chunks, then `close()` to finish the archive, and
 * open it with {@link ZipStore} to read.
 *
 * - Chunks (every key that is not a metadata document) are written to the
 *   archive as they are `set`, once each: setting a chunk twice, or reading
 *   back or erasing a chunk already written, raises `StoreCapabilityError`
 *   (an archive cannot be rewritten in place). Write each chunk whole, once —
 *   e.g. write arrays chunk-aligned.
 * - Metadata documents (`zarr.json`, `.zarray`, `.zgroup`, `.zattrs`,
 *   `.zmetadata`) stay in memory, can be read, rewritten and erased, and are
 *   written at `close`.
 * - Erasing a key never written is a no-op (Zarr erases chunks equal to the
 *   fill value).
 */
export class ZipWriterStore {
  readonly #writer: ZipWriter;
  readonly #metadata = new Map<string, Uint8Array>();
  #closed = false;

  /** @param writer - the writer to stream into; `close()` closes it. */
  constructor(writer: ZipWriter) {
    this.#writer = writer;
  }

  async get(key: string, range?: ByteRange): Promise<Uint8Array | undefined> {
    const meta = this.#metadata.get(key);
    if (meta) return sliceRange(meta, range).slice();
    if (this.#writer.has(key)) {
      throw new StoreCapabilityError(
        `cannot read key ${JSON.stringify(key)} back: it was already streamed into the zip archive`,
        { path: key },
      );
    }
    return undefined;
  }

  async set(key: string, value: Uint8Array, options?: StoreOptions): Promise<void> {
    this.#checkOpen(key);
    if (isMetadataKey(key)) {
      this.#metadata.set(key, value.slice());
      return;
    }
    if (this.#writer.has(key)) {
      throw new StoreCapabilityError(
        `cannot set key ${JSON.stringify(key)} again: zip entries are write-once`,
        { path: key },
      );
    }
    await this.#writer.add(key, value, { signal: options?.signal });
  }

  async erase(key: string): Promise<void> {
    this.#checkOpen(key);
    if (this.#metadata.delete(key) || !this.#writer.has(key)) return;
    throw new StoreCapabilityError(
      `cannot erase key ${JSON.stringify(key)}: it was already streamed into the zip archive`,
      { path: key },
    );
  }

  async *list(): AsyncGenerator<string> {
    const metadata = [...this.#metadata.keys()];
    yield* metadata;
    for (const name of [...this.#writer.names()]) if (!this.#metadata.has(name)) yield name;
  }

  /** Writes the metadata documents and the archive's central directory, and closes the writer. */
  async close(): Promise<void> {
    this.#checkOpen();
    this.#closed = true;
    for (const [key, value] of [...this.#metadata].sort(([a], [b]) => (a < b ? -1 : 1))) {
      await this.#writer.add(key, value);
    }
    await this.#writer.close();
  }

  #checkOpen(key?: string): void {
    if (this.#closed) {
      throw new ZipFormatError("the zip store was closed", { path: key });
    }
  }
}

/**
 * Node.js helpers of @zarr/store-zip: zip archives in local files.
 *
 * @example
 * import { createZipFile, openZipFile } from "@zarr/store-zip/node";
 * const store = await openZipFile("data.zip", { root: "data.zarr" });
 *
 * @packageDocumentation
 */

import { fileSink, fileSource } from "./local-file/node.js";
import { ZipStore, type ZipStoreOptions } from "./store.js";
import { ZipWriter, type ZipWriterOptions } from "./writer.js";
import { ZipWriterStore } from "./writer-store.js";

export { fileSink, fileSource };

/** Opens the zip archive at `path` as a read-only {@link ZipStore} (call `close()` when done). */
export function openZipFile(path: string, options?: ZipStoreOptions): Promise<ZipStore> {
  return ZipStore.open(fileSource(path), options);
}

/** A {@link ZipWriter} writing a new archive at `path`. */
export function createZipFile(path: string, options?: ZipWriterOptions): ZipWriter {
  return new ZipWriter(fileSink(path), options);
}

/** A {@link ZipWriterStore} writing a new archive at `path`; `close()` finishes the file. */
export function createZipFileStore(path: string, options?: ZipWriterOptions): ZipWriterStore {
  return new ZipWriterStore(createZipFile(path, options));
}

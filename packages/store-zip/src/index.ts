/**
 * @zarr/store-zip: Zarr stores in zip archives, for browsers and Node.js.
 *
 * @example
 * import { ZipStore, blobSource } from "@zarr/store-zip";
 * const store = await ZipStore.open(blobSource(file), { root: "data.zarr" });
 *
 * @packageDocumentation
 */

export { type CentralDirectory, readCentralDirectory, type ZipEntry } from "./central-directory.js";
export { crc32 } from "./crc32.js";
export { type DeflateRaw, deflateRaw, type InflateRaw, inflateRaw } from "./deflate.js";
export { ZipFormatError } from "./errors.js";
export { unsafeNameReason } from "./names.js";
export { archiveSource, parseZipUrl, type ZipUrl, zipStoreOpener } from "./opener.js";
export { blobSource, bytesSource, type RangeSource, storeSource } from "./source.js";
export { ZipStore, type ZipStoreOptions } from "./store.js";
export { type ZipAddOptions, type ZipSink, ZipWriter, type ZipWriterOptions } from "./writer.js";
export { ZipWriterStore } from "./writer-store.js";

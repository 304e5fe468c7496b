/**
 * @zarr/store-fs: a Zarr store on a local directory.
 *
 * @example
 * import { FileSystemStore } from "@zarr/store-fs";
 * const store = new FileSystemStore("data/example.zarr");
 *
 * @packageDocumentation
 */

export { fileStoreOpener } from "./opener.js";
export { FileSystemStore, type FileSystemStoreOptions } from "./store.js";

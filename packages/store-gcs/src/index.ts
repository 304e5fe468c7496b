/**
 * @zarr/store-gcs: a Zarr store on Google Cloud Storage.
 *
 * @example
 * import { GcsStore } from "@zarr/store-gcs";
 * const store = new GcsStore({ bucket: "my-bucket", prefix: "data/example.zarr" });
 *
 * @packageDocumentation
 */

export { gcsStoreOpener, parseGcsUrl } from "./opener.js";
export { type GcsRetryOptions, GcsStore, type GcsStoreOptions } from "./store.js";

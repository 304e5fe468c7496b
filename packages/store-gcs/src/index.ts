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
export {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_TIMEOUT,
  type GcsRetryOptions,
  GcsStore,
  type GcsStoreOptions,
  MAX_ERROR_BODY,
} from "./store.js";

/**
 * @zarr/store-s3: a Zarr store on Amazon S3 and S3-compatible servers.
 *
 * @example
 * import { S3Store } from "@zarr/store-s3";
 * const store = new S3Store({ bucket: "my-bucket", prefix: "data/example.zarr" });
 *
 * @packageDocumentation
 */

export {
  addContentMd5,
  boundResponseBodies,
  createS3Client,
  DEFAULT_S3_TIMEOUTS,
  MAX_BUFFERED_RESPONSE,
  type S3ClientOptions,
  type S3Credentials,
  type S3Timeouts,
} from "./client.js";
export { parseS3Url, s3StoreOpener } from "./opener.js";
export { DEFAULT_MAX_BODY_BYTES, S3Store, type S3StoreOptions } from "./store.js";

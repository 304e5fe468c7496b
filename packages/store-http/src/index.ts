/**
 * @zarr/store-http: a read-only Zarr store over HTTP(S) with `fetch`, for
 * browsers and Node.js.
 *
 * @example
 * import { HttpStore } from "@zarr/store-http";
 * import { openArray } from "@zarr/core";
 * const store = new HttpStore("https://example.org/data.zarr", { forbiddenIsMissing: true });
 * const array = await openArray(store, "temperature");
 *
 * @packageDocumentation
 */

export { type ContentRange, parseContentRange } from "./content-range.js";
export { httpStoreOpener, httpStoreOptions } from "./opener.js";
export { DEFAULT_RETRY, type RetryPolicy } from "./retry.js";
export {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_TIMEOUTS,
  HttpStore,
  type HttpStoreOptions,
  type HttpTimeouts,
} from "./store.js";

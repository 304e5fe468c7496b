/**
 * The errors of @zarr/store-icechunk.
 *
 * @module
 */

import { StoreError } from "@zarr/core";

/**
 * An Icechunk file is malformed or unsupported: bad magic bytes, an unknown
 * spec version, file type or compression, a truncated or out-of-bounds
 * flatbuffer, a missing required field. `path` is the repository file
 * concerned (e.g. `snapshots/1CECHNKREP0F1RSTCMT0`).
 *
 * @example
 * ```ts
 * import { IcechunkFormatError, IcechunkStore } from "@zarr/store-icechunk";
 * // repo: the store holding the repository
 * const store = await IcechunkStore.open(repo).catch((e) => {
 *   if (e instanceof IcechunkFormatError) console.error(`damaged file ${e.path}: ${e.message}`);
 *   throw e;
 * });
 * ```
 */
export class IcechunkFormatError extends StoreError {
  override name =
    this.constructor === IcechunkFormatError ? "IcechunkFormatError" : this.constructor.name;
}

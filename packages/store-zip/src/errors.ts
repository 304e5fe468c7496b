/**
 * The errors of @zarr/store-zip.
 *
 * @module
 */

import { StoreError } from "@zarr/core";

/**
 * A zip archive is malformed, truncated, uses an unsupported feature, or holds
 * an entry whose name would escape the store's root. `path` is the archive (and
 * entry) concerned.
 */
export class ZipFormatError extends StoreError {
  override name = this.constructor === ZipFormatError ? "ZipFormatError" : this.constructor.name;
}

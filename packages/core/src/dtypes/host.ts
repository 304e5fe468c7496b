/**
 * Host byte order. The in-memory representation of every fixed-size data type is
 * the host's typed arrays; this implementation assumes a little-endian host (every
 * platform Node and browsers run on today) and refuses to run on others rather
 * than silently returning byte-swapped data.
 *
 * @module
 */

import { UnsupportedError } from "../errors.js";

/** True on little-endian hosts. */
export const LITTLE_ENDIAN_HOST: boolean = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Throws an {@link UnsupportedError} on a big-endian host. */
export function assertLittleEndianHost(): void {
  if (!LITTLE_ENDIAN_HOST) {
    throw new UnsupportedError(
      "@zarr/core requires a little-endian host: typed arrays are used as the in-memory representation of data types",
    );
  }
}

/**
 * Stand-ins for local files where there is no file system (browsers): opening
 * a local path explains what to use instead.
 *
 * @module
 */

import { UnsupportedError } from "@zarr/core";
import type { RangeSource } from "../source.js";
import type { ZipSink } from "../writer.js";

/** False: this build cannot open local files. */
export const hasLocalFiles = false;

function unsupported(path: string): UnsupportedError {
  return new UnsupportedError(
    `cannot open the local file ${path} here (no file system): read a Blob/File with blobSource(), or an archive behind a URL`,
    { path },
  );
}

/** Throws: local files need Node.js (`@zarr/store-zip/node`). */
export function fileSource(path: string): RangeSource {
  throw unsupported(path);
}

/** Throws: local files need Node.js (`@zarr/store-zip/node`). */
export function fileSink(path: string): ZipSink {
  throw unsupported(path);
}

/** Returns `pathOrUrl` unchanged (there are no local paths here). */
export function localPath(pathOrUrl: string): string {
  return pathOrUrl;
}

/**
 * Classifying `node:fs` errors and wrapping them into `StoreError`s.
 *
 * @module
 */

import { StoreError } from "@zarr/core";

/** The `code` of a Node.js system error, if any. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * True when the error means "nothing there": the path does not exist, or one
 * of its parents is a file rather than a directory.
 */
export function isNotFound(error: unknown): boolean {
  const code = errorCode(error);
  return code === "ENOENT" || code === "ENOTDIR";
}

/** A {@link StoreError} for a failed file system operation on `key`. */
export function fsError(operation: string, key: string, path: string, cause: unknown): StoreError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new StoreError(`${operation} of key ${JSON.stringify(key)} failed (${path}): ${reason}`, {
    path: key,
    cause,
  });
}

/**
 * Classifying SDK errors: which mean "no such key", which a cancelled signal,
 * and how the rest become `StoreError`s naming the key.
 *
 * @module
 */

import { requestError } from "@zarr/remote-store";

interface SdkErrorShape {
  name?: string;
  Code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

function shape(error: unknown): SdkErrorShape {
  return typeof error === "object" && error !== null ? (error as SdkErrorShape) : {};
}

/** HTTP status of an SDK error, when it got a response. */
export function statusOf(error: unknown): number | undefined {
  return shape(error).$metadata?.httpStatusCode;
}

/**
 * True when `error` says the object does not exist: `NoSuchKey` (GET) or a bare
 * 404 `NotFound` (HEAD has no body). A missing bucket (`NoSuchBucket`) is not a
 * missing key: it is a configuration error and must surface.
 */
export function isNoSuchKey(error: unknown): boolean {
  const e = shape(error);
  const code = e.name ?? e.Code;
  if (code === "NoSuchKey") return true;
  if (code === "NoSuchBucket") return false;
  return statusOf(error) === 404 && (code === "NotFound" || code === "UnknownError");
}

/** True when the server refused a byte range that starts past the end of the object (HTTP 416). */
export function isInvalidRange(error: unknown): boolean {
  const e = shape(error);
  return statusOf(error) === 416 || (e.name ?? e.Code) === "InvalidRange";
}

/**
 * The error to throw for a failed request: an `AbortError` when `signal` was
 * aborted, otherwise a `StoreError` naming the operation, the key, and the
 * server's code and status.
 */
export function storeError(
  error: unknown,
  operation: string,
  key: string,
  location: string,
  signal?: AbortSignal,
): Error {
  const e = shape(error);
  return requestError(error, {
    service: "S3",
    operation,
    key,
    location,
    signal,
    code: e.name ?? e.Code ?? "Error",
    status: statusOf(error),
    message: e.message ?? String(error),
  });
}

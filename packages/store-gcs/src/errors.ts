/**
 * Classifying `@google-cloud/storage` errors: missing objects, ranges past
 * the end, and the `StoreError`s everything else becomes.
 *
 * @module
 */

import { requestError } from "@zarr/remote-store";

interface ApiErrorShape {
  code?: number | string;
  status?: number;
  message?: string;
  response?: { status?: number };
}

/** HTTP status of a client error (ApiError `code`, Gaxios `status`/`response.status`). */
export function statusOf(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const e = error as ApiErrorShape;
  if (typeof e.code === "number") return e.code;
  return e.status ?? e.response?.status;
}

/**
 * True when the object does not exist: HTTP 404 that is not about the bucket
 * (a missing bucket is a configuration error and must surface).
 */
export function isNotFound(error: unknown): boolean {
  if (statusOf(error) !== 404) return false;
  const message = (error as ApiErrorShape).message ?? "";
  return !/bucket does not exist/i.test(message);
}

/** True for HTTP 416: the object exists but the range starts at or past its end. */
export function isRangeNotSatisfiable(error: unknown): boolean {
  return statusOf(error) === 416;
}

/**
 * The error to throw for a failed request: an `AbortError` when `signal` was
 * aborted, otherwise a `StoreError` naming the operation, key and HTTP status.
 */
export function storeError(
  error: unknown,
  operation: string,
  key: string,
  location: string,
  signal?: AbortSignal,
): Error {
  return requestError(error, {
    service: "GCS",
    operation,
    key,
    location,
    signal,
    status: statusOf(error),
    // The client puts the whole error body in the message: requestError keeps it short.
    message: (error as ApiErrorShape | undefined)?.message ?? String(error),
  });
}

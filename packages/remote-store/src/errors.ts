/**
 * The error a failed request of a network store becomes: an `AbortError`
 * when the caller aborted, else a `StoreError` naming the service, the
 * operation, the key, where, and what the server said.
 *
 * @module
 */

import { AbortError, StoreError } from "@zarr/core";

/** The most characters of a server's message kept in an error (clients put whole error bodies there). */
export const MAX_ERROR_MESSAGE = 1000;

/** A failed request, as {@link requestError} reports it. */
export interface FailedRequest {
  /** The service, first word of the message (`"S3"`, `"GCS"`). */
  service: string;
  /** The operation (`"GetObject"`, `"download"`). */
  operation: string;
  /** The store key (or prefix) it was for: named in the message and as `path`. */
  key: string;
  /** Where (`s3://bucket/object`). */
  location: string;
  /** The caller's signal: when aborted, the failure is an `AbortError`. */
  signal?: AbortSignal;
  /** The server's error code (`"NoSuchBucket"`), if it has one. */
  code?: string;
  /** The HTTP status, if a response came. */
  status?: number;
  /** The client's message (cut to {@link MAX_ERROR_MESSAGE} characters). */
  message: string;
}

/**
 * The error to throw for `error`, a failed request described by `request`:
 * `error` itself when it already is a `StoreError` or `AbortError`, an
 * `AbortError` when `request.signal` was aborted, otherwise a `StoreError`
 * (`cause`: `error`) reading
 * `<service> <operation> of "<key>" at <location> failed[: <code>][ (HTTP <status>)]: <message>`.
 */
export function requestError(error: unknown, request: FailedRequest): Error {
  if (error instanceof StoreError || error instanceof AbortError) return error;
  const { key, signal } = request;
  if (signal?.aborted) {
    return new AbortError(`operation aborted at ${JSON.stringify(key)}`, {
      path: key,
      cause: signal.reason ?? error,
    });
  }
  const full = request.message;
  const message = full.length > MAX_ERROR_MESSAGE ? `${full.slice(0, MAX_ERROR_MESSAGE)}…` : full;
  const status = request.status === undefined ? "" : ` (HTTP ${request.status})`;
  const detail = request.code === undefined ? status : `: ${request.code}${status}`;
  return new StoreError(
    `${request.service} ${request.operation} of ${JSON.stringify(key)} at ${request.location} failed${detail}: ${message}`,
    { path: key, cause: error },
  );
}

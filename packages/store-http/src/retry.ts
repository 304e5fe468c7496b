/**
 * Retrying requests that fail transiently (5xx, 429, network errors) with
 * exponential backoff and jitter, bounded in count and in total time.
 *
 * @module
 */

import { AbortError } from "@zarr/core";

/** How a store retries. */
export interface RetryPolicy {
  /** Retries after the first attempt (default 3; 0 disables retries). */
  retries: number;
  /** Delay before the first retry in ms, doubled for each further retry (default 200). */
  baseDelay: number;
  /** Longest single delay in ms (default 5,000); `Retry-After` is capped to it too. */
  maxDelay: number;
  /** No retry starts later than this many ms after the first attempt (default 20,000). */
  timeout: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  retries: 3,
  baseDelay: 200,
  maxDelay: 5_000,
  timeout: 20_000,
};

/** HTTP statuses worth retrying: server errors (but not 501/505, which are permanent) and rate limiting. */
export function isRetryableStatus(status: number): boolean {
  return (status >= 500 && status !== 501 && status !== 505) || status === 429 || status === 408;
}

/**
 * The delay before retry number `attempt` (0-based): exponential backoff,
 * lengthened (never shortened) by a `Retry-After` header in seconds, so a
 * server answering `Retry-After: 0` cannot turn retries into a tight loop.
 */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfter?: string | null,
): number {
  const exp = Math.min(policy.baseDelay * 2 ** attempt, policy.maxDelay);
  const backoff = exp / 2 + Math.random() * (exp / 2); // "equal jitter": spreads clients apart
  const seconds = retryAfter ? Number(retryAfter) : Number.NaN;
  if (Number.isFinite(seconds) && seconds >= 0) {
    return Math.min(Math.max(seconds * 1000, backoff), policy.maxDelay);
  }
  return backoff;
}

/** Resolves after `ms`, or rejects with an `AbortError` as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const abort = () => {
      clearTimeout(timer);
      reject(new AbortError(`operation aborted at "${path}"`, { path, cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", abort);
      resolve();
    }, ms);
    if (signal?.aborted) abort();
    else signal?.addEventListener("abort", abort, { once: true });
  });
}

/**
 * Retrying requests that fail transiently (5xx, 429, network errors,
 * response timeouts) with exponential backoff and jitter, bounded in count
 * and in total time.
 *
 * @module
 */

/** How a store retries. */
export interface RetryPolicy {
  /** Retries after the first attempt (default 3; 0 disables retries). */
  retries: number;
  /** Delay before the first retry in ms, doubled for each further retry (default 200). */
  baseDelay: number;
  /** Longest single delay in ms (default 5,000); `Retry-After` is capped to it too. */
  maxDelay: number;
  /**
   * The total time of one operation in ms (default 20,000): every attempt,
   * backoff wait and body included. When it passes, the request in flight is
   * aborted and the operation fails with a `StoreError` naming the key; no
   * retry starts that could not finish its wait within it. Raise it to read
   * large values over slow links.
   */
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

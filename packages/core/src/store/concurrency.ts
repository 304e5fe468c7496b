/**
 * Bounded-concurrency mapping used by the store fallbacks.
 *
 * @module
 */

import { throwIfAborted } from "../errors.js";

/** How many store requests a fallback keeps in flight at once. */
export const STORE_CONCURRENCY = 16;

/**
 * Maps `items` through `fn` with at most `limit` calls in flight, preserving
 * order. Stops starting new calls after the first failure or abort, and
 * rejects with that error.
 */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        throwIfAborted(signal);
        results[i] = await fn(items[i], i);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const workers = Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker);
  await Promise.all(workers);
  return results;
}

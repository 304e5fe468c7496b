/**
 * Bounded concurrency for chunk I/O, cancellable with an AbortSignal, and
 * per-key locks that serialize read-modify-write of one chunk within a process.
 *
 * @module
 */

import { throwIfAborted } from "../errors.js";

/** Default number of chunks in flight at once. */
export const DEFAULT_CONCURRENCY = 16;

/**
 * Runs `fn` over `items` with at most `limit` calls in flight. Stops starting
 * new work after the first failure or abort and rethrows the first error.
 */
export async function forEachConcurrent<T>(
  items: Iterable<T>,
  limit: number,
  fn: (item: T) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  const iterator = items[Symbol.iterator]();
  let failed = false;
  let error: unknown;
  const worker = async () => {
    while (!failed) {
      throwIfAborted(signal);
      const next = iterator.next();
      if (next.done) return;
      try {
        await fn(next.value);
      } catch (e) {
        if (!failed) {
          failed = true;
          error = e;
        }
      }
    }
  };
  const n = Math.max(1, Math.floor(limit));
  const workers: Promise<void>[] = [];
  for (let i = 0; i < n; i++) workers.push(worker());
  const results = await Promise.allSettled(workers);
  if (failed) throw error;
  for (const r of results) if (r.status === "rejected") throw r.reason;
}

const locks = new WeakMap<object, Map<string, Promise<unknown>>>();

/**
 * Runs `fn` after every earlier call with the same `owner` and `key` has
 * settled, so read-modify-write cycles of one chunk never interleave.
 */
export function withKeyLock<R>(owner: object, key: string, fn: () => Promise<R>): Promise<R> {
  let map = locks.get(owner);
  if (!map) {
    map = new Map();
    locks.set(owner, map);
  }
  const previous = map.get(key) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  map.set(key, tail);
  void tail.then(() => {
    if (map.get(key) === tail) map.delete(key);
  });
  return run;
}

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
  const turn = new TaskTurn();
  const worker = async () => {
    while (!failed) {
      // Stores that answer from memory settle in microtasks only; without a turn
      // of the event loop now and then, timers (AbortSignal.timeout) and I/O
      // would starve for as long as the selection lasts.
      if (turn.due()) await turn.yield();
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

/** How long a loop runs before it lets the event loop take a turn. */
const TURN_MS = 20;

/**
 * Lets long loops of promise work give the event loop a turn every
 * {@link TURN_MS} milliseconds (a macrotask: `setImmediate` in Node,
 * `setTimeout(0)` elsewhere).
 */
export class TaskTurn {
  #since = Date.now();
  #calls = 0;

  /** True when a turn is due (checks the clock every 64 calls). */
  due(): boolean {
    if ((++this.#calls & 63) !== 0) return false;
    return Date.now() - this.#since >= TURN_MS;
  }

  /** Resolves after one macrotask. */
  async yield(): Promise<void> {
    const g = globalThis as { setImmediate?: (fn: () => void) => unknown };
    await new Promise<void>((resolve) =>
      g.setImmediate ? g.setImmediate(resolve) : setTimeout(resolve, 0),
    );
    this.#since = Date.now();
  }
}

/** Lock tails: per canonical location (shared by every copy of this module), else per store object. */
interface LockTables {
  readonly byLocation: Map<string, Promise<unknown>>;
  readonly byObject: WeakMap<object, Map<string, Promise<unknown>>>;
}
const TABLES = Symbol.for("@zarr/core.keyLocks");
const shared = globalThis as { [TABLES]?: LockTables };
if (shared[TABLES] === undefined)
  shared[TABLES] = { byLocation: new Map(), byObject: new WeakMap() };
const tables: LockTables = shared[TABLES];

/** What {@link withKeyLock} locks on: a store (its location, or itself), or any object. */
export type LockOwner = object & { readonly location?: string; readonly inner?: object };

/**
 * Runs `fn` after every earlier call for the same stored value has settled, so
 * read-modify-write cycles of one chunk never interleave within a process.
 *
 * The value is named by `owner.location + "/" + key` when the store declares
 * its canonical location (so two store objects on one directory, bucket or
 * archive share the lock, and a store rooted inside another's root too), and
 * otherwise by the store object (a resolved store's wrapped `inner` store) and `key`.
 */
export function withKeyLock<R>(owner: LockOwner, key: string, fn: () => Promise<R>): Promise<R> {
  let map: Map<string, Promise<unknown>>;
  let id = key;
  const location = owner.location;
  if (typeof location === "string" && location !== "") {
    map = tables.byLocation;
    // (A root location such as "file://" keeps its slashes: "file://" + "/" + key.)
    id = `${/:\/\/$/.test(location) ? location : location.replace(/\/+$/, "")}/${key}`;
  } else {
    const object = owner.inner ?? owner;
    let perObject = tables.byObject.get(object);
    if (!perObject) {
      perObject = new Map();
      tables.byObject.set(object, perObject);
    }
    map = perObject;
  }
  const previous = map.get(id) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  map.set(id, tail);
  void tail.then(() => {
    if (map.get(id) === tail) map.delete(id);
  });
  return run;
}

/**
 * Which chunk caches hold values of which store, so that a write through any
 * array handle on a store drops what those caches hold for the keys it
 * replaces. Stores are identified by object (the store as given, `Store.inner`),
 * never by URL: two store objects on one place are two stores here.
 *
 * `resolveStore`'s writes call {@link changing}, which also counts the writes
 * of each store (one `WeakMap` entry per store written through a handle) so
 * that a load overlapping a write is never kept, even by a cache that first
 * reads the store while the write runs.
 *
 * @module
 */

/** What a cache does when keys of a store it holds change. */
export interface ChunkHolder {
  /** Drops the entries (and loads in flight) of `keys` of the store with id `storeId`. */
  dropKeys(storeId: number, keys: readonly string[]): void;
  /** Drops the entries (and loads in flight) of every key of the store starting with `prefix`. */
  dropPrefix(storeId: number, prefix: string): void;
}

const ids = new WeakMap<object, number>();
let nextId = 1;
/** Weakly held: a cache nobody uses any more is collected even while its stores live. */
const holders = new WeakMap<object, Set<WeakRef<ChunkHolder>>>();
/** Per store: how many holders were live at the last sweep of dead references (see {@link holdValuesOf}). */
const swept = new WeakMap<Set<WeakRef<ChunkHolder>>, number>();

/** Writes of a store: how many have started (ever) and how many run now. Kept for every store that is written through a handle. */
interface WriteState {
  started: number;
  running: number;
}
const writes = new WeakMap<object, WriteState>();

/** The id of the store object `scope` (stable for the object's lifetime). */
export function storeId(scope: object): number {
  let id = ids.get(scope);
  if (id === undefined) {
    id = nextId++;
    ids.set(scope, id);
  }
  return id;
}

/** Records that the holder behind `ref` keeps values of the store `scope`. */
export function holdValuesOf(scope: object, ref: WeakRef<ChunkHolder>): void {
  let set = holders.get(scope);
  if (set === undefined) {
    set = new Set();
    holders.set(scope, set);
  }
  set.add(ref);
  // Caches made and dropped one after another (one per request) leave dead
  // references: sweep them whenever the set has doubled since the last sweep,
  // so it holds at most about twice the live caches (amortized O(1) per cache).
  if (set.size > 2 * (swept.get(set) ?? 0) + 16) {
    for (const r of set) if (r.deref() === undefined) set.delete(r);
    swept.set(set, set.size);
  }
}

/**
 * A mark of the writes of store `scope` for a load starting now: `undefined`
 * when a write runs (what the load reads may be replaced under it). Pass it to
 * {@link unchangedSince} when the load ends.
 */
export function writeMark(scope: object): number | undefined {
  const state = writes.get(scope);
  if (state === undefined) return 0;
  return state.running > 0 ? undefined : state.started;
}

/**
 * Whether no write of store `scope` ran at any time between {@link writeMark}
 * (which gave `mark`) and now: only then may a load's value be kept.
 */
export function unchangedSince(scope: object, mark: number | undefined): boolean {
  return mark !== undefined && (writes.get(scope)?.started ?? 0) === mark;
}

function forEachHolder(scope: object, fn: (holder: ChunkHolder, id: number) => void): void {
  const set = holders.get(scope);
  if (set === undefined) return;
  const id = storeId(scope);
  for (const ref of set) {
    const holder = ref.deref();
    if (holder === undefined) set.delete(ref);
    else fn(holder, id);
  }
}

/**
 * Runs `write`, which replaces or erases `keys` of the store `scope` (or every
 * key starting with a prefix), dropping what caches hold of them before and
 * after it: a read that started meanwhile may have loaded the old value. The
 * write is counted for the store (see {@link writeMark}) whether or not a
 * cache holds its values yet: a cache that first reads the store while the
 * write runs must not keep what it reads.
 */
/**
 * Counts a change of store `scope` made where no write hook sees it (another
 * process, another store object: `ChunkCache.invalidate`): loads and shard
 * index reads running now are not kept or shared past it.
 */
export function noteChange(scope: object): void {
  const state = writes.get(scope);
  if (state === undefined) writes.set(scope, { started: 1, running: 0 });
  else state.started++;
}

export async function changing<T>(
  scope: object,
  change: { keys: readonly string[] } | { prefix: string },
  write: () => Promise<T>,
): Promise<T> {
  let state = writes.get(scope);
  if (state === undefined) {
    state = { started: 0, running: 0 };
    writes.set(scope, state);
  }
  state.started++;
  state.running++;
  const drop = () =>
    forEachHolder(scope, (holder, id) =>
      "keys" in change ? holder.dropKeys(id, change.keys) : holder.dropPrefix(id, change.prefix),
    );
  drop();
  try {
    return await write();
  } finally {
    state.running--;
    drop();
  }
}

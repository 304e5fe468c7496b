/**
 * Which chunk caches hold values of which store, so that a write through any
 * array handle on a store drops what those caches hold for the keys it
 * replaces. Stores are identified by object (the store as given, `Store.inner`),
 * never by URL: two store objects on one place are two stores here.
 *
 * `resolveStore`'s writes call {@link changing}; with no cache holding values
 * of a store, that is one `WeakMap` lookup.
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
 * after it: a read that started meanwhile may have loaded the old value.
 */
export async function changing<T>(
  scope: object,
  change: { keys: readonly string[] } | { prefix: string },
  write: () => Promise<T>,
): Promise<T> {
  if (!holders.has(scope)) return write();
  const drop = () =>
    forEachHolder(scope, (holder, id) =>
      "keys" in change ? holder.dropKeys(id, change.keys) : holder.dropPrefix(id, change.prefix),
    );
  drop();
  try {
    return await write();
  } finally {
    drop();
  }
}

/**
 * Whole chunks through a chunk cache: the cached one, the load another read
 * started, or a new load shared by the reads that come while it runs.
 * Loaded with the first read that passes a `chunkCache` (see read.ts).
 *
 * @module
 */

import type { ArrayContext } from "../array/context.js";
import type { GetOptions } from "../array/types.js";
import type { ChunkCache } from "./chunk-cache.js";
import {
  type CachedChunk,
  chunkEntries,
  type PendingChunk,
  readerCopy,
  shareKey,
} from "./entries.js";

/**
 * The chunk at store key `key` decoded under `tag` (`null` when not stored):
 * from `cache`, or loaded into it, until `options.signal` aborts. The value is
 * the cache's own (but for `bytes` elements, copied for this reader): copy out of it.
 */
export function cachedChunk(
  ctx: ArrayContext,
  cache: ChunkCache,
  key: string,
  tag: string,
  options: GetOptions,
): CachedChunk | Promise<CachedChunk> {
  const entries = chunkEntries(cache);
  const scope = ctx.store.inner;
  const share = shareKey(options);
  const found = entries.peek(scope, key, "", tag, share);
  if (found === undefined) {
    const pending = entries.begin(scope, key, "", tag, share, options.signal !== undefined);
    void loadChunk(ctx, key, pending, options);
    return entries.wait(pending.promise, options.signal, key).then(readerCopy);
  }
  return found instanceof Promise
    ? entries.wait(found, options.signal, key).then(readerCopy)
    : readerCopy(found);
}

/**
 * Reads and decodes the chunk at `key` for every reader waiting on `pending`:
 * under the load's own signal (aborted when every reader has aborted), not
 * the first reader's (the others may still need it). The stored
 * bytes are not handed back to the store (`release`): the decoded values may
 * be views of them until the cache has copied them.
 */
async function loadChunk(
  ctx: ArrayContext,
  key: string,
  pending: PendingChunk,
  options: GetOptions,
): Promise<void> {
  const shared: GetOptions = { ...options, signal: pending.signal };
  try {
    const bytes = await ctx.store.get(key, undefined, ctx.bounded(shared));
    if (bytes === undefined) {
      pending.settle(null);
      return;
    }
    const chunk = await ctx.keyed(key, () => ctx.budgeted(shared, () => ctx.decode(bytes, shared)));
    pending.settle(chunk);
  } catch (e) {
    pending.fail(e);
  }
}

/**
 * Reading one whole chunk of an array through a {@link ChunkCache} (the hook
 * of `readSelection`): the cached decoded chunk when there is one, otherwise
 * one load shared by concurrent readers, kept for the next reads. Sharded
 * arrays read through the shard codec's partial decode, which caches inner
 * chunks (see `decodeShardRegionCached`).
 *
 * @module
 */

import type { ArrayContext } from "../array/context.js";
import type { ArrayParts, GetOptions } from "../array/types.js";
import { type ChunkTarget, copyChunk } from "../codecs/decode-to.js";
import type { ChunkRegion } from "../codecs/types.js";
import { untilAborted } from "../errors.js";
import { type ChunkCache, chunkEntries } from "./chunk-cache.js";
import type { PendingChunk } from "./entries.js";

const tags = new WeakMap<ArrayParts, string>();

/**
 * What an array's decoded chunks depend on besides their stored bytes: the
 * data type, the chunk shape and the codecs. Entries decoded under other
 * metadata (an array re-created at the same path) are never served.
 */
export function chunkCacheTag(parts: ArrayParts): string {
  let tag = tags.get(parts);
  if (tag === undefined) {
    tag = JSON.stringify([parts.meta.data_type, parts.codecs.spec.shape, parts.codecs.toJSON()]);
    tags.set(parts, tag);
  }
  return tag;
}

/**
 * Copies the selected part of the chunk at `coords` into `target`, through
 * `cache`. Resolves to `false` when the chunk is not stored (the caller fills
 * its part with the fill value).
 */
export async function readChunkCached(
  ctx: ArrayContext,
  cache: ChunkCache,
  coords: readonly number[],
  target: ChunkTarget,
  options: GetOptions,
): Promise<boolean> {
  const codecs = ctx.parts.codecs;
  if (codecs.supportsPartialDecode) {
    // A whole shard, assembled from its inner chunks (cached one by one).
    const region: ChunkRegion = codecs.spec.shape.map((s) => [0, s] as const);
    const shard = await ctx.budgeted(options, () =>
      codecs.decodePartial(ctx.byteGetter(coords), region, {
        ...options,
        chunkCache: cache,
        workers: ctx.workers(options) ?? false,
      }),
    );
    if (shard === undefined) return false;
    copyChunk(shard, codecs, target);
    return true;
  }
  const key = ctx.chunkKey(coords);
  const scope = ctx.store.inner;
  const tag = chunkCacheTag(ctx.parts);
  const entries = chunkEntries(cache);
  let found = entries.peek(scope, key, "", tag);
  if (found === undefined) {
    const pending = entries.begin(scope, key, "", tag);
    void loadChunk(ctx, key, pending, options);
    found = pending.promise;
  }
  const chunk = await untilAborted(Promise.resolve(found), options.signal, key);
  if (chunk === null) return false;
  copyChunk(chunk, codecs, target);
  return true;
}

/**
 * Reads and decodes the chunk at `key` for every reader waiting on `pending`:
 * without the first reader's signal (the others still need it). The stored
 * bytes are not handed back to the store (`release`): the decoded values may
 * be views of them until the cache has copied them.
 */
async function loadChunk(
  ctx: ArrayContext,
  key: string,
  pending: PendingChunk,
  options: GetOptions,
): Promise<void> {
  const shared: GetOptions = { ...options, signal: undefined };
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

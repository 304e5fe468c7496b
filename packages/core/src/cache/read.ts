/**
 * Reading one whole chunk of an array through a {@link ChunkCache} (the hook
 * of `readSelection`): the cached decoded chunk when there is one, otherwise
 * one load shared by concurrent readers, kept for the next reads. Sharded
 * arrays read through the shard codec's partial decode, which caches inner
 * chunks (see `decodeShardRegionCached`).
 *
 * This module is on the read path of every application; the cache's entries
 * and loads (load.ts) come behind `import()`, with the first read that passes
 * a `chunkCache`.
 *
 * @module
 */

import type { ArrayContext } from "../array/context.js";
import type { GetOptions } from "../array/types.js";
import { type ChunkTarget, copyChunk } from "../codecs/decode-to.js";
import type { ChunkRegion } from "../codecs/types.js";
import { loadPart } from "../util/load.js";
import type { ChunkCache } from "./chunk-cache.js";
import { chunkCacheTag } from "./tag.js";

let loads: Promise<typeof import("./load.js")> | undefined;

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
  loads ??= loadPart("chunk cache", () => import("./load.js")).catch((e: unknown) => {
    loads = undefined; // the next read tries again
    throw e;
  });
  const found = (await loads).cachedChunk(ctx, cache, key, chunkCacheTag(ctx.parts), options);
  const chunk = await found;
  if (chunk === null) return false;
  copyChunk(chunk, codecs, target);
  return true;
}

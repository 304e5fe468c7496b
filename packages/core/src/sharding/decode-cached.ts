/**
 * A region of a shard read through a {@link ChunkCache}: inner chunks the
 * cache holds (or another read is loading) are taken from it; the others are
 * read as `decodeShardRegion` reads them (the index, then nearby byte ranges
 * merged), decoded, and added. A region whose inner chunks are all cached
 * makes no store request.
 *
 * @module
 */

import {
  type ChunkEntries,
  chunkEntries,
  type PendingChunk,
  readerCopy,
  shareKey,
} from "../cache/entries.js";
import type { ByteGetter, ChunkRegion, ChunkSpec, CodecOptions, NDArray } from "../codecs/types.js";
import { untilAborted } from "../errors.js";
import {
  checkedSize,
  decodeInnerChunks,
  maxInnerSize,
  regionOutput,
  type ShardReader,
} from "./decode.js";

/** What identifies a shard's entries in a chunk cache. */
export interface ShardCacheKey {
  readonly cache: ChunkEntries;
  readonly scope: object;
  readonly key: string;
  readonly tag: string;
}

/** The cache key of the shard behind `input`, when `options` has a chunk cache and `input` names its value. */
export function shardCacheKey(
  input: ByteGetter,
  options: CodecOptions | undefined,
): ShardCacheKey | undefined {
  const cache = options?.chunkCache;
  const { cacheKey: key, cacheScope: scope } = input;
  if (cache === undefined || scope === undefined || typeof key !== "string") return undefined;
  const tag = input.cacheTag;
  return tag === undefined ? undefined : { cache: chunkEntries(cache), scope, key, tag };
}

/** Decodes `region` of the shard behind `input` through the chunk cache of `at`. */
export async function decodeShardRegionCached(
  r: ShardReader,
  input: ByteGetter,
  region: ChunkRegion,
  decoded: ChunkSpec,
  at: ShardCacheKey,
  options?: CodecOptions,
): Promise<NDArray> {
  const { layout } = r;
  const { dataType, lo, hi, shape, out, outStrides } = regionOutput(region, decoded);
  const place = (chunk: NDArray | null, coords: readonly number[]) => {
    if (chunk !== null) layout.place(readerCopy(chunk).data, coords, out, lo, hi, outStrides);
  };
  const waits: Promise<void>[] = [];
  const misses: { coords: number[]; pending: PendingChunk }[] = [];
  const signal = options?.signal;
  const share = shareKey(options ?? {});
  const wait = (found: Promise<NDArray | null>, coords: readonly number[]) =>
    waits.push(at.cache.wait(found, signal, at.key).then((chunk) => place(chunk, coords)));
  for (const coords of layout.overlapping(lo, hi)) {
    const sub = coords.join(",");
    const found = at.cache.peek(at.scope, at.key, sub, at.tag, share);
    if (found === undefined) {
      const pending = at.cache.begin(at.scope, at.key, sub, at.tag, share, signal !== undefined);
      misses.push({ coords, pending });
    } else if (found instanceof Promise) {
      wait(found, coords);
    } else {
      place(found, coords);
    }
  }
  if (misses.length > 0) {
    // Shared with concurrent readers of these inner chunks: ended only when every one of them is abandoned.
    const shared = { ...options, signal: whenAllAborted(misses.map((m) => m.pending.signal)) };
    const loading = loadInnerChunks(r, input, misses, shared);
    for (const { coords, pending } of misses) wait(pending.promise, coords);
    waits.push(loading);
  }
  await untilAborted(Promise.all(waits), options?.signal, at.key);
  return { data: out, shape, stride: outStrides, dataType };
}

/** Reads and decodes the inner chunks of `misses`, settling each one's pending load. */
async function loadInnerChunks(
  r: ShardReader,
  input: ByteGetter,
  misses: readonly { coords: number[]; pending: PendingChunk }[],
  options: CodecOptions,
): Promise<void> {
  const { layout } = r;
  try {
    const idx = await r.index.shared(input, options);
    const wanted: { coords: number[]; offset: number; size: number; pending: PendingChunk }[] = [];
    const maxInner = maxInnerSize(r, options);
    for (const { coords, pending } of misses) {
      const i = layout.linear(coords);
      if (idx === undefined || idx.offsets[i] < 0) pending.settle(null);
      else
        wanted.push({
          coords,
          offset: idx.offsets[i],
          size: checkedSize(r, idx, i, maxInner),
          pending,
        });
    }
    if (wanted.length === 0) return;
    await decodeInnerChunks(r, input, wanted, options, (chunk, w) => w.pending.settle(chunk));
  } catch (e) {
    // Loads not settled yet fail with the error (settled ones ignore it).
    for (const { pending } of misses) pending.fail(e);
  }
}

/** A signal that aborts once every one of `signals` has aborted (none when one of them is missing: that one never aborts). */
function whenAllAborted(signals: readonly (AbortSignal | undefined)[]): AbortSignal | undefined {
  if (signals.some((s) => s === undefined)) return undefined;
  const controller = new AbortController();
  let left = signals.length;
  for (const s of signals as readonly AbortSignal[]) {
    s.addEventListener(
      "abort",
      () => {
        if (--left === 0) controller.abort(s.reason);
      },
      { once: true },
    );
  }
  return controller.signal;
}

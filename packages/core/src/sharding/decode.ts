/**
 * Reading shards: a whole shard from its bytes, or a region of a shard
 * through ranged reads (the index once, then only the inner chunks the region
 * needs, nearby ranges merged into one read).
 *
 * @module
 */

import { resolveDecodeLimits } from "../codecs/limits.js";
import type { CodecPipeline } from "../codecs/pipeline.js";
import type { ByteGetter, ChunkRegion, ChunkSpec, CodecOptions, NDArray } from "../codecs/types.js";
import { throwIfAborted } from "../errors.js";
import { cStrides } from "../indexing/index.js";
import { product } from "../util/grid.js";
import { decodeShardRegionCached, shardCacheKey } from "./decode-cached.js";
import type { ShardLayout } from "./layout.js";
import type { ShardIndex, ShardIndexCodec } from "./shard-index.js";

/** Ranged reads closer than this many bytes are merged (default of `coalesce.gap`). */
const DEFAULT_GAP = 16 * 1024;
/** Merged reads stop growing at this size (default of `coalesce.maxSize`). */
const DEFAULT_MAX_READ = 8 * 1024 * 1024;

/** What a shard reader needs: the layout, the inner and index codecs, and where errors point. */
export interface ShardReader {
  readonly layout: ShardLayout;
  readonly inner: CodecPipeline;
  readonly index: ShardIndexCodec;
  readonly path: string;
  readonly format: 2 | 3;
}

/** The most bytes an inner chunk can have: no read is larger than its codecs can produce. */
export function maxInnerSize(r: ShardReader, options?: CodecOptions): number {
  return r.inner.maxEncodedSize(resolveDecodeLimits(options?.decodeLimits));
}

/** The size of inner chunk `i`, checked against `max` (from {@link maxInnerSize}). */
export function checkedSize(r: ShardReader, idx: ShardIndex, i: number, max: number): number {
  if (idx.sizes[i] > max) {
    throw r.index.fail(
      `index entry ${i} claims ${idx.sizes[i]} bytes, more than an inner chunk can take (${max})`,
    );
  }
  return idx.sizes[i];
}

/** Decodes a whole shard from its bytes. */
export async function decodeShard(
  r: ShardReader,
  bytes: Uint8Array,
  decoded: ChunkSpec,
  options?: CodecOptions,
): Promise<NDArray> {
  const { layout, index, inner } = r;
  if (bytes.length < index.size) {
    throw index.fail(`shard is ${bytes.length} bytes, shorter than its ${index.size}-byte index`);
  }
  const idx = await index.decode(index.slice(bytes), bytes.length);
  const dataType = decoded.dataType;
  const shape = decoded.shape;
  const out = dataType.allocate(product(shape));
  const outStrides = cStrides(shape);
  const zeros = new Array(layout.ndim).fill(0);
  const maxInner = maxInnerSize(r, options);
  let fill: ReturnType<typeof dataType.allocate> | undefined;
  for (const coords of layout.all()) {
    throwIfAborted(options?.signal, r.path);
    const i = layout.linear(coords);
    if (idx.offsets[i] < 0) {
      if (fill === undefined) {
        fill = dataType.allocate(layout.innerLength);
        dataType.fill(fill, decoded.fillValue, 0, layout.innerLength);
      }
      layout.place(fill, coords, out, zeros, shape, outStrides);
      continue;
    }
    const size = checkedSize(r, idx, i, maxInner);
    const chunk = await inner.decode(
      bytes.subarray(idx.offsets[i], idx.offsets[i] + size),
      options,
    );
    layout.place(chunk.data, coords, out, zeros, shape, outStrides);
  }
  return { data: out, shape, stride: outStrides, dataType };
}

/** Decodes `region` of the shard behind `input`; `undefined` when the shard is missing. */
export async function decodeShardRegion(
  r: ShardReader,
  input: ByteGetter,
  region: ChunkRegion,
  decoded: ChunkSpec,
  options?: CodecOptions,
): Promise<NDArray | undefined> {
  const at = shardCacheKey(input, options);
  if (at !== undefined) return decodeShardRegionCached(r, input, region, decoded, at, options);
  const { layout } = r;
  const idx = await r.index.shared(input, options);
  if (idx === undefined) return undefined;
  const { dataType, lo, hi, shape, out, outStrides } = regionOutput(region, decoded);
  const wanted: { coords: number[]; offset: number; size: number }[] = [];
  const maxInner = maxInnerSize(r, options);
  for (const coords of layout.overlapping(lo, hi)) {
    const i = layout.linear(coords);
    if (idx.offsets[i] < 0) continue;
    wanted.push({ coords, offset: idx.offsets[i], size: checkedSize(r, idx, i, maxInner) });
  }
  if (wanted.length === 0) return { data: out, shape, stride: outStrides, dataType };
  await decodeInnerChunks(r, input, wanted, options, (chunk, w) =>
    layout.place(chunk.data, w.coords, out, lo, hi, outStrides),
  );
  return { data: out, shape, stride: outStrides, dataType };
}

/**
 * The output of a region read: its bounds, shape and strides, and an array of
 * that shape filled with the fill value.
 */
export function regionOutput(region: ChunkRegion, decoded: ChunkSpec) {
  const dataType = decoded.dataType;
  const lo = region.map(([a]) => a);
  const hi = region.map(([, b]) => b);
  const shape = lo.map((l, d) => hi[d] - l);
  const out = dataType.allocate(product(shape));
  const outStrides = cStrides(shape);
  dataType.fill(out, decoded.fillValue, 0, product(shape));
  return { dataType, lo, hi, shape, out, outStrides };
}

/**
 * Reads the inner chunks `wanted` (nearby ranges merged, see {@link coalesce})
 * and decodes them side by side: in the pool's workers while they have room,
 * the rest here (see ChunkCodecWorkers.decode). `use` gets each decoded chunk;
 * resolves once every one has been used.
 */
export async function decodeInnerChunks<W extends Wanted>(
  r: ShardReader,
  input: ByteGetter,
  wanted: W[],
  options: CodecOptions | undefined,
  use: (chunk: NDArray, w: W) => void,
): Promise<void> {
  const groups = coalesce(wanted, options);
  const ranges = groups.map((g) => ({ offset: g.offset, length: g.end - g.offset }));
  const results = input.getMany
    ? await input.getMany(ranges, options)
    : await Promise.all(ranges.map((range) => input.get(range, options)));
  const pool = options?.workers || undefined;
  const innerContext = { format: r.format, path: r.path };
  const decodes: Promise<void>[] = [];
  for (let gi = 0; gi < groups.length; gi++) {
    const g = groups[gi];
    const bytes = results[gi];
    if (bytes === undefined || bytes.length !== g.end - g.offset) {
      throw r.index.fail(
        `inner chunk bytes [${g.offset}, ${g.end}) are past the end of the shard (truncated or changed while reading)`,
      );
    }
    for (const w of g.members) {
      throwIfAborted(options?.signal, r.path);
      const start = w.offset - g.offset;
      const part = bytes.subarray(start, start + w.size);
      const decoding =
        pool?.decode(r.inner, part, innerContext, options) ?? r.inner.decode(part, options);
      decodes.push(decoding.then((chunk) => use(chunk, w)));
    }
  }
  await Promise.all(decodes);
}

interface Wanted {
  coords: number[];
  offset: number;
  size: number;
}

/** Merges byte ranges closer than `coalesce.gap` into reads of at most `coalesce.maxSize`. */
export function coalesce<W extends Wanted>(
  wanted: readonly W[],
  options?: CodecOptions,
): { offset: number; end: number; members: W[] }[] {
  const gap = options?.coalesce?.gap ?? DEFAULT_GAP;
  const maxSize = options?.coalesce?.maxSize ?? DEFAULT_MAX_READ;
  const sorted = [...wanted].sort((a, b) => a.offset - b.offset);
  const groups: { offset: number; end: number; members: W[] }[] = [];
  for (const w of sorted) {
    const g = groups[groups.length - 1];
    const end = w.offset + w.size;
    if (g && w.offset - g.end <= gap && Math.max(g.end, end) - g.offset <= maxSize) {
      g.end = Math.max(g.end, end);
      g.members.push(w);
    } else {
      groups.push({ offset: w.offset, end, members: [w] });
    }
  }
  return groups;
}

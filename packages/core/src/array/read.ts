/**
 * The read path of a Zarr array: a selection is projected onto the chunks it
 * touches, and each chunk is read whole, read as a byte range (uncompressed
 * chunks), or partially decoded (shards), then copied into the output.
 *
 * @module
 */

import { readChunkCached } from "../cache/read.js";
import {
  type ChunkTarget,
  chunkByteSpan,
  copyChunk,
  DecodeBuffers,
  decodeChunkTo,
  scatterTargets,
} from "../codecs/decode-to.js";
import type { ChunkRegion, NDArray } from "../codecs/types.js";
import type { DataArray } from "../dtypes/types.js";
import { CodecError, ValueError } from "../errors.js";
import {
  type Axis,
  type ChunkProjection,
  copyStrided,
  cStrides,
  fillStrided,
  normalizeSelection,
  projectChunks,
  resolveAxes,
  type Selection,
} from "../indexing/index.js";
import { DEFAULT_CONCURRENCY, forEachConcurrent } from "../util/concurrency.js";
import { product } from "../util/grid.js";
import type { ArrayContext } from "./context.js";
import type { GetOptions, ReadOptions } from "./types.js";

/**
 * Decode buffers shared by every read of this thread: a read of a few chunks
 * (a viewer's region) reuses the last reads' memory instead of faulting in a
 * fresh chunk-sized buffer each time.
 */
const readBuffers = new DecodeBuffers();

/** Reads `selection` (see `ZarrArray.get`). */
export async function readSelection(
  ctx: ArrayContext,
  selection: Selection | undefined,
  options: ReadOptions,
): Promise<NDArray> {
  const sel = normalizeSelection(selection, ctx.shape, ctx.path);
  const dataType = ctx.parts.dataType;
  const width = dataType.width;
  const outShape = sel.shape;
  const outStrides = cStrides(outShape);
  const codecs = ctx.parts.codecs;
  const { fill, zeroFill, context } = ctx.derived();
  const pool = ctx.workers(options);
  const length = product(outShape);
  const out =
    options.out !== undefined ? checkOut(ctx, options.out, length) : dataType.allocate(length);
  // A fresh array is already all zero bits; a caller's array holds anything.
  const fillMissing = !zeroFill || options.out !== undefined;
  const chunkRead = ctx.bounded(options);
  // Range reads need the stored size to check (a stat or HEAD beside the read).
  const rangeReads = codecs.supportsRangeRead && typeof ctx.store.inner.getSize === "function";
  await forEachConcurrent(
    projectChunks(sel, ctx.shape, ctx.chunkShape),
    options.concurrency ?? DEFAULT_CONCURRENCY,
    (p: ChunkProjection) =>
      ctx.keyed(p.chunkCoords, async () => {
        const target: ChunkTarget = {
          out,
          chunkSel: p.chunkSel,
          outAxes: p.outAxes,
          outStrides,
        };
        if (!p.complete && codecs.supportsPartialDecode) {
          // Read only the part of the chunk the selection needs (e.g. inner chunks of a shard).
          const region = boundingRegion(p.chunkSel);
          const chunk = await ctx.budgeted(options, () =>
            codecs.decodePartial(ctx.byteGetter(p.chunkCoords), region, {
              ...options,
              workers: pool ?? false,
            }),
          );
          if (chunk !== undefined) {
            copyChunk(chunk, codecs, {
              ...target,
              chunkSel: shiftSelection(p.chunkSel, region),
            });
          } else if (fillMissing) {
            fillStrided(out, 0, p.outAxes, outStrides, fill, width);
          }
          return;
        }
        const cache = options.chunkCache;
        if (cache !== undefined) {
          // Decoded chunks kept across reads (see cache/read.ts).
          const stored = await readChunkCached(ctx, cache, p.chunkCoords, target, options);
          if (!stored && fillMissing) fillStrided(out, 0, p.outAxes, outStrides, fill, width);
          return;
        }
        const key = ctx.chunkKey(p.chunkCoords);
        // Uncompressed chunks: a small selection reads only the bytes it needs.
        const span = rangeReads ? chunkByteSpan(codecs, p.chunkSel) : undefined;
        if (span !== undefined) {
          const found = await readSpan(ctx, key, span, target, options);
          if (found === "missing") {
            if (fillMissing) fillStrided(out, 0, p.outAxes, outStrides, fill, width);
            return;
          }
          if (found === "read") return;
          // Changed while it was read: read it whole, below.
        }
        // Chunks stored as their memory are read straight into the output.
        const views = p.complete ? scatterTargets(codecs, target) : undefined;
        if (views !== undefined) {
          const size = await ctx.store.getInto(key, views, chunkRead);
          if (size === undefined) {
            if (fillMissing) fillStrided(out, 0, p.outAxes, outStrides, fill, width);
          } else if (size !== codecs.encodedSize) {
            throw wrongSize(key, size, codecs.encodedSize!);
          }
          return;
        }
        const bytes = await ctx.store.get(key, undefined, chunkRead);
        if (bytes === undefined) {
          if (fillMissing) fillStrided(out, 0, p.outAxes, outStrides, fill, width);
          return;
        }
        try {
          await ctx.budgeted(options, async () => {
            // A small part of a chunk decodes here in a block or two (see chunkByteSpan).
            const small = chunkByteSpan(codecs, p.chunkSel) !== undefined;
            // A pool may decode the chunk into its place in the output...
            const placed = small
              ? undefined
              : pool?.decodeTo?.(codecs, bytes, context, target, options);
            if (placed !== undefined) return await placed;
            // ...or hand back the decoded chunk.
            const offloaded = small ? undefined : ctx.offload(bytes, options);
            if (offloaded !== undefined) copyChunk(await offloaded, codecs, target);
            else await decodeChunkTo(codecs, bytes, target, readBuffers, options);
          });
        } finally {
          // Every use of the bytes above has settled: the store may reuse their memory.
          ctx.store.release(bytes);
        }
      }),
    options.signal,
  );
  return { data: out, shape: outShape, stride: outStrides, dataType };
}

/**
 * Reads bytes [start, end) of an uncompressed chunk (see
 * `CodecPipeline.supportsRangeRead`) and copies the selected elements, which
 * all lie there, into the output. The stored size is read beside the range
 * (one `getSize`: a stat, or a HEAD request) and must be exactly the chunk's
 * encoded size, as a whole-chunk read requires: a truncated, extended or
 * stale chunk is a `CodecError` whatever the selection. `"missing"` when the
 * chunk is not stored; `"changed"` when it was written or erased between the
 * two requests (the caller then reads it whole).
 */
async function readSpan(
  ctx: ArrayContext,
  key: string,
  [start, end]: readonly [number, number],
  target: ChunkTarget,
  options: GetOptions,
): Promise<"read" | "missing" | "changed"> {
  const codecs = ctx.parts.codecs;
  const expected = codecs.encodedSize!;
  const [part, size] = await Promise.all([
    ctx.store.get(key, { offset: start, length: end - start }, options),
    ctx.store.getSize(key, options),
  ]);
  if (part === undefined) return size === undefined ? "missing" : "changed";
  try {
    if (size === undefined) return "changed";
    if (size !== expected) throw wrongSize(key, size, expected);
    if (part.length !== end - start) return "changed";
    // The span's elements, decoded by the bytes codec as a 1-d run, then
    // copied from their chunk positions shifted by the span's first element.
    const { dataType, fillValue, shape } = codecs.spec;
    const itemBytes = expected / ctx.derived().chunkLength;
    const first = start / itemBytes;
    const run = await codecs.arrayToBytes.decode(
      part,
      { shape: [(end - start) / itemBytes], dataType, fillValue },
      options,
    );
    const src = resolveAxes(target.chunkSel, cStrides(shape));
    copyStrided(
      run.data,
      src.offset - first,
      src.axes,
      src.strides,
      target.out,
      0,
      target.outAxes,
      target.outStrides,
      dataType.width,
    );
  } finally {
    ctx.store.release(part);
  }
  return "read";
}

/** An uncompressed chunk whose stored size is not its shape times the item size. */
function wrongSize(key: string, size: number, expected: number): CodecError {
  return new CodecError(
    `chunk "${key}" is ${size} bytes, expected ${expected} (its shape times the item size)`,
    { path: key },
  );
}

/** A caller's output array, checked to fit a read of `length` elements. */
function checkOut(ctx: ArrayContext, out: DataArray, length: number): DataArray {
  const like = ctx.parts.dataType.allocate(0);
  const sameKind = ArrayBuffer.isView(like)
    ? ArrayBuffer.isView(out) && out.constructor === like.constructor
    : Array.isArray(out);
  if (!sameKind || out.length !== length * ctx.parts.dataType.width) {
    throw new ValueError(
      `${ctx.path || "/"}: option "out" must be a ${like.constructor.name} of ${length * ctx.parts.dataType.width} slots for this selection, got ${out?.constructor?.name ?? typeof out}${out?.length === undefined ? "" : ` of ${out.length}`}`,
      { path: ctx.path },
    );
  }
  return out;
}

/** The smallest box (per dimension [start, stop)) holding every selected element of a chunk. */
function boundingRegion(sel: readonly (number | Axis)[]): ChunkRegion {
  return sel.map((s): readonly [number, number] => {
    if (typeof s === "number") return [s, s + 1];
    if ("indices" in s) {
      let lo = Number.POSITIVE_INFINITY;
      let hi = Number.NEGATIVE_INFINITY;
      for (const i of s.indices) {
        if (i < lo) lo = i;
        if (i > hi) hi = i;
      }
      return [lo, hi + 1];
    }
    const last = s.start + (s.count - 1) * s.step;
    return s.step > 0 ? [s.start, last + 1] : [last, s.start + 1];
  });
}

/** Re-bases a chunk selection onto a region starting at `region[d][0]`. */
function shiftSelection(sel: readonly (number | Axis)[], region: ChunkRegion): (number | Axis)[] {
  return sel.map((s, d) => {
    const lo = region[d][0];
    if (typeof s === "number") return s - lo;
    if ("indices" in s) return { indices: s.indices.map((i) => i - lo) };
    return { start: s.start - lo, step: s.step, count: s.count };
  });
}

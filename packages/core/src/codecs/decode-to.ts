/**
 * Decoding one stored chunk straight into its place in a read's output: into
 * the output itself when the chunk is one contiguous run of it, otherwise into
 * a reused buffer and then copied. `ZarrArray.get` and worker pools (which
 * decode into a shared output) run the same function, so results cannot differ.
 *
 * @module
 */

import type { DataArray } from "../dtypes/types.js";
import { copyStrided, cStrides, resolveAxes } from "../indexing/strided.js";
import type { Axis } from "../indexing/types.js";
import { adviseHugePages } from "../memory/huge-pages.js";
import type { CodecPipeline } from "./pipeline.js";
import type { CodecOptions, NDArray } from "./types.js";

/** Where the selected part of one decoded chunk goes. */
export interface ChunkTarget {
  /** The whole output (C order; a typed array, or a JS array for variable-size types). */
  readonly out: DataArray;
  /** Per chunk dimension: the chunk-local index or axis that is read. */
  readonly chunkSel: readonly (number | Axis)[];
  /** Per output dimension: the positions written. */
  readonly outAxes: readonly Axis[];
  /** C-order strides of the output, in elements. */
  readonly outStrides: readonly number[];
}

/** Free memory a {@link DecodeBuffers} keeps by default. */
const DEFAULT_FREE_DECODE_BYTES = 32 * 1024 * 1024;

/**
 * Reusable decode buffers, by byte size, shared by the readers of one thread
 * (reads, a worker): buffers come back after each chunk, so at most one per
 * chunk in flight exists, and at most `maxFreeBytes` are kept between uses
 * (default 32 MiB; a buffer given back past that is left to the garbage
 * collector).
 *
 * @example
 * ```ts
 * import { DecodeBuffers } from "@zarr/core/codec";
 * const buffers = new DecodeBuffers(8 * 1024 * 1024);
 * const b = buffers.take(1 << 20); // reused when one of this size was given back
 * buffers.give(b);
 * ```
 */
export class DecodeBuffers {
  readonly #free = new Map<number, Uint8Array[]>();
  #freeBytes = 0;

  constructor(readonly maxFreeBytes = DEFAULT_FREE_DECODE_BYTES) {}

  /** A buffer of `size` bytes (contents undefined) to hand back with {@link give}. */
  take(size: number): Uint8Array {
    const reused = this.#free.get(size)?.pop();
    if (reused === undefined) {
      const fresh = new Uint8Array(size);
      adviseHugePages(fresh.buffer); // chunks of 4 MiB or more
      return fresh;
    }
    this.#freeBytes -= size;
    return reused;
  }

  give(buffer: Uint8Array): void {
    if (this.#freeBytes + buffer.length > this.maxFreeBytes) return;
    const list = this.#free.get(buffer.length);
    if (list) list.push(buffer);
    else this.#free.set(buffer.length, [buffer]);
    this.#freeBytes += buffer.length;
  }
}

/**
 * Decodes stored chunk `bytes` with `pipeline` and writes the selected
 * elements into `target.out`. When the selection needs at most half of the
 * chunk's bytes and the codecs decode byte ranges, decodes only those (see
 * {@link chunkByteSpan}); decodes in place when the chunk's bytes are exactly
 * one contiguous run of the output; otherwise decodes into a buffer of
 * `buffers` (when the codecs can decode into memory) or a fresh chunk, and
 * copies the selection.
 */
export async function decodeChunkTo(
  pipeline: CodecPipeline,
  bytes: Uint8Array,
  target: ChunkTarget,
  buffers: DecodeBuffers,
  options?: CodecOptions,
): Promise<void> {
  const size = pipeline.decodeIntoSize;
  if (size === undefined) {
    copyChunk(await pipeline.decode(bytes, options), pipeline, target);
    return;
  }
  const span = chunkByteSpan(pipeline, target.chunkSel);
  if (span !== undefined) {
    // A small part of the chunk: decode only the blocks that hold it.
    const buffer = buffers.take(size);
    try {
      // Defined contents around the range when the array codecs see every
      // byte (a bool check, a byte swap); a view of the bytes reads none of them.
      if (!pipeline.decodesAsMemory) {
        buffer.fill(0, 0, span[0]);
        buffer.fill(0, span[1]);
      }
      const chunk = await pipeline.decodeRangeInto(bytes, buffer, span[0], span[1], options);
      copyChunk(chunk, pipeline, target);
    } finally {
      buffers.give(buffer);
    }
    return;
  }
  const direct = inPlaceTarget(pipeline, size, target);
  if (direct !== undefined) {
    let chunk = await pipeline.decodeInto(bytes, direct, options);
    if (isViewOf(chunk.data, direct)) return; // decoded in place
    // Copying out of the output's own memory could overlap: detach it first.
    if (sharesBuffer(chunk.data, target.out)) chunk = { ...chunk, data: chunk.data.slice() };
    copyChunk(chunk, pipeline, target);
    return;
  }
  const buffer = buffers.take(size);
  try {
    copyChunk(await pipeline.decodeInto(bytes, buffer, options), pipeline, target);
  } finally {
    buffers.give(buffer);
  }
}

/**
 * The bytes [start, end) of the chunk (decoded by the innermost bytes ->
 * bytes codec, or as stored when there is none) that hold every selected
 * element, when the pipeline can decode or read byte ranges
 * (`supportsRangeDecode`, `supportsRangeRead`) and they are at most half of
 * the chunk (below that, decoding or reading only them pays); otherwise `undefined`.
 */
export function chunkByteSpan(
  pipeline: CodecPipeline,
  chunkSel: readonly (number | Axis)[],
): readonly [number, number] | undefined {
  const size = pipeline.supportsRangeDecode
    ? pipeline.decodeIntoSize!
    : pipeline.supportsRangeRead
      ? pipeline.encodedSize!
      : undefined;
  if (size === undefined) return undefined;
  const shape = pipeline.spec.shape;
  let elements = 1;
  for (const s of shape) elements *= s;
  let lo = 0;
  let hi = 0;
  let stride = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    const s = chunkSel[d];
    let first: number;
    let last: number;
    if (typeof s === "number") {
      first = s;
      last = s;
    } else if ("indices" in s) {
      first = Number.POSITIVE_INFINITY;
      last = Number.NEGATIVE_INFINITY;
      for (const i of s.indices) {
        if (i < first) first = i;
        if (i > last) last = i;
      }
    } else {
      first = s.start;
      last = s.start + (s.count - 1) * s.step;
    }
    lo += Math.min(first, last) * stride;
    hi += Math.max(first, last) * stride;
    stride *= shape[d];
  }
  if (!(hi >= lo)) return undefined; // nothing selected
  const itemBytes = size / elements;
  const start = lo * itemBytes;
  const end = (hi + 1) * itemBytes;
  return end - start <= size / 2 ? [start, end] : undefined;
}

/** Copies the selected part of a decoded chunk into the output. */
export function copyChunk(chunk: NDArray, pipeline: CodecPipeline, target: ChunkTarget): void {
  const src = resolveAxes(
    target.chunkSel,
    chunk.stride.length ? chunk.stride : cStrides(pipeline.spec.shape),
  );
  copyStrided(
    chunk.data,
    src.offset,
    src.axes,
    src.strides,
    target.out,
    0,
    target.outAxes,
    target.outStrides,
    pipeline.spec.dataType.width,
  );
}

/**
 * The bytes of the output a whole chunk maps onto, when they are one
 * contiguous run in the chunk's own C order (e.g. chunks spanning whole rows)
 * and laid out like the decoded bytes: the chunk can decode straight into it.
 */
function inPlaceTarget(
  pipeline: CodecPipeline,
  size: number,
  target: ChunkTarget,
): Uint8Array | undefined {
  if (pipeline.arrayToArray.length !== 0) return undefined;
  return outputRuns(pipeline, size, target, 1)?.[0];
}

/**
 * Below this many bytes per run, a store's per-view cost outweighs copying the
 * chunk (such short runs copy as 4-byte words, see indexing/strided.ts). 1,024
 * chunks of 64×64 float32 (256-byte rows) read in 80–100 ms on Node 24 with
 * scatter reads, 97–128 ms copied; 64- and 32-byte rows read faster copied.
 */
const MIN_SCATTER_RUN_BYTES = 256;

/**
 * Where a whole stored chunk goes in the output, as views of the output's
 * memory in the chunk's C order (one per run of consecutive elements, e.g.
 * one per row of a 2-d chunk inside a wider output), when the chunk is stored
 * as its memory (`CodecPipeline.storedAsMemory`) and is selected whole and in
 * order: a store can then read the chunk straight into the output
 * (`ReadableStore.getInto`). `undefined` otherwise, or when the runs are too
 * short to pay.
 */
export function scatterTargets(
  pipeline: CodecPipeline,
  target: ChunkTarget,
): Uint8Array[] | undefined {
  if (!pipeline.storedAsMemory) return undefined;
  const size = pipeline.encodedSize!;
  if (size === 0) return undefined;
  return outputRuns(pipeline, size, target, Math.max(1, size / MIN_SCATTER_RUN_BYTES));
}

/**
 * The mirror of {@link scatterTargets} for writes: where a whole chunk's stored
 * bytes lie in `source` (a typed array laid out like the decoded chunk; its
 * selection described as a {@link ChunkTarget}), as views of the source's
 * memory in the chunk's C order, when the chunk is stored as its memory and is
 * written whole and in order. A store can then write the chunk from the
 * caller's array (`WritableStore.setFrom`). `undefined` otherwise, or when the
 * runs are too short to pay.
 */
export function gatherSources(
  pipeline: CodecPipeline,
  source: ChunkTarget,
): Uint8Array[] | undefined {
  return scatterTargets(pipeline, source);
}

/**
 * The output memory a whole decoded chunk of `size` bytes fills, as views in
 * the chunk's C order, one per run of consecutive output positions; `undefined`
 * unless the whole chunk is selected in order into a typed array laid out like
 * the decoded bytes, in at most `maxRuns` runs.
 */
function outputRuns(
  pipeline: CodecPipeline,
  size: number,
  target: ChunkTarget,
  maxRuns: number,
): Uint8Array[] | undefined {
  const { out, chunkSel, outAxes, outStrides } = target;
  const { shape, dataType } = pipeline.spec;
  if (!ArrayBuffer.isView(out)) return undefined;
  let chunkLength = 1;
  for (const s of shape) chunkLength *= s;
  const elementBytes = dataType.width * out.BYTES_PER_ELEMENT;
  if (size !== chunkLength * elementBytes) return undefined;
  for (let d = 0; d < shape.length; d++) {
    const s = chunkSel[d];
    if (typeof s === "number") {
      if (shape[d] !== 1) return undefined;
    } else if ("indices" in s || s.start !== 0 || s.step !== 1 || s.count !== shape[d]) {
      return undefined;
    }
  }
  let offset = 0;
  for (let k = 0; k < outAxes.length; k++) {
    const a = outAxes[k];
    if ("indices" in a || a.step !== 1) return undefined;
    offset += a.start * outStrides[k];
  }
  // The innermost output dimensions whose positions are consecutive make one run.
  const count = (k: number) => (outAxes[k] as { count: number }).count;
  let inner = outAxes.length;
  let run = 1;
  while (inner > 0 && (outStrides[inner - 1] === run || count(inner - 1) === 1)) {
    inner--;
    run *= count(inner);
  }
  if (run === 0 || chunkLength / run > maxRuns) return undefined;
  const runBytes = run * elementBytes;
  const base = out.byteOffset + offset * elementBytes;
  const views: Uint8Array[] = [];
  // Odometer over the outer dimensions, in C order.
  const index = new Array<number>(inner).fill(0);
  let at = 0;
  for (;;) {
    views.push(new Uint8Array(out.buffer, base + at * elementBytes, runBytes));
    let k = inner - 1;
    for (; k >= 0; k--) {
      at += outStrides[k];
      if (++index[k] < count(k)) break;
      at -= index[k] * outStrides[k];
      index[k] = 0;
    }
    if (k < 0) return views;
  }
}

/** `data` is exactly the memory of `bytes` (same buffer, offset and length). */
function isViewOf(data: DataArray, bytes: Uint8Array): boolean {
  return (
    ArrayBuffer.isView(data) &&
    data.buffer === bytes.buffer &&
    data.byteOffset === bytes.byteOffset &&
    data.byteLength === bytes.byteLength
  );
}

/** `data` lives in the same memory as `out`. */
function sharesBuffer(data: DataArray, out: DataArray): boolean {
  return ArrayBuffer.isView(data) && ArrayBuffer.isView(out) && data.buffer === out.buffer;
}

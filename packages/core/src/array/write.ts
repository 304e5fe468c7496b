/**
 * The write path of a Zarr array: whole chunks, selections (read-modify-write
 * of partially covered chunks, fill-value chunks erased), and metadata.
 * Loaded the first time an array is written.
 *
 * @module
 */

import { gatherSources } from "../codecs/decode-to.js";
import type { NDArray } from "../codecs/types.js";
import type { DataArray } from "../dtypes/types.js";
import { IndexError, throwIfAborted, ValueError } from "../errors.js";
import { childKey } from "../hierarchy/paths.js";
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
import {
  type ArrayMetadataV3,
  encodeMetadata,
  serializeArrayMetadataV3,
} from "../metadata/index.js";
import { DEFAULT_CONCURRENCY, forEachConcurrent, withKeyLock } from "../util/concurrency.js";
import { product } from "../util/grid.js";
import type { ArrayContext } from "./context.js";
import type { ArrayValue, SetOptions } from "./types.js";

function isNDArrayLike(
  v: unknown,
): v is { data: DataArray; shape: readonly number[]; stride?: readonly number[] } {
  return typeof v === "object" && v !== null && "data" in v && "shape" in v;
}

function isDataArray(v: unknown): v is DataArray {
  return ArrayBuffer.isView(v) ? !(v instanceof DataView) : Array.isArray(v);
}

/** Encodes and stores one whole chunk (see `ZarrArray.setChunk`). */
export async function writeChunkAt(
  ctx: ArrayContext,
  coords: readonly number[],
  chunk: Pick<NDArray, "data">,
  options: SetOptions = {},
): Promise<void> {
  ctx.checkCoords(coords);
  const spec = ctx.chunkSpec;
  const n = product(spec.shape);
  if (chunk.data.length !== n * ctx.parts.dataType.width) {
    throw new ValueError(
      `${ctx.where}: chunk data has ${chunk.data.length} slots, expected ${n * ctx.parts.dataType.width}`,
      { path: ctx.path },
    );
  }
  await storeChunk(ctx, ctx.chunkKey(coords), chunk.data, options, false);
}

/**
 * Encodes and stores one chunk (or erases it when it equals the fill value).
 * `owned`: `data` was allocated for this call, so a worker pool may take its buffer.
 */
export async function storeChunk(
  ctx: ArrayContext,
  key: string,
  data: DataArray,
  options: SetOptions,
  owned: boolean,
): Promise<void> {
  await replacingShard(ctx, key, options, () => writeChunk(ctx, key, data, options, owned));
}

/**
 * Runs `write` of the value of `key`. A cached index of this shard is no longer
 * to be trusted: it is dropped before and after, so that a read running
 * meanwhile cannot leave the old one behind.
 */
async function replacingShard(
  ctx: ArrayContext,
  key: string,
  options: SetOptions,
  write: () => Promise<void>,
): Promise<void> {
  const cache = options.shardIndexCache;
  cache?.delete(ctx.store.inner, key);
  try {
    await write();
  } finally {
    cache?.delete(ctx.store.inner, key);
  }
}

/**
 * Stores one whole chunk straight from the caller's array: `runs` are views of
 * `source` (a typed array) holding the chunk's stored bytes in order (see
 * `gatherSources`), written by the store without a chunk buffer in between
 * (`WritableStore.setFrom`). Erased instead when it equals the fill value.
 */
async function storeChunkFrom(
  ctx: ArrayContext,
  key: string,
  runs: readonly Uint8Array[],
  source: ArrayBufferView,
  options: SetOptions,
): Promise<void> {
  const { dataType, fillValue, keepFillChunks } = ctx.derived().parts;
  const View = source.constructor as new (b: ArrayBufferLike, at: number, n: number) => DataArray;
  const slotBytes = (source as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
  const isFill = (run: Uint8Array) => {
    const slots = run.byteLength / slotBytes;
    return dataType.isFill(
      new View(run.buffer, run.byteOffset, slots),
      fillValue,
      0,
      slots / dataType.width,
    );
  };
  await replacingShard(ctx, key, options, async () => {
    if (!options.writeEmptyChunks && !keepFillChunks && runs.every(isFill)) {
      await ctx.store.erase(key, options);
    } else {
      await ctx.store.setFrom(key, runs, options);
    }
  });
}

/** Encodes and stores one chunk, or erases it when it equals the fill value. */
async function writeChunk(
  ctx: ArrayContext,
  key: string,
  data: DataArray,
  options: SetOptions,
  owned: boolean,
): Promise<void> {
  const d = ctx.derived();
  const { codecs, dataType, fillValue } = d.parts;
  if (
    !options.writeEmptyChunks &&
    !d.parts.keepFillChunks &&
    dataType.isFill(data, fillValue, 0, d.chunkLength)
  ) {
    await ctx.store.erase(key, options);
    return;
  }
  const chunk: NDArray = { data, shape: d.chunkShape, stride: d.chunkStrides, dataType };
  const offloaded = ctx.workers(options)?.encode(codecs, chunk, d.context, {
    ...options,
    transfer: owned,
  });
  const bytes = await (offloaded ?? codecs.encode(chunk, options));
  await ctx.store.set(key, bytes, options);
}

/** Writes `value` into `selection` (see `ZarrArray.set`). */
export async function writeSelection(
  ctx: ArrayContext,
  selection: Selection,
  value: ArrayValue,
  options: SetOptions,
): Promise<void> {
  const sel = normalizeSelection(selection, ctx.shape, ctx.path);
  const dataType = ctx.parts.dataType;
  const width = dataType.width;
  const source = valueSource(ctx, value, sel.shape);
  const { chunkLength: chunkLen, chunkStrides, chunkShape, zeroFill } = ctx.derived();
  // Chunk buffers written out by a store that keeps no reference to them serve
  // the next chunks (no fresh memory, and its page faults, per chunk).
  const spare: DataArray[] | undefined =
    ctx.store.copiesOnSet && ArrayBuffer.isView(dataType.allocate(0)) ? [] : undefined;
  // Whole chunks stored as their memory go from the value's memory to a store
  // that writes views (a file's rows from their places): no chunk buffer, no copy.
  const codecs = ctx.derived().parts.codecs;
  const gathers =
    source.kind === "array" &&
    source.offset === 0 &&
    ArrayBuffer.isView(source.data) &&
    ctx.store.gathersOnSet &&
    codecs.storedAsMemory
      ? source
      : undefined;
  await forEachConcurrent(
    projectChunks(sel, ctx.shape, ctx.chunkShape),
    options.concurrency ?? DEFAULT_CONCURRENCY,
    async (p: ChunkProjection) => {
      const key = ctx.chunkKey(p.chunkCoords);
      await withKeyLock(ctx.store, key, () =>
        ctx.keyed(key, async () => {
          throwIfAborted(options.signal, key);
          const runs =
            gathers && p.complete
              ? gatherSources(codecs, {
                  out: gathers.data,
                  chunkSel: p.chunkSel,
                  outAxes: p.outAxes,
                  outStrides: gathers.strides,
                })
              : undefined;
          if (runs !== undefined && gathers !== undefined) {
            await storeChunkFrom(ctx, key, runs, gathers.data as ArrayBufferView, options);
            return;
          }
          let data: DataArray;
          const existing = p.complete ? undefined : await ctx.readChunk(p.chunkCoords, options);
          const reused = existing ? undefined : spare?.pop();
          if (existing) {
            data = existing.data;
          } else if (reused !== undefined) {
            data = reused;
            // Old contents: refill what the selection does not overwrite.
            if (!coversChunk(p.chunkSel, chunkShape)) {
              dataType.fill(data, ctx.parts.fillValue, 0, chunkLen);
            }
          } else {
            data = dataType.allocate(chunkLen);
            // A fresh typed array already holds an all-zero-bits fill value.
            if (!zeroFill) dataType.fill(data, ctx.parts.fillValue, 0, chunkLen);
          }
          const dst = resolveAxes(p.chunkSel, chunkStrides);
          if (source.kind === "scalar") {
            fillStrided(data, dst.offset, dst.axes, dst.strides, source.slots, width);
          } else {
            copyStrided(
              source.data,
              source.offset,
              p.outAxes,
              source.strides,
              data,
              dst.offset,
              dst.axes,
              dst.strides,
              width,
            );
          }
          await storeChunk(ctx, key, data, options, existing === undefined);
          // Reusable unless a worker pool took (detached) it.
          if (spare !== undefined && !existing && (data as ArrayBufferView).byteLength > 0) {
            spare.push(data);
          }
        }),
      );
    },
    options.signal,
  );
}

/**
 * A value's strides (in elements) must be integers that keep every element of
 * its shape inside its data: both the buffered copy and the gather write (views
 * of the value's memory, see `gatherSources`) rely on it.
 */
function checkValueStrides(
  ctx: ArrayContext,
  data: DataArray,
  shape: readonly number[],
  strides: readonly number[],
  width: number,
): void {
  const listed = Array.isArray(strides) ? strides.join(", ") : String(strides);
  const where = `${ctx.where}: value strides [${listed}]`;
  if (
    !Array.isArray(strides) ||
    strides.length !== shape.length ||
    !strides.every((s) => Number.isSafeInteger(s))
  ) {
    throw new IndexError(`${where} must be ${shape.length} integers`, { path: ctx.path });
  }
  let lo = 0;
  let hi = 0;
  for (let d = 0; d < shape.length; d++) {
    const reach = (shape[d] - 1) * strides[d];
    if (reach < 0) lo += reach;
    else hi += reach;
  }
  if (lo < 0 || !Number.isSafeInteger(hi) || (hi + 1) * width > data.length) {
    throw new IndexError(
      `${where} reach element ${lo < 0 ? lo : hi} of shape [${shape.join(", ")}], outside its data of ${Math.floor(data.length / width)} elements`,
      { path: ctx.path },
    );
  }
}

/** The value to write: one scalar broadcast, or an array laid out like the selection. */
export function valueSource(
  ctx: ArrayContext,
  value: ArrayValue,
  shape: readonly number[],
):
  | { kind: "scalar"; slots: DataArray }
  | { kind: "array"; data: DataArray; offset: number; strides: readonly number[] } {
  const dataType = ctx.parts.dataType;
  const n = product(shape);
  if (isNDArrayLike(value)) {
    const vshape = value.shape;
    if (vshape.length !== shape.length || vshape.some((s, i) => s !== shape[i])) {
      throw new ValueError(
        `${ctx.where}: value of shape [${vshape.join(", ")}] does not match the selection shape [${shape.join(", ")}]`,
        { path: ctx.path },
      );
    }
    checkDataKind(ctx, value.data, n);
    const strides = value.stride ?? cStrides(shape);
    if (n > 0) checkValueStrides(ctx, value.data, shape, strides, dataType.width);
    return { kind: "array", data: value.data, offset: 0, strides };
  }
  const isRawScalar =
    dataType.kind === "raw" && value instanceof Uint8Array && value.length === dataType.width;
  const isBytesScalar = dataType.kind === "bytes" && value instanceof Uint8Array;
  // Complex data is a typed array; a plain [re, im] pair is one value.
  const isComplexScalar = dataType.kind === "complex" && Array.isArray(value) && value.length === 2;
  if (isDataArray(value) && !isRawScalar && !isBytesScalar && !isComplexScalar) {
    checkDataKind(ctx, value, n);
    return { kind: "array", data: value, offset: 0, strides: cStrides(shape) };
  }
  const fill = dataType.fromScalar(value, ctx.path);
  const slots = dataType.allocate(1);
  dataType.fill(slots, fill, 0, 1);
  return { kind: "scalar", slots };
}

function checkDataKind(ctx: ArrayContext, data: DataArray, n: number): void {
  const expected = ctx.parts.dataType.allocate(0);
  if (data.constructor !== expected.constructor) {
    throw new ValueError(
      `${ctx.where}: value is a ${data.constructor.name}, expected a ${expected.constructor.name} for ${ctx.parts.dataType.name}`,
      { path: ctx.path },
    );
  }
  if (data.length < n * ctx.parts.dataType.width) {
    throw new ValueError(
      `${ctx.where}: value has ${data.length} slots, the selection needs ${n * ctx.parts.dataType.width}`,
      { path: ctx.path },
    );
  }
}

/** Writes `meta` as the array's metadata and rebuilds the parts from it. */
export async function writeArrayMetadata(ctx: ArrayContext, meta: ArrayMetadataV3): Promise<void> {
  // Callers hold the metadata lock (see changeArrayMetadata): `meta` is based on the current parts.
  if (ctx.parts.writeMetadata) {
    await ctx.parts.writeMetadata(ctx.store, ctx.path, meta);
  } else {
    await ctx.store.set(
      childKey(ctx.path, "zarr.json"),
      encodeMetadata(serializeArrayMetadataV3(meta)),
    );
  }
  ctx.parts = await ctx.parts.rebuild(meta);
}

/**
 * Runs `fn` holding the lock of the array's metadata document (per store
 * resource, like chunk writes): metadata changes of one array never interleave,
 * so none starts from a document another is replacing.
 */
export function withMetadataLock<T>(ctx: ArrayContext, fn: () => Promise<T>): Promise<T> {
  return withKeyLock(ctx.store, childKey(ctx.path, "zarr.json"), fn);
}

/**
 * Changes the metadata under the metadata lock: `update` receives the current
 * document (after any change that was running), and its result is written.
 */
export function changeArrayMetadata(
  ctx: ArrayContext,
  update: (meta: ArrayMetadataV3) => ArrayMetadataV3,
  signal?: AbortSignal,
): Promise<void> {
  return withMetadataLock(ctx, async () => {
    throwIfAborted(signal, ctx.path);
    await writeArrayMetadata(ctx, update(ctx.parts.meta));
  });
}

/** The selection writes every element of a chunk of `shape` (padding included). */
function coversChunk(sel: readonly (number | Axis)[], shape: readonly number[]): boolean {
  for (let d = 0; d < shape.length; d++) {
    const s = sel[d];
    if (typeof s === "number") {
      if (shape[d] !== 1) return false;
    } else if ("indices" in s) {
      return false; // index arrays may repeat positions and miss others
    } else if (s.count !== shape[d]) {
      return false; // a slice of count == extent covers it whatever its direction
    }
  }
  return true;
}

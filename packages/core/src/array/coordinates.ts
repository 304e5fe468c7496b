/**
 * Coordinate selection (NumPy's point indexing, zarr-python's `vindex`):
 * points are grouped by chunk, and each chunk is read (and for writes,
 * modified and stored) once. Loaded the first time it is used.
 *
 * @module
 */

import type { NDArray } from "../codecs/types.js";
import type { DataArray, Scalar } from "../dtypes/types.js";
import { IndexError, ValueError } from "../errors.js";
import { cStrides } from "../indexing/index.js";
import { bitExact } from "../indexing/strided.js";
import { DEFAULT_CONCURRENCY, forEachConcurrent, withKeyLock } from "../util/concurrency.js";
import { product } from "../util/grid.js";
import type { ArrayContext } from "./context.js";
import type { ArrayValue, GetOptions, SetOptions } from "./types.js";
import { storeChunk, valueSource } from "./write.js";

/** Reads the points of a coordinate selection (see `ZarrArray.getCoordinates`). */
export async function readCoordinates(
  ctx: ArrayContext,
  coords: readonly (readonly number[] | Int32Array)[],
  options: GetOptions,
): Promise<NDArray> {
  const points = normalizePoints(ctx, coords);
  const dataType = ctx.parts.dataType;
  const width = dataType.width;
  const out = dataType.allocate(points.count);
  // Copied slot by slot: float32 through integer views, bit for bit (NaN payloads).
  const slots = bitExact(out);
  const fillSlots = bitExact(ctx.derived().fill);
  await forEachConcurrent(
    points.byChunk.values(),
    options.concurrency ?? DEFAULT_CONCURRENCY,
    async (group) => {
      const chunk = await ctx.readChunk(group.coords, options);
      for (let j = 0; j < group.positions.length; j++) {
        const at = group.positions[j] * width;
        if (chunk === undefined) {
          for (let w = 0; w < width; w++)
            (slots as unknown[])[at + w] = (fillSlots as unknown[])[w];
        } else {
          const from = group.offsets[j] * width;
          const src = bitExact(chunk.data);
          for (let w = 0; w < width; w++)
            (slots as unknown[])[at + w] = (src as unknown[])[from + w];
        }
      }
    },
    options.signal,
  );
  return { data: out, shape: [points.count], stride: [1], dataType };
}

/** Writes the points of a coordinate selection (see `ZarrArray.setCoordinates`). */
export async function writeCoordinates(
  ctx: ArrayContext,
  coords: readonly (readonly number[] | Int32Array)[],
  value: Scalar | DataArray,
  options: SetOptions,
): Promise<void> {
  const points = normalizePoints(ctx, coords);
  const source = valueSource(ctx, value as ArrayValue, [points.count]);
  const dataType = ctx.parts.dataType;
  const width = dataType.width;
  // One value per point: more would be silently dropped.
  if (source.kind === "array" && source.data.length !== points.count * width) {
    throw new ValueError(
      `${ctx.where}: ${source.data.length / width} values for ${points.count} points`,
      { path: ctx.path },
    );
  }
  const chunkLen = product(ctx.chunkSpec.shape);
  await forEachConcurrent(
    points.byChunk.values(),
    options.concurrency ?? DEFAULT_CONCURRENCY,
    async (group) => {
      const key = ctx.chunkKey(group.coords);
      await withKeyLock(ctx.store, key, () =>
        ctx.keyed(key, async () => {
          const existing = await ctx.readChunk(group.coords, options);
          let data: DataArray;
          if (existing) data = existing.data;
          else {
            data = dataType.allocate(chunkLen);
            dataType.fill(data, ctx.parts.fillValue, 0, chunkLen);
          }
          const target = bitExact(data) as unknown[];
          const from = bitExact(source.kind === "scalar" ? source.slots : source.data) as unknown[];
          for (let j = 0; j < group.positions.length; j++) {
            const to = group.offsets[j] * width;
            const at = source.kind === "scalar" ? 0 : group.positions[j] * width;
            for (let w = 0; w < width; w++) target[to + w] = from[at + w];
          }
          await storeChunk(ctx, key, data, options, existing === undefined);
        }),
      );
    },
    options.signal,
  );
}

/** Validates point coordinates and groups them by chunk (offsets are C-order within the chunk). */
function normalizePoints(
  ctx: ArrayContext,
  coords: readonly (readonly number[] | Int32Array)[],
): {
  count: number;
  byChunk: Map<string, { coords: number[]; positions: number[]; offsets: number[] }>;
} {
  const shape = ctx.shape;
  const where = ctx.where;
  if (coords.length !== shape.length) {
    throw new IndexError(
      `${where}: coordinate selection needs ${shape.length} index arrays, got ${coords.length}`,
      {
        path: ctx.path,
      },
    );
  }
  const count = shape.length === 0 ? 1 : coords[0].length;
  if (coords.some((c) => c.length !== count)) {
    throw new IndexError(`${where}: coordinate index arrays must all have the same length`, {
      path: ctx.path,
    });
  }
  const chunkShape = ctx.chunkShape;
  const strides = cStrides(chunkShape);
  const byChunk = new Map<string, { coords: number[]; positions: number[]; offsets: number[] }>();
  for (let k = 0; k < count; k++) {
    const chunkCoords: number[] = [];
    let offset = 0;
    for (let d = 0; d < shape.length; d++) {
      let i = Number(coords[d][k]);
      if (!Number.isInteger(i) || i < -shape[d] || i >= shape[d]) {
        throw new IndexError(
          `${where}: index ${coords[d][k]} is out of bounds for dimension ${d} of length ${shape[d]}`,
          { path: ctx.path },
        );
      }
      if (i < 0) i += shape[d];
      chunkCoords.push(Math.floor(i / chunkShape[d]));
      offset += (i % chunkShape[d]) * strides[d];
    }
    const id = chunkCoords.join(",");
    let group = byChunk.get(id);
    if (!group) {
      group = { coords: chunkCoords, positions: [], offsets: [] };
      byChunk.set(id, group);
    }
    group.positions.push(k);
    group.offsets.push(offset);
  }
  return { count, byChunk };
}

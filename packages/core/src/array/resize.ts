/**
 * Resizing an array (v3 core: "Resizing"), and listing its stored chunks. The
 * cost follows what changes, not the size of the chunk grid. Loaded the first
 * time it is used.
 *
 * @module
 */

import { throwIfAborted, ValueError } from "../errors.js";
import { type Selection, slice } from "../indexing/index.js";
import { boxCoords, product } from "../util/grid.js";
import type { ArrayContext } from "./context.js";
import { withMetadataLock, writeArrayMetadata, writeSelection } from "./write.js";

/** Changes the shape of the array (see `ZarrArray.resize`). */
export async function resizeArray(
  ctx: ArrayContext,
  shape: readonly number[],
  options: { signal?: AbortSignal; clearEdges?: boolean },
): Promise<void> {
  if (shape.length !== ctx.shape.length || shape.some((s) => !Number.isSafeInteger(s) || s < 0)) {
    throw new ValueError(
      `${ctx.where}: resize needs ${ctx.shape.length} non-negative integers, got [${shape.join(", ")}]`,
      { path: ctx.path },
    );
  }
  // Under the metadata lock: the plan starts from the shape no other change is replacing.
  await withMetadataLock(ctx, async () => {
    throwIfAborted(options.signal, ctx.path);
    await resizeLocked(ctx, shape, options);
  });
}

async function resizeLocked(
  ctx: ArrayContext,
  shape: readonly number[],
  options: { signal?: AbortSignal; clearEdges?: boolean },
): Promise<void> {
  const plan = resizePlan(ctx.shape, shape, ctx.chunkShape, ctx.parts.grid.gridShape(ctx.shape), {
    clearEdges: options.clearEdges === true,
  });
  const signal = options.signal;
  const keyOf = (coords: readonly number[]) => ctx.chunkKey(coords);
  if (plan.edgeChunks <= EDGE_ENUMERATION_LIMIT || !ctx.store.listable) {
    // Few changed chunks, or no listing: walk the changed region lazily, twice.
    for (const coords of plan.edge()) {
      throwIfAborted(signal, ctx.path);
      if (!plan.isDoomed(coords)) await clearChunkOutside(ctx, coords, shape, signal);
    }
    throwIfAborted(signal, ctx.path);
    await writeArrayMetadata(ctx, { ...ctx.parts.meta, shape: [...shape] });
    await eraseInBatches(
      ctx,
      mapIterable(filterIterable(plan.edge(), plan.isDoomed), keyOf),
      options,
    );
    return;
  }
  // Many: touch only the stored ones (listed before anything changes).
  const doomed: string[] = [];
  const straddling: number[][] = [];
  for await (const { key, coords } of storedChunks(ctx, { signal })) {
    if (plan.isDoomed(coords)) doomed.push(key);
    else if (plan.isStraddling(coords)) straddling.push(coords);
  }
  for (const coords of straddling) await clearChunkOutside(ctx, coords, shape, signal);
  throwIfAborted(signal, ctx.path);
  await writeArrayMetadata(ctx, { ...ctx.parts.meta, shape: [...shape] });
  await eraseInBatches(ctx, doomed, options);
}

async function eraseInBatches(
  ctx: ArrayContext,
  keys: Iterable<string>,
  options: { signal?: AbortSignal },
): Promise<void> {
  let batch: string[] = [];
  for (const key of keys) {
    batch.push(key);
    if (batch.length === ERASE_BATCH) {
      await ctx.store.eraseValues(batch, options);
      batch = [];
    }
  }
  if (batch.length > 0) await ctx.store.eraseValues(batch, options);
}

/** Resets the elements of chunk `coords` that lie outside `newShape` to the fill value. */
async function clearChunkOutside(
  ctx: ArrayContext,
  coords: readonly number[],
  newShape: readonly number[],
  signal?: AbortSignal,
): Promise<void> {
  const chunk = ctx.chunkShape;
  const old = ctx.shape;
  for (let d = 0; d < old.length; d++) {
    const lo = coords[d] * chunk[d];
    const hi = Math.min(lo + chunk[d], old[d]);
    if (newShape[d] <= lo || newShape[d] >= hi) continue;
    const sel: Selection = old.map((_, e) =>
      e === d
        ? slice(newShape[d], hi)
        : slice(coords[e] * chunk[e], Math.min((coords[e] + 1) * chunk[e], old[e])),
    );
    await writeSelection(ctx, sel, ctx.parts.fillValue.value, { signal });
  }
}

/** Keys of the chunks that are stored (requires a listable store). */
export async function* storedChunks(
  ctx: ArrayContext,
  options: { signal?: AbortSignal },
): AsyncGenerator<{ key: string; coords: number[] }> {
  const prefix = ctx.path ? `${ctx.path}/` : "";
  const grid = ctx.parts.grid.gridShape(ctx.shape);
  for await (const key of ctx.store.listPrefix(prefix, options)) {
    const coords = ctx.parts.keyEncoding.decode(key.slice(prefix.length), ctx.shape.length);
    if (coords?.every((c, i) => c < grid[i])) yield { key, coords };
  }
}

/** Above this many chunks in the changed region, a resize lists stored chunks instead. */
const EDGE_ENUMERATION_LIMIT = 65_536;
/** Keys erased per `eraseValues` call of a resize. */
const ERASE_BATCH = 1_000;

/** Which chunks a resize from `oldShape` to `newShape` touches. */
interface ResizePlan {
  /** Chunks in the changed region (as a float: it may be beyond 2^53). */
  readonly edgeChunks: number;
  /** The chunk lies outside the new grid: it is erased. */
  isDoomed(coords: readonly number[]): boolean;
  /** The chunk stays but holds elements outside the new shape (only with `clearEdges`). */
  isStraddling(coords: readonly number[]): boolean;
  /** Every chunk of the changed region, lazily. */
  edge(): Generator<number[]>;
}

function resizePlan(
  oldShape: readonly number[],
  newShape: readonly number[],
  chunk: readonly number[],
  oldGrid: readonly number[],
  { clearEdges }: { clearEdges: boolean },
): ResizePlan {
  const n = oldShape.length;
  const newGrid = newShape.map((s, d) => Math.ceil(s / chunk[d]));
  const kept = oldGrid.map((g, d) => Math.min(g, newGrid[d]));
  // Dimensions that shrink to the middle of a chunk: that chunk row keeps stale elements.
  const cut = clearEdges
    ? oldShape.flatMap((s, d) => (newShape[d] < s && newShape[d] % chunk[d] !== 0 ? [d] : []))
    : [];
  const cutIndex = (d: number) => Math.floor(newShape[d] / chunk[d]);
  let edgeChunks = product(oldGrid) - product(kept);
  for (const d of cut) edgeChunks += product(kept.filter((_, e) => e !== d));
  return {
    edgeChunks,
    isDoomed: (coords) => coords.some((c, d) => c >= newGrid[d]),
    isStraddling: (coords) =>
      cut.some((d) => coords[d] === cutIndex(d)) && coords.every((c, d) => c < newGrid[d]),
    *edge() {
      // The removed region, as disjoint slabs: dimension d beyond the new grid, earlier
      // dimensions within it, later ones anywhere in the old grid.
      for (let d = 0; d < n; d++) {
        if (newGrid[d] >= oldGrid[d]) continue;
        const lo = oldGrid.map((_, e) => (e === d ? newGrid[d] : 0));
        const hi = oldGrid.map((g, e) => (e < d ? kept[e] : g));
        yield* boxCoords(lo, hi);
      }
      for (const d of cut) {
        const lo = kept.map((_, e) => (e === d ? cutIndex(d) : 0));
        const hi = kept.map((k, e) => (e === d ? cutIndex(d) + 1 : k));
        yield* boxCoords(lo, hi);
      }
    },
  };
}

function* filterIterable<T>(items: Iterable<T>, keep: (item: T) => boolean): Generator<T> {
  for (const item of items) if (keep(item)) yield item;
}

function* mapIterable<T, U>(items: Iterable<T>, fn: (item: T) => U): Generator<U> {
  for (const item of items) yield fn(item);
}

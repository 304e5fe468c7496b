/**
 * Moving the data of a planned copy: one unit of work is one destination
 * chunk (one whole shard when the destination is sharded), so units never
 * share a stored object and can run in any order, in parallel, in separate
 * processes (`--part`), and be retried (`--resume`). Which units: `units.ts`.
 *
 * @module
 */
import { type DataArray, type Store, slice } from "@zarr/core";
import { crc32c } from "@zarr/core/builtin-codecs";
import type { ChunkCodecWorkers } from "@zarr/core/codec";
import {
  type Axis,
  copyStrided,
  cStrides,
  forEachConcurrent,
  keepsEveryChunk,
} from "@zarr/core/internal";
import type { Progress } from "../progress.js";
import type { PlannedNode } from "./plan.js";
import type { ArrayUnits, SortedIndices } from "./units.js";

type ArrayNode = Extract<PlannedNode, { kind: "array" }>;

/** Counters reported at the end of a copy. */
export interface TransferStats {
  /** Units (destination chunks or shards) in this process's part. */
  units: number;
  /** Units encoded and stored. */
  written: number;
  /** `--resume`: units already stored with identical bytes (size and crc32c). */
  verified: number;
  /** `--resume`: units stored with different bytes, rewritten. */
  replaced: number;
  /** Units equal to the fill value everywhere (not stored). */
  empty: number;
  /** Decoded bytes moved. */
  dataBytes: number;
  /** Encoded bytes stored. */
  storedBytes: number;
}

/** Options of {@link transfer}. */
export interface TransferOptions {
  /** Compare with what is stored and skip identical units. */
  resume: boolean;
  /** Units in flight. */
  jobs: number;
  /** Source chunks read at once within one unit. */
  readConcurrency: number;
  progress?: Progress;
  signal?: AbortSignal;
  /** Threads that decode source chunks and encode destination chunks (none: this one does). */
  workers?: ChunkCodecWorkers;
}

function product(shape: readonly number[]): number {
  let n = 1;
  for (const s of shape) n *= s;
  return n;
}

/** Rough decoded bytes of one element (variable-size types: an estimate). */
export function elementBytes(node: ArrayNode): number {
  return node.plan.dataType.itemSize ?? 64;
}

/** The decoded destination chunk at `coords`, padded with the fill value past the array's edge. */
async function readUnit(
  node: ArrayNode,
  coords: readonly number[],
  sources: SortedIndices | undefined,
  options: TransferOptions,
): Promise<{ data: DataArray; regionShape: number[] }> {
  const { src, plan } = node;
  const dataType = plan.dataType;
  const chunkShape = plan.chunkShape;
  const start = coords.map((c, d) => c * chunkShape[d]);
  const stop = start.map((s, d) => Math.min(s + chunkShape[d], plan.shape[d]));
  const regionShape = stop.map((e, d) => e - start[d]);
  const n = product(chunkShape);
  const strides = cStrides(chunkShape);
  if (sources !== undefined) {
    // Only the stored source chunks the unit overlaps are read (a region read would ask
    // the store for every source chunk in it, stored or not).
    const from = src.chunkShape;
    const first = start.map((s, d) => Math.floor(s / from[d]));
    const last = stop.map((e, d) => Math.floor((e - 1) / from[d]));
    const pieces = regionShape.every((len) => len > 0)
      ? [...sources.within(first, last, src.gridShape)]
      : [];
    const data = dataType.allocate(n);
    // A whole unit inside one stored source chunk (the same chunking, or coarser
    // source chunks) is read straight into the unit's memory: no fill, no copy.
    const whole = regionShape.every((len, d) => len === chunkShape[d]);
    const inside = (c: readonly number[]) =>
      c.every((x, d) => x * from[d] <= start[d] && (x + 1) * from[d] >= stop[d]);
    if (
      whole &&
      pieces.length === 1 &&
      inside(pieces[0]) &&
      src.dataType.allocate(0).constructor === data.constructor
    ) {
      await src.get(
        start.map((s, d) => slice(s, stop[d])),
        { signal: options.signal, concurrency: 1, workers: options.workers ?? false, out: data },
      );
      return { data, regionShape };
    }
    dataType.fill(data, plan.fillValue, 0, n);
    await forEachConcurrent(
      pieces,
      options.readConcurrency,
      async (c) => {
        const lo = c.map((x, d) => Math.max(start[d], x * from[d]));
        const hi = c.map((x, d) => Math.min(stop[d], (x + 1) * from[d]));
        const shape = hi.map((h, d) => h - lo[d]);
        const piece = await src.get(
          lo.map((l, d) => slice(l, hi[d])),
          { signal: options.signal, concurrency: 1, workers: options.workers ?? false },
        );
        copyStrided(
          piece.data,
          0,
          shape.map((count) => ({ start: 0, step: 1, count })),
          cStrides(shape),
          data,
          0,
          shape.map((count, d) => ({ start: lo[d] - start[d], step: 1, count })),
          strides,
          dataType.width,
        );
      },
      options.signal,
    );
    return { data, regionShape };
  }
  const region = await src.get(
    start.map((s, d) => slice(s, stop[d])),
    {
      signal: options.signal,
      concurrency: options.readConcurrency,
      workers: options.workers ?? false,
    },
  );
  if (regionShape.every((len, d) => len === chunkShape[d]))
    return { data: region.data, regionShape };
  // Edge chunk: pad with the fill value to the full chunk shape.
  const data = dataType.allocate(n);
  dataType.fill(data, plan.fillValue, 0, n);
  const axes: Axis[] = regionShape.map((count) => ({ start: 0, step: 1, count }));
  copyStrided(region.data, 0, axes, cStrides(regionShape), data, 0, axes, strides, dataType.width);
  return { data, regionShape };
}

/** Copies one destination chunk; returns what happened. */
async function copyUnit(
  node: ArrayNode,
  coords: number[],
  sources: SortedIndices | undefined,
  dst: Store,
  options: TransferOptions,
): Promise<{
  outcome: "written" | "verified" | "replaced" | "empty";
  data: number;
  stored: number;
}> {
  const plan = node.plan;
  const dataType = plan.dataType;
  const chunkShape = plan.chunkShape;
  const n = product(chunkShape);
  const { data, regionShape } = await readUnit(node, coords, sources, options);
  const key = plan.chunkKey(coords);
  const dataBytes = product(regionShape) * elementBytes(node);
  // A destination without a fill value for some readers stores every chunk.
  if (!keepsEveryChunk(plan.metadata) && dataType.isFill(data, plan.fillValue, 0, n)) {
    if (options.resume && (await dst.has(key, options))) await dst.erase(key, options);
    return { outcome: "empty", data: dataBytes, stored: 0 };
  }
  const chunk = { data, shape: chunkShape, stride: cStrides(chunkShape), dataType };
  // Not transferred: `data` may be a view of memory the source store still holds.
  const bytes = await (options.workers?.encode(
    plan.codecs,
    chunk,
    { format: plan.zarrFormat, path: plan.path },
    { signal: options.signal },
  ) ?? plan.codecs.encode(chunk, options));
  let outcome: "written" | "replaced" = "written";
  if (options.resume) {
    const size = await dst.getSize(key, options);
    if (size !== undefined) {
      if (size === bytes.length) {
        const stored = await dst.get(key, undefined, options);
        if (stored !== undefined && crc32c(stored) === crc32c(bytes))
          return { outcome: "verified", data: dataBytes, stored: 0 };
      }
      outcome = "replaced";
    }
  }
  await dst.set(key, bytes, options);
  return { outcome, data: dataBytes, stored: bytes.length };
}

/**
 * Copies the data of this process's part of `plan` into `dst`: the units
 * {@link planUnits} chose (see there for which and why).
 */
export async function transfer(
  units: readonly ArrayUnits[],
  dst: Store,
  options: TransferOptions,
): Promise<TransferStats> {
  const stats: TransferStats = {
    units: units.reduce((n, u) => n + u.count, 0),
    written: 0,
    verified: 0,
    replaced: 0,
    empty: 0,
    dataBytes: 0,
    storedBytes: 0,
  };
  function* all(): Generator<{ unit: ArrayUnits; coords: number[] }> {
    for (const unit of units) for (const coords of unit.coords()) yield { unit, coords };
  }
  await forEachConcurrent(
    all(),
    options.jobs,
    async ({ unit, coords }) => {
      const r = await copyUnit(unit.node, coords, unit.sources, dst, options);
      stats[r.outcome]++;
      stats.dataBytes += r.data;
      stats.storedBytes += r.stored;
      options.progress?.tick(1, r.data);
    },
    options.signal,
  );
  return stats;
}

/**
 * Moving the data of a planned copy: one unit of work is one destination
 * chunk (one whole shard when the destination is sharded), so units never
 * share a stored object and can run in any order, in parallel, in separate
 * processes (`--part`), and be retried (`--resume`).
 *
 * @module
 */
import {
  type Axis,
  copyStrided,
  crc32c,
  cStrides,
  forEachConcurrent,
  type Store,
  slice,
} from "@zarr/core";
import type { Progress } from "../progress.js";
import type { CopyPlan, PlannedNode } from "./plan.js";

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
  /** This process's part, 0-based, of `parts`. */
  part: number;
  parts: number;
  /** Units in flight. */
  jobs: number;
  /** Source chunks read at once within one unit. */
  readConcurrency: number;
  progress?: Progress;
  signal?: AbortSignal;
}

function product(shape: readonly number[]): number {
  let n = 1;
  for (const s of shape) n *= s;
  return n;
}

/** Grid coordinates of the C-order linear index `i`. */
function unravel(i: number, grid: readonly number[]): number[] {
  const coords = new Array<number>(grid.length);
  for (let d = grid.length - 1; d >= 0; d--) {
    coords[d] = i % grid[d];
    i = Math.floor(i / grid[d]);
  }
  return coords;
}

/** Units per array, in plan order (the global unit order every part shares). */
export function unitCounts(plan: CopyPlan): number[] {
  return plan.arrays.map((a) => product(a.plan.gridShape));
}

/** The [start, end) range of global unit indices owned by part `i` of `n`. */
export function partRange(total: number, i: number, n: number): [number, number] {
  return [Math.floor((i * total) / n), Math.floor(((i + 1) * total) / n)];
}

/** The units of one part: each (array, chunk coordinates) pair, lazily. */
export function* partUnits(
  plan: CopyPlan,
  part: number,
  parts: number,
): Generator<{ array: ArrayNode; coords: number[] }> {
  const counts = unitCounts(plan);
  const total = counts.reduce((a, b) => a + b, 0);
  const [start, end] = partRange(total, part, parts);
  let base = 0;
  for (let a = 0; a < plan.arrays.length; a++) {
    const from = Math.max(start, base);
    const to = Math.min(end, base + counts[a]);
    const grid = plan.arrays[a].plan.gridShape;
    for (let i = from; i < to; i++)
      yield { array: plan.arrays[a], coords: unravel(i - base, grid) };
    base += counts[a];
  }
}

/** Rough decoded bytes of one element (variable-size types: an estimate). */
export function elementBytes(node: ArrayNode): number {
  return node.plan.dataType.itemSize ?? 64;
}

/** Copies one destination chunk; returns what happened. */
async function copyUnit(
  node: ArrayNode,
  coords: number[],
  dst: Store,
  options: TransferOptions,
): Promise<{
  outcome: "written" | "verified" | "replaced" | "empty";
  data: number;
  stored: number;
}> {
  const { src, plan } = node;
  const dataType = plan.dataType;
  const chunkShape = plan.chunkShape;
  const start = coords.map((c, d) => c * chunkShape[d]);
  const stop = start.map((s, d) => Math.min(s + chunkShape[d], plan.shape[d]));
  const regionShape = stop.map((e, d) => e - start[d]);
  const region = await src.get(
    start.map((s, d) => slice(s, stop[d])),
    { signal: options.signal, concurrency: options.readConcurrency },
  );
  const n = product(chunkShape);
  let data = region.data;
  if (regionShape.some((len, d) => len !== chunkShape[d])) {
    // Edge chunk: pad with the fill value to the full chunk shape.
    data = dataType.allocate(n);
    dataType.fill(data, plan.fillValue, 0, n);
    const axes: Axis[] = regionShape.map((count) => ({ start: 0, step: 1, count }));
    copyStrided(
      region.data,
      0,
      axes,
      cStrides(regionShape),
      data,
      0,
      axes,
      cStrides(chunkShape),
      dataType.width,
    );
  }
  const key = plan.chunkKey(coords);
  const dataBytes = product(regionShape) * elementBytes(node);
  if (dataType.isFill(data, plan.fillValue, 0, n)) {
    if (options.resume && (await dst.has(key, options))) await dst.erase(key, options);
    return { outcome: "empty", data: dataBytes, stored: 0 };
  }
  const bytes = await plan.codecs.encode(
    { data, shape: chunkShape, stride: cStrides(chunkShape), dataType },
    options,
  );
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

/** Copies the data of this process's part of `plan` into `dst`. */
export async function transfer(
  plan: CopyPlan,
  dst: Store,
  options: TransferOptions,
): Promise<TransferStats> {
  const stats: TransferStats = {
    units: 0,
    written: 0,
    verified: 0,
    replaced: 0,
    empty: 0,
    dataBytes: 0,
    storedBytes: 0,
  };
  const counts = unitCounts(plan);
  const [start, end] = partRange(
    counts.reduce((a, b) => a + b, 0),
    options.part,
    options.parts,
  );
  stats.units = end - start;
  await forEachConcurrent(
    partUnits(plan, options.part, options.parts),
    options.jobs,
    async ({ array, coords }) => {
      const r = await copyUnit(array, coords, dst, options);
      stats[r.outcome]++;
      stats.dataBytes += r.data;
      stats.storedBytes += r.stored;
      options.progress?.tick(1, r.data);
    },
    options.signal,
  );
  return stats;
}

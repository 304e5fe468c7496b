/**
 * Which destination chunks a copy writes, and which process writes each.
 *
 * Ownership: the destination grids of every array, in plan order and C order
 * within each, form one global sequence of grid positions; part i of N owns
 * the contiguous range [⌊iG/N⌋, ⌊(i+1)G/N⌋) of it (G: every grid position of
 * every array). Ownership depends only on the plan, never on what a store
 * lists, so N processes agree on it without talking to each other, and what
 * each part writes (whole destination chunks or shards) no other part touches.
 *
 * Work: where the source store can list its keys, a part copies only the
 * destination chunks of its range that overlap a stored source chunk (when
 * the chunking changes, every destination chunk a stored source chunk
 * overlaps), so cost follows stored data, not the size of the grid. With
 * `--resume` it also revisits destination chunks of its range that are stored
 * in the destination although no stored source chunk overlaps them (they are
 * erased: their source is all fill value now). Where the source cannot list
 * (HTTP), every position of the range is a unit, as the grid is all there is
 * to go by. So is every position when a destination chunk left out would not
 * read as the source's missing chunks do ({@link missingReadsAlike}).
 *
 * Memory: the stored source chunks of an array are held as sorted linear
 * indices (8 bytes each); units are generated from them lazily, each by the
 * first stored source chunk (in C order) it overlaps, so none is generated
 * twice and none is held. Only `--resume`'s extra destination chunks are
 * collected.
 *
 * @module
 */
import type { Store } from "@zarr/core";
import { keepsEveryChunk } from "@zarr/core/internal";
import { TooLargeError } from "../usage.js";
import type { CopyPlan, PlannedNode } from "./plan.js";

type ArrayNode = Extract<PlannedNode, { kind: "array" }>;

/** The destination chunks of one array that this part copies. */
export interface ArrayUnits {
  readonly node: ArrayNode;
  /** How many (exact below 2^53). */
  readonly count: number;
  /** Their grid coordinates (each once). */
  coords(): Iterable<number[]>;
  /**
   * The stored chunks of the source, when its store can list: a unit then
   * reads only those it overlaps.
   */
  readonly sources?: SortedIndices;
}

/**
 * Whether a destination chunk may be left out where every source chunk it
 * overlaps is missing: only when readers of the destination decode a missing
 * chunk to exactly what a missing source chunk holds, the source's fill value.
 * Not so when the destination must store every chunk (a v2 array without a
 * fill value, e.g. v3 `bytes` copied to v2) or its fill value differs in bits
 * (a NaN payload or -0.0 written as v2's "NaN" or 0, ...): then every grid
 * position is a unit, and the transfer stores each chunk that is not the
 * destination's fill value.
 */
export function missingReadsAlike(node: ArrayNode): boolean {
  if (keepsEveryChunk(node.plan.metadata) && !keepsEveryChunk(node.src.metadata)) return false;
  const src = node.src.dataType;
  const one = src.allocate(1);
  src.fill(one, node.src.fillValue, 0, 1);
  try {
    return node.plan.dataType.isFill(one, node.plan.fillValue, 0, 1);
  } catch {
    return false;
  }
}

/** Most destination chunks a copy writes out where the source has none stored. */
export const MAX_WRITTEN_OUT = 10_000_000n;

/** Product of a shape, exactly. */
function size(shape: readonly number[]): bigint {
  let n = 1n;
  for (const s of shape) n *= BigInt(s);
  return n;
}

const bigMin = (a: bigint, b: bigint): bigint => (a < b ? a : b);
const bigMax = (a: bigint, b: bigint): bigint => (a > b ? a : b);

/** Grid coordinates of the C-order linear index `i` (BigInt: grids may exceed 2^53 positions). */
function unravel(i: bigint, grid: readonly number[]): number[] {
  const coords = new Array<number>(grid.length);
  for (let d = grid.length - 1; d >= 0; d--) {
    const g = BigInt(grid[d]);
    coords[d] = Number(i % g);
    i /= g;
  }
  return coords;
}

/** C-order linear index of grid coordinates. */
function ravel(coords: readonly number[], grid: readonly number[]): bigint {
  let i = 0n;
  for (let d = 0; d < grid.length; d++) i = i * BigInt(grid[d]) + BigInt(coords[d]);
  return i;
}

/** The [start, end) range of global grid positions owned by part `i` of `n`. */
export function partRange(total: bigint, i: number, n: number): [bigint, bigint] {
  return [(BigInt(i) * total) / BigInt(n), (BigInt(i + 1) * total) / BigInt(n)];
}

/**
 * The rows of the box [first, last] (inclusive, per dimension): every
 * combination of the leading coordinates, in C order (one empty row for
 * 1-dimensional boxes; none for 0-dimensional ones).
 */
function* rows(first: readonly number[], last: readonly number[]): Generator<number[]> {
  const n = first.length - 1;
  if (n < 0) return;
  const at = first.slice(0, n);
  while (true) {
    yield at;
    let d = n - 1;
    while (d >= 0 && at[d] === last[d]) {
      at[d] = first[d];
      d--;
    }
    if (d < 0) return;
    at[d]++;
  }
}

/** Number of rows of a box. */
function rowCount(first: readonly number[], last: readonly number[]): number {
  let r = 1;
  for (let d = 0; d < first.length - 1; d++) r *= last[d] - first[d] + 1;
  return r;
}

/**
 * A set of linear indices of a grid: doubles in a typed array (8 bytes each)
 * while the grid has at most 2^53 positions, BigInts beyond.
 */
class IndexSet {
  #small: Float64Array | undefined;
  #length = 0;
  #big: bigint[] | undefined;

  constructor(gridSize: bigint) {
    if (gridSize <= BigInt(Number.MAX_SAFE_INTEGER) + 1n) this.#small = new Float64Array(1024);
    else this.#big = [];
  }

  add(i: bigint): void {
    if (this.#big) {
      this.#big.push(i);
      return;
    }
    let a = this.#small!;
    if (this.#length === a.length) {
      const grown = new Float64Array(a.length * 2);
      grown.set(a);
      this.#small = a = grown;
    }
    a[this.#length++] = Number(i);
  }

  /** The distinct indices, ascending. */
  sorted(): SortedIndices {
    if (this.#big) {
      const list = this.#big.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
      return new SortedIndices(list.filter((v, k) => k === 0 || v !== list[k - 1]));
    }
    const a = this.#small!.subarray(0, this.#length).sort();
    let n = 0;
    for (let k = 0; k < a.length; k++) if (k === 0 || a[k] !== a[n - 1]) a[n++] = a[k];
    return new SortedIndices(a.slice(0, n));
  }
}

/** Distinct linear indices of a grid, ascending. */
export class SortedIndices {
  constructor(readonly list: Float64Array | bigint[]) {}

  get length(): number {
    return this.list.length;
  }

  at(k: number): bigint {
    return BigInt(this.list[k]);
  }

  /** The first position whose index is at least `v`. */
  #lowerBound(v: bigint): number {
    const list = this.list;
    const key = list instanceof Float64Array ? Number(v) : v;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The indices inside the box [first, last] (inclusive, per dimension) of
   * `grid`, ascending, as positions in the list.
   */
  *#positions(
    first: readonly number[],
    last: readonly number[],
    grid: readonly number[],
  ): Generator<number> {
    const n = grid.length;
    if (n === 0) {
      if (this.length > 0) yield 0;
      return;
    }
    const from = this.#lowerBound(ravel(first, grid));
    const to = this.#lowerBound(ravel(last, grid) + 1n);
    if (from === to) return;
    if (to - from <= rowCount(first, last)) {
      // Fewer indices in the box's span than rows: check each.
      for (let k = from; k < to; k++) {
        const coords = unravel(this.at(k), grid);
        if (coords.every((c, d) => c >= first[d] && c <= last[d])) yield k;
      }
      return;
    }
    // Each row along the last dimension is a run of consecutive indices: one search each.
    for (const row of rows(first, last)) {
      const end = this.#lowerBound(ravel([...row, last[n - 1]], grid) + 1n);
      for (let k = this.#lowerBound(ravel([...row, first[n - 1]], grid)); k < end; k++) yield k;
    }
  }

  /** The grid coordinates of the indices inside the box [first, last], ascending. */
  *within(
    first: readonly number[],
    last: readonly number[],
    grid: readonly number[],
  ): Generator<number[]> {
    for (const k of this.#positions(first, last, grid)) yield unravel(this.at(k), grid);
  }

  /** The smallest index inside the box [first, last], if any. */
  first(
    first: readonly number[],
    last: readonly number[],
    grid: readonly number[],
  ): bigint | undefined {
    for (const k of this.#positions(first, last, grid)) return this.at(k);
    return undefined;
  }
}

/** The box of `to`-chunks (grid coordinates, inclusive) that the `from`-chunk at `coords` overlaps. */
function overlapBox(
  coords: readonly number[],
  from: readonly number[],
  to: readonly number[],
  shape: readonly number[],
): [number[], number[]] | undefined {
  const first: number[] = [];
  const last: number[] = [];
  for (let d = 0; d < shape.length; d++) {
    const start = coords[d] * from[d];
    const stop = Math.min(start + from[d], shape[d]);
    if (stop <= start) return undefined;
    first.push(Math.floor(start / to[d]));
    last.push(Math.floor((stop - 1) / to[d]));
  }
  return [first, last];
}

/**
 * The destination chunks with linear index in [lo, hi) that overlap a stored
 * source chunk, each generated once: by the first stored source chunk (in C
 * order) it overlaps.
 */
function* fromStored(
  node: ArrayNode,
  sources: SortedIndices,
  lo: bigint,
  hi: bigint,
): Generator<number[]> {
  const shape = node.plan.shape;
  const srcChunks = node.src.chunkShape;
  const srcGrid = node.src.gridShape;
  const dstChunks = node.plan.chunkShape;
  const grid = node.plan.gridShape;
  const n = shape.length;
  for (let k = 0; k < sources.length; k++) {
    const s = sources.at(k);
    const box = overlapBox(unravel(s, srcGrid), srcChunks, dstChunks, shape);
    if (box === undefined) continue;
    const [first, last] = box;
    const owns = (u: number[]): boolean => {
      const back = overlapBox(u, dstChunks, srcChunks, shape)!;
      // Inside one source chunk (the usual case): that is this one.
      if (back[0].every((c, d) => c === back[1][d])) return true;
      return sources.first(back[0], back[1], srcGrid) === s;
    };
    if (n === 0) {
      if (lo <= 0n && 0n < hi) yield [];
      continue;
    }
    for (const row of rows(first, last)) {
      const rowStart = ravel([...row, first[n - 1]], grid);
      const from = bigMax(rowStart, lo);
      const to = bigMin(rowStart + BigInt(last[n - 1] - first[n - 1]), hi - 1n);
      for (let i = from; i <= to; i++) {
        const u = [...row, first[n - 1] + Number(i - rowStart)];
        if (owns(u)) yield u;
      }
    }
  }
}

/** The destination chunks of `node` stored in `dst` (its listed keys decoded by the planned key encoding). */
async function* storedInDestination(
  node: ArrayNode,
  dst: Store,
  signal: AbortSignal | undefined,
): AsyncGenerator<number[]> {
  const prefix = node.dstPath ? `${node.dstPath}/` : "";
  const grid = node.plan.gridShape;
  for await (const key of dst.listPrefix(prefix, { signal })) {
    const coords = node.plan.chunkKeyEncoding.decode(key.slice(prefix.length), grid.length);
    if (coords?.every((c, d) => c < grid[d])) yield coords;
  }
}

/** Counts what `items` yields, yielding to the event loop now and then (so that Ctrl-C is heard). */
async function countOf(items: Iterable<unknown>, signal: AbortSignal | undefined): Promise<number> {
  let n = 0;
  for (const _ of items) {
    if (++n % 65536 === 0) {
      await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
    }
  }
  return n;
}

/** Options of {@link planUnits}. */
export interface UnitOptions {
  part: number;
  parts: number;
  /** Also revisit destination chunks stored in `dst` that no stored source chunk overlaps. */
  resume: boolean;
  signal?: AbortSignal;
}

/** The units of this part, per array in plan order. */
export async function planUnits(
  plan: CopyPlan,
  dst: Store,
  options: UnitOptions,
): Promise<ArrayUnits[]> {
  const sizes = plan.arrays.map((a) => size(a.plan.gridShape));
  const total = sizes.reduce((a, b) => a + b, 0n);
  const [start, end] = partRange(total, options.part, options.parts);
  const out: ArrayUnits[] = [];
  let base = 0n;
  for (let a = 0; a < plan.arrays.length; a++) {
    const node = plan.arrays[a];
    const grid = node.plan.gridShape;
    const lo = bigMax(start - base, 0n);
    const hi = bigMin(end - base, sizes[a]);
    base += sizes[a];
    if (hi <= lo) {
      out.push({ node, count: 0, coords: () => [] });
      continue;
    }
    const writeOut = node.src.store.listable && !missingReadsAlike(node);
    if (writeOut && hi - lo > MAX_WRITTEN_OUT)
      throw new TooLargeError(
        `/${node.src.path}: a missing chunk of the destination would not read as the source's fill value ` +
          "(v2 has no exact form of it, or no fill value), so all " +
          `${hi - lo} destination chunks would be written, more than ${MAX_WRITTEN_OUT}; ` +
          "copy to --format 3 or give the source a fill value the destination can hold",
        { path: node.src.path },
      );
    if (!node.src.store.listable || writeOut) {
      // Nothing to go by but the grid (or missing source chunks must be written out).
      out.push({
        node,
        count: Number(hi - lo),
        *coords() {
          for (let i = lo; i < hi; i++) yield unravel(i, grid);
        },
      });
      continue;
    }
    const srcGrid = node.src.gridShape;
    const listed = new IndexSet(size(srcGrid));
    for await (const { coords } of node.src.storedChunks({ signal: options.signal }))
      listed.add(ravel(coords, srcGrid));
    const sources = listed.sorted();
    let extras: SortedIndices | undefined;
    if (options.resume && dst.listable) {
      const set = new IndexSet(sizes[a]);
      for await (const u of storedInDestination(node, dst, options.signal)) {
        const i = ravel(u, grid);
        if (i < lo || i >= hi) continue;
        const back = overlapBox(u, node.plan.chunkShape, node.src.chunkShape, node.plan.shape);
        if (back === undefined || sources.first(back[0], back[1], srcGrid) === undefined)
          set.add(i);
      }
      extras = set.sorted();
    }
    function* coords(): Generator<number[]> {
      yield* fromStored(node, sources, lo, hi);
      if (extras) for (let k = 0; k < extras.length; k++) yield unravel(extras.at(k), grid);
    }
    out.push({ node, count: await countOf(coords(), options.signal), coords, sources });
  }
  return out;
}

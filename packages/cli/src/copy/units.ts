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
 * in the destination (their source may be all fill value now: they are
 * erased). Where the source cannot list (HTTP), every position of the range
 * is a unit, as the grid is all there is to go by.
 *
 * @module
 */
import type { Store } from "@zarr/core";
import type { CopyPlan, PlannedNode } from "./plan.js";

type ArrayNode = Extract<PlannedNode, { kind: "array" }>;

/** The destination chunks of one array that this part copies. */
export interface ArrayUnits {
  readonly node: ArrayNode;
  /** How many (exact below 2^53). */
  readonly count: number;
  /** Their grid coordinates, in C order. */
  coords(): Iterable<number[]>;
  /**
   * The stored chunks of the source (linear indices of its grid), when its
   * store can list: a unit then reads only those it overlaps.
   */
  readonly sources?: SortedIndices;
}

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
 * A set of linear indices below `limit`: doubles in a typed array (8 bytes
 * each) while `limit` is at most 2^53, BigInts beyond.
 */
class IndexSet {
  #small: Float64Array | undefined;
  #length = 0;
  #big: bigint[] | undefined;

  constructor(limit: bigint) {
    if (limit <= BigInt(Number.MAX_SAFE_INTEGER) + 1n) this.#small = new Float64Array(1024);
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
    return new SortedIndices(a.subarray(0, n));
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
   * The grid coordinates of the indices inside the box [first, last]
   * (inclusive, per dimension) of `grid`, in C order.
   */
  *within(
    first: readonly number[],
    last: readonly number[],
    grid: readonly number[],
  ): Generator<number[]> {
    const n = grid.length;
    if (n === 0) {
      if (this.length > 0) yield [];
      return;
    }
    // Rows along the last dimension are contiguous runs of indices: one binary search each,
    // unless the whole box spans fewer stored indices than it has rows.
    const from = this.#lowerBound(ravel(first, grid));
    const to = this.#lowerBound(ravel(last, grid) + 1n);
    let rows = 1;
    for (let d = 0; d < n - 1; d++) rows *= last[d] - first[d] + 1;
    if (to - from <= rows) {
      for (let k = from; k < to; k++) {
        const coords = unravel(this.at(k), grid);
        if (coords.every((c, d) => c >= first[d] && c <= last[d])) yield coords;
      }
      return;
    }
    const at = first.slice(0, n - 1);
    while (true) {
      const row = [...at, first[n - 1]];
      const end = this.#lowerBound(ravel([...at, last[n - 1]], grid) + 1n);
      for (let k = this.#lowerBound(ravel(row, grid)); k < end; k++)
        yield unravel(this.at(k), grid);
      let d = n - 2;
      while (d >= 0 && at[d] === last[d]) {
        at[d] = first[d];
        d--;
      }
      if (d < 0) return;
      at[d]++;
    }
  }
}

/**
 * Adds the destination chunks (linear indices in [lo, hi)) that overlap the
 * source chunk at `coords`.
 */
function addOverlaps(
  node: ArrayNode,
  coords: readonly number[],
  lo: bigint,
  hi: bigint,
  into: IndexSet,
): void {
  const shape = node.plan.shape;
  const from = node.src.chunkShape;
  const to = node.plan.chunkShape;
  const grid = node.plan.gridShape;
  const first: number[] = [];
  const last: number[] = [];
  for (let d = 0; d < shape.length; d++) {
    const start = coords[d] * from[d];
    const stop = Math.min(start + from[d], shape[d]);
    if (stop <= start) return;
    first.push(Math.floor(start / to[d]));
    last.push(Math.floor((stop - 1) / to[d]));
  }
  const at = [...first];
  while (true) {
    const i = ravel(at, grid);
    if (i >= lo && i < hi) into.add(i);
    let d = at.length - 1;
    while (d >= 0 && at[d] === last[d]) {
      at[d] = first[d];
      d--;
    }
    if (d < 0) return;
    at[d]++;
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

/** Options of {@link planUnits}. */
export interface UnitOptions {
  part: number;
  parts: number;
  /** Also revisit destination chunks stored in `dst`. */
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
    if (!node.src.store.listable) {
      // Nothing to go by but the grid.
      out.push({
        node,
        count: Number(hi - lo),
        *coords() {
          for (let i = lo; i < hi; i++) yield unravel(i, grid);
        },
      });
      continue;
    }
    const sources = new IndexSet(size(node.src.gridShape));
    for await (const { coords } of node.src.storedChunks({ signal: options.signal }))
      sources.add(ravel(coords, node.src.gridShape));
    const stored = sources.sorted();
    const set = new IndexSet(sizes[a]);
    for (let k = 0; k < stored.length; k++)
      addOverlaps(node, unravel(stored.at(k), node.src.gridShape), lo, hi, set);
    if (options.resume && dst.listable) {
      for await (const coords of storedInDestination(node, dst, options.signal)) {
        const i = ravel(coords, grid);
        if (i >= lo && i < hi) set.add(i);
      }
    }
    const sorted = set.sorted();
    out.push({
      node,
      count: sorted.length,
      *coords() {
        for (let k = 0; k < sorted.length; k++) yield unravel(sorted.at(k), grid);
      },
      sources: stored,
    });
  }
  return out;
}

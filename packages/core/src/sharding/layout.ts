/**
 * Geometry of one shard: its grid of inner chunks, their linear order in the
 * index (C order), and copies between an inner chunk and a region of the shard.
 *
 * @module
 */

import type { DataArray } from "../dtypes/types.js";
import { type Axis, copyStrided, cStrides } from "../indexing/index.js";
import { boxCoords, product } from "../util/grid.js";

/** The inner-chunk grid of shards of one shape. */
export class ShardLayout {
  readonly ndim: number;
  /** Inner chunks per shard along each dimension. */
  readonly perShard: number[];
  /** Inner chunks per shard. */
  readonly nChunks: number;
  /** Elements per inner chunk. */
  readonly innerLength: number;
  readonly innerStrides: number[];

  constructor(
    shardShape: readonly number[],
    readonly innerShape: readonly number[],
    /** Data array elements per array element (2 for complex types, 1 otherwise). */
    readonly width: number,
  ) {
    this.ndim = shardShape.length;
    this.perShard = shardShape.map((s, i) => s / innerShape[i]);
    this.nChunks = product(this.perShard);
    this.innerLength = product(innerShape);
    this.innerStrides = cStrides(innerShape);
  }

  /** The index position of the inner chunk at `coords`. */
  linear(coords: readonly number[]): number {
    let i = 0;
    for (let d = 0; d < this.ndim; d++) i = i * this.perShard[d] + coords[d];
    return i;
  }

  /** Every inner chunk's coordinates, in index order. */
  all(): Generator<number[]> {
    return boxCoords(new Array(this.ndim).fill(0), this.perShard);
  }

  /** Coordinates of the inner chunks that overlap the shard region [lo, hi). */
  overlapping(lo: readonly number[], hi: readonly number[]): Generator<number[]> {
    const first = lo.map((l, d) => Math.floor(l / this.innerShape[d]));
    const last = hi.map((h, d) => Math.ceil(h / this.innerShape[d]));
    return boxCoords(first, last);
  }

  /** Copies the part of inner chunk `coords` inside [lo, hi) of the shard into `out` (region origin `lo`). */
  place(
    chunk: DataArray,
    coords: readonly number[],
    out: DataArray,
    lo: readonly number[],
    hi: readonly number[],
    outStrides: readonly number[],
  ): void {
    const srcAxes: Axis[] = [];
    const dstAxes: Axis[] = [];
    for (let d = 0; d < this.ndim; d++) {
      const origin = coords[d] * this.innerShape[d];
      const a = Math.max(lo[d], origin);
      const b = Math.min(hi[d], origin + this.innerShape[d]);
      srcAxes.push({ start: a - origin, step: 1, count: b - a });
      dstAxes.push({ start: a - lo[d], step: 1, count: b - a });
    }
    copyStrided(chunk, 0, srcAxes, this.innerStrides, out, 0, dstAxes, outStrides, this.width);
  }

  /** Copies inner chunk `coords` out of a whole shard (strides `shardStrides`) into `out`. */
  extract(
    shard: DataArray,
    shardStrides: readonly number[],
    coords: readonly number[],
    out: DataArray,
  ): void {
    const srcAxes: Axis[] = coords.map((c, d) => ({
      start: c * this.innerShape[d],
      step: 1,
      count: this.innerShape[d],
    }));
    const dstAxes: Axis[] = this.innerShape.map((count) => ({ start: 0, step: 1, count }));
    copyStrided(shard, 0, srcAxes, shardStrides, out, 0, dstAxes, this.innerStrides, this.width);
  }
}

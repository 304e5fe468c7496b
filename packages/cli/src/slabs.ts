/**
 * Cutting a selection into slabs for streaming reads: consecutive pieces of
 * its C-order output, each read with core's public `get` and written out
 * before the next is read, so that a selection of any size passes through a
 * bounded amount of memory.
 *
 * A slab fixes the leading output dimensions to single positions, takes a run
 * of positions along one dimension and everything after it. The run follows
 * chunk boundaries (whole chunk rows) when a chunk row fits the budget, and is
 * cut smaller otherwise.
 *
 * @module
 */
import { type DimSelection, type Selection, Slice } from "@zarr/core";
import type { NormalizedSelection } from "@zarr/core/internal";

/** One slab: the selection to read, and its element count. */
export interface Slab {
  readonly selection: Selection;
  readonly elements: number;
}

/** The element count of `shape` exactly (BigInt: shapes may multiply past 2^53). */
export function exactCount(shape: readonly number[]): bigint {
  let n = 1n;
  for (const s of shape) n *= BigInt(s);
  return n;
}

/** A slice over positions [from, to) (to > from) of a normalized slice dimension. */
function subSlice(start: number, step: number, from: number, to: number): Slice {
  const first = start + from * step;
  const last = start + (to - 1) * step;
  // With a negative step, the stop one past 0 is -1, which a slice would read as "the end".
  const stop = step > 0 ? last + 1 : last - 1 >= 0 ? last - 1 : null;
  return new Slice(first, stop, step);
}

/** Chunks a slab touches at most by default (core plans a read per chunk, and holds the plan). */
export const MAX_SLAB_CHUNKS = 4096;

/**
 * The slabs of `sel` (normalized against the array's shape), each of at most
 * `budget` elements and, about, `maxChunks` chunks (the chunks of a row of
 * the last dimension are never split). `chunkShape` is the array's (inner)
 * chunk shape.
 */
export function* slabs(
  sel: NormalizedSelection,
  chunkShape: readonly number[],
  budget: number,
  maxChunks = MAX_SLAB_CHUNKS,
): Generator<Slab> {
  const outShape = sel.shape;
  if (outShape.some((n) => n === 0)) return;
  // Output dimension j reads array dimension outDims[j].
  const outDims: number[] = [];
  sel.dims.forEach((d, i) => {
    if (d.kind !== "int") outDims.push(i);
  });
  const m = outShape.length;
  if (m === 0) {
    yield { selection: sel.dims.map((d) => (d.kind === "int" ? d.index : 0)), elements: 1 };
    return;
  }
  // Selected positions per chunk along each output dimension (1 for index arrays, whose
  // positions may each be in another chunk), and chunks along the whole dimension.
  const perChunk = outDims.map((d) => {
    const nd = sel.dims[d];
    return nd.kind === "slice" ? Math.max(1, Math.floor(chunkShape[d] / Math.abs(nd.step))) : 1;
  });
  const chunksAlong = outShape.map(
    (n, j) => Math.ceil(n / perChunk[j]) + (perChunk[j] > 1 ? 1 : 0),
  );
  // Elements and chunks after dimension j; the first dimension whose rows fit both bounds.
  const after: number[] = new Array(m);
  const chunksAfter: number[] = new Array(m);
  after[m - 1] = 1;
  chunksAfter[m - 1] = 1;
  for (let j = m - 2; j >= 0; j--) {
    after[j] = after[j + 1] * outShape[j + 1];
    chunksAfter[j] = chunksAfter[j + 1] * chunksAlong[j + 1];
  }
  let k = 0;
  while (after[k] > budget || chunksAfter[k] > maxChunks) k++;
  const chunkRows = Math.max(1, Math.floor(maxChunks / chunksAfter[k]));
  let rows = Math.max(1, Math.min(Math.floor(budget / after[k]), chunkRows * perChunk[k]));
  const splitDim = sel.dims[outDims[k]];
  const count = outShape[k];
  // Whole chunk rows along a unit-step slice when they fit.
  const c = chunkShape[outDims[k]] ?? 1;
  const aligned = splitDim.kind === "slice" && splitDim.step === 1 && rows >= c;
  if (aligned) rows = Math.floor(rows / c) * c;
  const base = splitDim.kind === "slice" ? splitDim.start : 0;

  /** Output dimension j: one position (a dropped dimension), or positions [from, to). */
  const at = (j: number, position: number): number => {
    const d = sel.dims[outDims[j]];
    return d.kind === "points"
      ? d.indices[position]
      : d.kind === "slice"
        ? d.start + position * d.step
        : d.index;
  };
  const run = (j: number, from: number, to: number): DimSelection => {
    const d = sel.dims[outDims[j]];
    if (d.kind === "points") return d.indices.subarray(from, to);
    if (d.kind === "slice") return subSlice(d.start, d.step, from, to);
    return d.index;
  };

  const lead = new Array<number>(k).fill(0);
  while (true) {
    for (let r0 = 0; r0 < count; ) {
      let r1 = Math.min(count, r0 + rows);
      if (aligned) {
        // End on a chunk boundary of the array dimension.
        const end = Math.floor((base + r1) / c) * c - base;
        if (end > r0 && r1 < count) r1 = end;
      }
      const selection: DimSelection[] = [];
      for (let d = 0, j = 0; d < sel.dims.length; d++) {
        const nd = sel.dims[d];
        if (nd.kind === "int") {
          selection.push(nd.index);
          continue;
        }
        selection.push(j < k ? at(j, lead[j]) : j === k ? run(j, r0, r1) : run(j, 0, outShape[j]));
        j++;
      }
      yield { selection, elements: (r1 - r0) * after[k] };
      r0 = r1;
    }
    // The next position of the leading dimensions (C order).
    let j = k - 1;
    while (j >= 0 && ++lead[j] === outShape[j]) lead[j--] = 0;
    if (j < 0) return;
  }
}

/**
 * Projects a normalized selection onto a regular chunk grid: which chunks it
 * touches, what each one contributes and where that lands in the output.
 *
 * @module
 */
import { IndexError } from "../errors.js";
import type { Axis, ChunkProjection, NormalizedDim, NormalizedSelection } from "./types.js";

/** What one dimension of the selection contributes within one chunk index. */
interface DimPiece {
  readonly chunk: number;
  /** Chunk-local integer (int dims) or chunk-local positions. */
  readonly sel: number | Axis;
  /** Output positions; `null` for int dims (dropped from the output). */
  readonly out: Axis | null;
  /** Every in-bounds position of this chunk along this dimension is selected. */
  readonly covers: boolean;
}

/**
 * Yields one {@link ChunkProjection} per chunk holding at least one selected
 * element, in C order of chunk coordinates. Work is proportional to the number
 * of chunks touched (plus the number of index-array entries), never to the
 * size of the chunk grid.
 */
export function projectChunks(
  sel: NormalizedSelection,
  arrayShape: readonly number[],
  chunkShape: readonly number[],
): Iterable<ChunkProjection> {
  const ndim = arrayShape.length;
  if (chunkShape.length !== ndim || sel.dims.length !== ndim) {
    throw new IndexError(
      `chunk shape [${chunkShape.join(", ")}] / selection of ${sel.dims.length} dimensions do not match array shape [${arrayShape.join(", ")}]`,
    );
  }
  for (let d = 0; d < ndim; d++) {
    const c = chunkShape[d];
    if (!Number.isSafeInteger(c) || c < 1) {
      throw new IndexError(`chunk shape [${chunkShape.join(", ")}]: dimension ${d} must be >= 1`);
    }
  }
  if (sel.shape.includes(0)) return [];
  const pieces: DimPiece[][] = [];
  for (let d = 0; d < ndim; d++) {
    const p = dimPieces(sel.dims[d], arrayShape[d], chunkShape[d]);
    if (p.length === 0) return [];
    pieces.push(p);
  }
  return product(pieces);
}

function* product(pieces: readonly DimPiece[][]): Generator<ChunkProjection> {
  const ndim = pieces.length;
  const ctr = new Array<number>(ndim).fill(0);
  while (true) {
    const chunkCoords: number[] = new Array(ndim);
    const chunkSel: (number | Axis)[] = new Array(ndim);
    const outAxes: Axis[] = [];
    let complete = true;
    for (let d = 0; d < ndim; d++) {
      const p = pieces[d][ctr[d]];
      chunkCoords[d] = p.chunk;
      chunkSel[d] = p.sel;
      if (p.out !== null) outAxes.push(p.out);
      complete &&= p.covers;
    }
    yield { chunkCoords, chunkSel, outAxes, complete };
    let d = ndim - 1;
    for (; d >= 0; d--) {
      if (++ctr[d] < pieces[d].length) break;
      ctr[d] = 0;
    }
    if (d < 0) return;
  }
}

/** In-bounds extent of chunk `c` along a dimension. */
function extent(c: number, len: number, cs: number): number {
  return Math.min(cs, len - c * cs);
}

function dimPieces(dim: NormalizedDim, len: number, cs: number): DimPiece[] {
  switch (dim.kind) {
    case "int": {
      const c = Math.floor(dim.index / cs);
      return [{ chunk: c, sel: dim.index - c * cs, out: null, covers: extent(c, len, cs) === 1 }];
    }
    case "slice":
      return slicePieces(dim.start, dim.step, dim.count, len, cs);
    case "points":
      return pointPieces(dim.indices, len, cs);
  }
}

/** Arithmetic split of a progression: one iteration per chunk touched. */
function slicePieces(
  start: number,
  step: number,
  count: number,
  len: number,
  cs: number,
): DimPiece[] {
  const out: DimPiece[] = [];
  let i = start;
  let k = 0;
  while (k < count) {
    const c = Math.floor(i / cs);
    const lo = c * cs;
    // Elements of the progression that stay inside this chunk.
    const room = step > 0 ? Math.floor((lo + cs - 1 - i) / step) : Math.floor((i - lo) / -step);
    const n = Math.min(room + 1, count - k);
    const ext = extent(c, len, cs);
    out.push({
      chunk: c,
      sel: { start: i - lo, step, count: n },
      out: { start: k, step: 1, count: n },
      covers: n === ext && (step === 1 || step === -1 || n === 1),
    });
    k += n;
    i += n * step;
  }
  if (step < 0) out.reverse();
  return out;
}

/** Groups explicit indices by chunk, keeping their original order within a chunk. */
function pointPieces(indices: Int32Array, len: number, cs: number): DimPiece[] {
  const n = indices.length;
  if (n === 0) return [];
  let sorted = true;
  for (let i = 1; i < n; i++) {
    if (indices[i] < indices[i - 1]) {
      sorted = false;
      break;
    }
  }
  let order: Int32Array | null = null;
  if (!sorted) {
    // Stable by chunk: ties keep their output order.
    const o = new Int32Array(n);
    for (let i = 0; i < n; i++) o[i] = i;
    const chunkOf = new Float64Array(n);
    for (let i = 0; i < n; i++) chunkOf[i] = Math.floor(indices[i] / cs);
    o.sort((a, b) => chunkOf[a] - chunkOf[b] || a - b);
    order = o;
  }
  const pieces: DimPiece[] = [];
  let g = 0;
  while (g < n) {
    const c = Math.floor(indices[order ? order[g] : g] / cs);
    let e = g + 1;
    while (e < n && Math.floor(indices[order ? order[e] : e] / cs) === c) e++;
    const m = e - g;
    const lo = c * cs;
    const local = new Int32Array(m);
    const pos = new Int32Array(m);
    for (let j = 0; j < m; j++) {
      const o = order ? order[g + j] : g + j;
      local[j] = indices[o] - lo;
      pos[j] = o;
    }
    const ext = extent(c, len, cs);
    pieces.push({
      chunk: c,
      sel: compactAxis(local),
      out: compactAxis(pos),
      covers: m >= ext && coversAll(local, ext),
    });
    g = e;
  }
  return pieces;
}

/** An arithmetic progression when the positions form one, else the explicit list. */
function compactAxis(p: Int32Array): Axis {
  const m = p.length;
  if (m === 1) return { start: p[0], step: 1, count: 1 };
  const step = p[1] - p[0];
  if (step === 0) return { indices: p };
  for (let j = 2; j < m; j++) if (p[j] - p[j - 1] !== step) return { indices: p };
  return { start: p[0], step, count: m };
}

function coversAll(local: Int32Array, ext: number): boolean {
  const seen = new Uint8Array(ext);
  let distinct = 0;
  for (let j = 0; j < local.length; j++) {
    const v = local[j];
    if (seen[v] === 0) {
      seen[v] = 1;
      distinct++;
    }
  }
  return distinct === ext;
}

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
  // Slices are split lazily (a slice may cross 2^53 chunks); explicit indices and
  // integers are grouped up front (their size is the caller's own arrays).
  const pieces: (() => Iterable<DimPiece>)[] = [];
  for (let d = 0; d < ndim; d++) {
    const dim = sel.dims[d];
    if (dim.kind === "slice") {
      const { start, step, count } = dim;
      pieces.push(() => slicePieces(start, step, count, arrayShape[d], chunkShape[d]));
    } else {
      const p = dimPieces(dim, arrayShape[d], chunkShape[d]);
      if (p.length === 0) return [];
      pieces.push(() => p);
    }
  }
  return { [Symbol.iterator]: () => product(pieces) };
}

/** Every combination of one piece per dimension, in C order, without holding any dimension's pieces. */
function* product(pieces: readonly (() => Iterable<DimPiece>)[]): Generator<ChunkProjection> {
  const ndim = pieces.length;
  const chosen: DimPiece[] = new Array(ndim);
  function* from(d: number): Generator<ChunkProjection> {
    if (d === ndim) {
      const chunkCoords: number[] = new Array(ndim);
      const chunkSel: (number | Axis)[] = new Array(ndim);
      const outAxes: Axis[] = [];
      let complete = true;
      for (let e = 0; e < ndim; e++) {
        const p = chosen[e];
        chunkCoords[e] = p.chunk;
        chunkSel[e] = p.sel;
        if (p.out !== null) outAxes.push(p.out);
        complete &&= p.covers;
      }
      yield { chunkCoords, chunkSel, outAxes, complete };
      return;
    }
    for (const p of pieces[d]()) {
      chosen[d] = p;
      yield* from(d + 1);
    }
  }
  yield* from(0);
}

/** In-bounds extent of chunk `c` along a dimension. */
function extent(c: number, len: number, cs: number): number {
  return Math.min(cs, len - c * cs);
}

function dimPieces(
  dim: Exclude<NormalizedDim, { kind: "slice" }>,
  len: number,
  cs: number,
): DimPiece[] {
  if (dim.kind === "int") {
    const c = Math.floor(dim.index / cs);
    return [{ chunk: c, sel: dim.index - c * cs, out: null, covers: extent(c, len, cs) === 1 }];
  }
  return pointPieces(dim.indices, len, cs);
}

/**
 * Arithmetic split of a progression: one piece per chunk touched, in
 * increasing chunk order (a negative step's pieces are produced from its end,
 * with output positions counted back from it).
 */
function* slicePieces(
  start: number,
  step: number,
  count: number,
  len: number,
  cs: number,
): Generator<DimPiece> {
  if (step < 0) {
    // Walk the same progression from its last element upwards, so chunks come in
    // increasing order; output positions count down from the end.
    const last = start + (count - 1) * step;
    for (const p of slicePieces(last, -step, count, len, cs)) {
      const sel = p.sel as Axis & { start: number; count: number };
      const n = sel.count;
      yield {
        chunk: p.chunk,
        sel: { start: sel.start + (n - 1) * -step, step, count: n },
        out: { start: count - 1 - (p.out as { start: number }).start - (n - 1), step: 1, count: n },
        covers: p.covers,
      };
    }
    return;
  }
  let i = start;
  let k = 0;
  while (k < count) {
    const c = Math.floor(i / cs);
    const lo = c * cs;
    // Elements of the progression that stay inside this chunk.
    const room = Math.floor((lo + cs - 1 - i) / step);
    const n = Math.min(room + 1, count - k);
    const ext = extent(c, len, cs);
    yield {
      chunk: c,
      sel: { start: i - lo, step, count: n },
      out: { start: k, step: 1, count: n },
      covers: n === ext && (step === 1 || n === 1),
    };
    k += n;
    i += n * step;
  }
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

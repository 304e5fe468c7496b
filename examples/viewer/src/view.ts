/**
 * The viewer's state (which 2D plane, which window of it) and the array
 * selection and chunk grid coordinates that state covers. Pure functions, so
 * they are tested in Node and reused by the browser test.
 *
 * @module
 */
import { type DimSelection, slice } from "@zarr/core";

/** Which plane of the array is shown, and which window of it. */
export interface ViewState {
  /** The array dimension drawn top to bottom. */
  rowAxis: number;
  /** The array dimension drawn left to right. */
  colAxis: number;
  /** An index for every dimension; only the non-displayed ones are used. */
  indices: number[];
  /** First row and column of the window. */
  rowStart: number;
  colStart: number;
  /** Largest window drawn, in elements (the canvas size). */
  maxRows: number;
  maxCols: number;
}

/** The window actually shown: start and length along the row and column axes. */
export interface ViewWindow {
  rowStart: number;
  rows: number;
  colStart: number;
  cols: number;
}

/** The window of `state` clamped to `shape`. */
export function viewWindow(shape: readonly number[], state: ViewState): ViewWindow {
  const rowsTotal = shape[state.rowAxis]!;
  const colsTotal = shape[state.colAxis]!;
  const rows = Math.min(state.maxRows, rowsTotal);
  const cols = Math.min(state.maxCols, colsTotal);
  const clamp = (start: number, length: number, total: number) =>
    Math.max(0, Math.min(Math.trunc(start), total - length));
  return {
    rowStart: clamp(state.rowStart, rows, rowsTotal),
    rows,
    colStart: clamp(state.colStart, cols, colsTotal),
    cols,
  };
}

/** The selection that reads exactly the window: slices on the two axes, indices elsewhere. */
export function viewSelection(shape: readonly number[], state: ViewState): DimSelection[] {
  const w = viewWindow(shape, state);
  return shape.map((size, dim) => {
    if (dim === state.rowAxis) return slice(w.rowStart, w.rowStart + w.rows);
    if (dim === state.colAxis) return slice(w.colStart, w.colStart + w.cols);
    return Math.max(0, Math.min(size - 1, Math.trunc(state.indices[dim] ?? 0)));
  });
}

/** Grid coordinates of every chunk the window touches (regular chunk grid), row-major. */
export function chunksInView(
  shape: readonly number[],
  chunkShape: readonly number[],
  state: ViewState,
): number[][] {
  const w = viewWindow(shape, state);
  const ranges = shape.map((size, dim): [number, number] => {
    const c = chunkShape[dim]!;
    if (dim === state.rowAxis)
      return [Math.floor(w.rowStart / c), Math.floor((w.rowStart + w.rows - 1) / c)];
    if (dim === state.colAxis)
      return [Math.floor(w.colStart / c), Math.floor((w.colStart + w.cols - 1) / c)];
    const i = Math.max(0, Math.min(size - 1, Math.trunc(state.indices[dim] ?? 0)));
    return [Math.floor(i / c), Math.floor(i / c)];
  });
  let coords: number[][] = [[]];
  for (const [first, last] of ranges) {
    const next: number[][] = [];
    for (const prefix of coords) for (let i = first; i <= last; i++) next.push([...prefix, i]);
    coords = next;
  }
  return coords;
}

/** The initial state for an array: the last two dimensions, at index 0 elsewhere. */
export function initialState(
  shape: readonly number[],
  maxRows: number,
  maxCols: number,
): ViewState {
  const n = shape.length;
  return {
    rowAxis: n >= 2 ? n - 2 : 0,
    colAxis: n >= 2 ? n - 1 : 0,
    indices: shape.map(() => 0),
    rowStart: 0,
    colStart: 0,
    maxRows,
    maxCols,
  };
}

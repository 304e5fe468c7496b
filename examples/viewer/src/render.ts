/**
 * Turns the values of a 2D window into RGBA pixels through a colour table.
 *
 * @module
 */
import type { NDArray } from "@zarr/core";
import { type ColourTable, colourIndex } from "./colormap.js";

/** Element `i` of `array` as a number: NaN for values with no numeric reading. */
export function numberAt(array: NDArray, i: number): number {
  const { data, dataType } = array;
  if (dataType.width === 1 && (data instanceof Float64Array || data instanceof Float32Array)) {
    return data[i]!;
  }
  const v = dataType.getScalar(data, i);
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "boolean") return v ? 1 : 0;
  if (Array.isArray(v)) return Math.hypot(v[0]!, v[1]!); // complex: magnitude
  return Number.NaN;
}

/**
 * The 2D window of a read result: the result has the array's dimension order,
 * so when the row axis comes after the column axis the window is transposed.
 */
export interface Plane {
  array: NDArray;
  rows: number;
  cols: number;
  /** Element strides of a step down a row and along a column. */
  rowStride: number;
  colStride: number;
}

/** The plane of a read result whose two dimensions are the displayed axes. */
export function planeOf(array: NDArray, rowAxis: number, colAxis: number): Plane {
  if (array.shape.length !== 2) throw new Error(`expected a 2D read, got shape [${array.shape}]`);
  const [rowDim, colDim] = rowAxis < colAxis ? [0, 1] : [1, 0];
  return {
    array,
    rows: array.shape[rowDim]!,
    cols: array.shape[colDim]!,
    rowStride: array.stride[rowDim]!,
    colStride: array.stride[colDim]!,
  };
}

/** The value at (row, col) of `plane`. */
export function planeValue(plane: Plane, row: number, col: number): number {
  return numberAt(plane.array, row * plane.rowStride + col * plane.colStride);
}

/** Smallest and largest non-NaN value of `plane` ([0, 0] when all are NaN). */
export function planeRange(plane: Plane): [number, number] {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (let r = 0; r < plane.rows; r++) {
    for (let c = 0; c < plane.cols; c++) {
      const v = planeValue(plane, r, c);
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  return lo <= hi ? [lo, hi] : [0, 0];
}

/** Writes `plane` as RGBA into `pixels` (rows * cols * 4 bytes); NaN is transparent. */
export function paint(
  plane: Plane,
  pixels: Uint8ClampedArray,
  lo: number,
  hi: number,
  table: ColourTable,
): void {
  let p = 0;
  for (let r = 0; r < plane.rows; r++) {
    for (let c = 0; c < plane.cols; c++) {
      const k = colourIndex(planeValue(plane, r, c), lo, hi);
      if (k < 0) {
        pixels[p] = pixels[p + 1] = pixels[p + 2] = pixels[p + 3] = 0;
      } else {
        pixels[p] = table[3 * k]!;
        pixels[p + 1] = table[3 * k + 1]!;
        pixels[p + 2] = table[3 * k + 2]!;
        pixels[p + 3] = 255;
      }
      p += 4;
    }
  }
}

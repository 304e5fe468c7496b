/**
 * Selection types: what users pass to `array.get`/`array.set`, and the
 * normalized form the chunk projection works on.
 *
 * @module
 */

/**
 * A Python-like slice. `null` means "the default" (start: the first element in
 * the direction of `step`, stop: past the last one, step: 1). Bounds out of
 * range are clipped as in Python; negative bounds count from the end. Usually
 * made with {@link slice}.
 *
 * @example
 * ```ts
 * import { Slice, slice } from "@zarr/core";
 * const everyOther = new Slice(null, null, 2); // [::2], the same as slice(null, null, 2)
 * const { data } = await array.get([everyOther, slice(0, 5)]);
 * ```
 */
export class Slice {
  /**
   * Creates a slice; the bounds are checked against an array's shape only when
   * the slice is used (an invalid one then throws an `IndexError`).
   *
   * @param start - The first index, inclusive; negative counts from the end;
   *   `null` for the default.
   * @param stop - The end index, exclusive; negative counts from the end;
   *   `null` for the default.
   * @param step - The stride, a non-zero integer (negative goes backwards);
   *   `null` for 1.
   */
  constructor(
    readonly start: number | null,
    readonly stop: number | null,
    readonly step: number | null,
  ) {}

  /** The Python spelling, e.g. `1:10:2`, `::-1`, `:`. */
  toString(): string {
    const s = (v: number | null) => (v === null ? "" : String(v));
    return this.step === null
      ? `${s(this.start)}:${s(this.stop)}`
      : `${s(this.start)}:${s(this.stop)}:${s(this.step)}`;
  }
}

/**
 * A slice from the start: `slice(5)` is `[:5]`, the first five elements.
 *
 * @param stop - The end index, exclusive; negative counts from the end; `null`
 *   for past the last element.
 * @returns The {@link Slice}.
 *
 * @example
 * ```ts
 * import { slice } from "@zarr/core";
 * const { data, shape } = await array.get([slice(10), null]); // rows 0..9, all columns
 * ```
 */
export function slice(stop: number | null): Slice;
/**
 * A slice as in Python's `start:stop:step`: `slice(1, null, -1)` is `[1::-1]`.
 *
 * @param start - The first index, inclusive; negative counts from the end;
 *   `null` for the first element in the direction of `step`.
 * @param stop - The end index, exclusive; negative counts from the end; `null`
 *   for past the last element in the direction of `step`.
 * @param step - The stride, a non-zero integer (negative goes backwards).
 *   Default: 1.
 * @returns The {@link Slice}; an invalid one throws an `IndexError` when used.
 *
 * @example
 * ```ts
 * import { slice } from "@zarr/core";
 * const { data } = await array.get([slice(0, 100, 10), slice(-5, null)]); // every 10th row, last 5 columns
 * ```
 */
export function slice(start: number | null, stop: number | null, step?: number | null): Slice;
export function slice(a: number | null, b?: number | null, step?: number | null): Slice {
  return b === undefined ? new Slice(null, a, null) : new Slice(a, b, step ?? null);
}

/**
 * The selection along one dimension:
 * - an integer (negative counts from the end; the dimension is dropped from the output),
 * - a {@link Slice},
 * - `null` (the whole dimension),
 * - an integer index array (any order, repeats allowed, negative wrap),
 * - a boolean mask of exactly the dimension's length (selects the `true` positions;
 *   an empty JS array is an empty index array, never a mask).
 *
 * Index arrays select orthogonally: each one applies to its own dimension
 * independently (outer product, like zarr-python's `oindex`), never NumPy's
 * broadcasting "advanced indexing".
 */
export type DimSelection =
  | number
  | Slice
  | null
  | readonly number[]
  | readonly boolean[]
  | Int32Array
  | Uint32Array
  | BigInt64Array;

/**
 * Stands for as many whole dimensions as needed (NumPy's `...`); at most one
 * per selection.
 *
 * @example
 * ```ts
 * import { ELLIPSIS } from "@zarr/core";
 * const { data } = await array.get([ELLIPSIS, 0]); // the first element of the last dimension
 * ```
 */
export const ELLIPSIS = "...";

/**
 * A selection of an n-dimensional array.
 *
 * - `undefined`, `null`, `"..."` and `[]`: everything.
 * - A single {@link DimSelection} (not a JS array): applies to dimension 0,
 *   remaining dimensions are whole.
 * - A JS array is a per-dimension list (`[0, slice(2, 5), null, [1, 3]]`); at most
 *   one {@link ELLIPSIS}; missing trailing entries select whole dimensions.
 *
 * Ambiguity rule: a top-level JS array of numbers is a per-dimension list of
 * integers (`[1, 2]` is element (1, 2)), not an index array. To pass an index
 * array for dimension 0, wrap it: `[[1, 2, 3]]`, or use an `Int32Array`. A
 * top-level array made only of booleans is a mask for dimension 0.
 *
 * @example
 * ```ts
 * import { type Selection, slice } from "@zarr/core";
 * const row: Selection = [3, null];                   // row 3 (the first dimension is dropped)
 * const block: Selection = [slice(0, 10), slice(5, 15)];
 * const picked: Selection = [[0, 4, 9], null];         // rows 0, 4 and 9
 * const { data, shape } = await array.get(block);
 * ```
 */
export type Selection =
  | undefined
  | null
  | DimSelection
  | typeof ELLIPSIS
  | readonly (DimSelection | typeof ELLIPSIS)[];

/**
 * Positions along one axis: an arithmetic progression `start + k * step` for
 * `k < count` (step may be negative or, for reads, 0), or explicit positions.
 */
export type Axis =
  | { readonly start: number; readonly step: number; readonly count: number }
  | { readonly indices: Int32Array };

/** One dimension of a {@link NormalizedSelection}. */
export type NormalizedDim =
  | { readonly kind: "int"; readonly index: number }
  | {
      readonly kind: "slice";
      readonly start: number;
      readonly step: number;
      readonly count: number;
    }
  | { readonly kind: "points"; readonly indices: Int32Array };

/** A selection checked against an array shape. */
export interface NormalizedSelection {
  /** One entry per array dimension, all indices in bounds. */
  readonly dims: readonly NormalizedDim[];
  /** The output shape: one entry per non-`int` dimension. */
  readonly shape: readonly number[];
}

/** What one chunk contributes to a selection. */
export interface ChunkProjection {
  readonly chunkCoords: readonly number[];
  /** Per array dimension: the chunk-local integer index (`int` dims) or the chunk-local {@link Axis}. */
  readonly chunkSel: readonly (number | Axis)[];
  /** Per output dimension: the positions in the output. */
  readonly outAxes: readonly Axis[];
  /**
   * True when the selection covers every element of the chunk that lies inside
   * the array bounds (a write can skip read-modify-write).
   */
  readonly complete: boolean;
}

/** Number of positions of an {@link Axis}. */
export function axisCount(axis: Axis): number {
  return "indices" in axis ? axis.indices.length : axis.count;
}

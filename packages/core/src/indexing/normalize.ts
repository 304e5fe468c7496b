/**
 * Checks a user selection against an array shape: NumPy basic-indexing
 * semantics for integers, slices and the ellipsis, orthogonal semantics for
 * index arrays and boolean masks.
 *
 * @module
 */
import { IndexError, UnsupportedError } from "../errors.js";
import {
  type DimSelection,
  ELLIPSIS,
  type NormalizedDim,
  type NormalizedSelection,
  type Selection,
  Slice,
} from "./types.js";

/** Largest index an `Int32Array` of positions can hold. */
const MAX_POINT_INDEX = 0x7fffffff;

const FULL: DimSelection = null;

/**
 * Validates `selection` against `shape` and resolves it into one
 * {@link NormalizedDim} per dimension plus the output shape.
 *
 * @param path - the array path, named in errors.
 * @throws IndexError for out-of-bounds integers or index array entries, a zero
 *   step, more than one ellipsis, too many entries, non-integers, or a boolean
 *   mask whose length differs from the dimension.
 */
export function normalizeSelection(
  selection: Selection,
  shape: readonly number[],
  path?: string,
): NormalizedSelection {
  const items = toItems(selection, path);
  const ndim = shape.length;
  let ellipsisAt = -1;
  for (let i = 0; i < items.length; i++) {
    if (items[i] === ELLIPSIS) {
      if (ellipsisAt >= 0) {
        throw new IndexError(`${where(path)}a selection can contain only one ellipsis`, { path });
      }
      ellipsisAt = i;
    }
  }
  const explicit = ellipsisAt >= 0 ? items.length - 1 : items.length;
  if (explicit > ndim) {
    throw new IndexError(
      `${where(path)}too many indices: the selection has ${explicit} entries but the array has ${ndim} dimension${ndim === 1 ? "" : "s"}${
        items.every((v) => typeof v === "number")
          ? " (a list of numbers selects one integer per dimension; wrap an index array: [[i, j, ...]])"
          : ""
      }`,
      { path },
    );
  }
  const perDim: DimSelection[] = [];
  for (let i = 0; i < items.length; i++) {
    if (i === ellipsisAt) {
      for (let k = 0; k < ndim - explicit; k++) perDim.push(FULL);
    } else {
      perDim.push(items[i] as DimSelection);
    }
  }
  while (perDim.length < ndim) perDim.push(FULL);

  const dims: NormalizedDim[] = [];
  const outShape: number[] = [];
  for (let d = 0; d < ndim; d++) {
    const nd = normalizeDim(perDim[d], shape[d], d, path);
    dims.push(nd);
    if (nd.kind === "slice") outShape.push(nd.count);
    else if (nd.kind === "points") outShape.push(nd.indices.length);
  }
  return { dims, shape: outShape };
}

function where(path: string | undefined): string {
  return path === undefined ? "" : `array "${path}": `;
}

function isIndexArray(v: unknown): boolean {
  return (
    Array.isArray(v) ||
    v instanceof Int32Array ||
    v instanceof Uint32Array ||
    v instanceof BigInt64Array
  );
}

/**
 * A {@link Slice}, or a plain `{start, stop, step}` object (so that slices made
 * by another copy of this package, or by hand, work too).
 */
function isSlice(v: unknown): v is Slice {
  if (v instanceof Slice) return true;
  if (typeof v !== "object" || v === null || Array.isArray(v) || ArrayBuffer.isView(v)) {
    return false;
  }
  const o = v as Record<string, unknown>;
  const ok = (x: unknown) => x === null || typeof x === "number";
  return ok(o.start) && ok(o.stop) && ok(o.step);
}

/** Splits a selection into its per-dimension list (before ellipsis expansion). */
function toItems(selection: Selection, path: string | undefined): readonly unknown[] {
  if (selection === undefined || selection === null) return [];
  if (!Array.isArray(selection)) return [selection];
  const list = selection as readonly unknown[];
  // A top-level array of booleans only is a mask for dimension 0.
  if (list.length > 0 && list.every((v) => typeof v === "boolean")) return [list];
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (!(v === null || v === ELLIPSIS || typeof v === "number" || isSlice(v) || isIndexArray(v))) {
      throw new IndexError(
        `${where(path)}selection entry ${i} is not an integer, slice, null, "...", index array or boolean mask: ${describe(v)}`,
        { path },
      );
    }
  }
  return list;
}

function describe(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "object" && v !== null) return v.constructor?.name ?? "object";
  return String(v);
}

function normalizeDim(
  sel: unknown,
  len: number,
  d: number,
  path: string | undefined,
): NormalizedDim {
  if (sel === null || sel === undefined) return { kind: "slice", start: 0, step: 1, count: len };
  if (typeof sel === "number") {
    return { kind: "int", index: wrapIndex(sel, len, d, path, "index") };
  }
  if (isSlice(sel)) return normalizeSlice(sel, len, d, path);
  if (isIndexArray(sel)) return normalizeArray(sel as ArrayLike<unknown>, len, d, path);
  throw new IndexError(
    `${where(path)}selection for dimension ${d} is not an integer, slice, null, index array or boolean mask: ${describe(sel)}`,
    { path },
  );
}

function wrapIndex(
  v: number,
  len: number,
  d: number,
  path: string | undefined,
  what: string,
): number {
  if (!Number.isInteger(v)) {
    throw new IndexError(`${where(path)}${what} ${v} for dimension ${d} is not an integer`, {
      path,
    });
  }
  const i = v < 0 ? v + len : v;
  if (i < 0 || i >= len) {
    throw new IndexError(
      `${where(path)}${what} ${v} is out of bounds for dimension ${d} of length ${len}`,
      { path },
    );
  }
  return i;
}

function checkBound(v: number | null, name: string, d: number, path: string | undefined): void {
  if (v !== null && !Number.isInteger(v) && v !== Infinity && v !== -Infinity) {
    throw new IndexError(
      `${where(path)}slice ${name} ${v} for dimension ${d} is not an integer or null`,
      { path },
    );
  }
}

/** Python's slice.indices + length, as in CPython's PySlice_AdjustIndices. */
function normalizeSlice(s: Slice, len: number, d: number, path: string | undefined): NormalizedDim {
  checkBound(s.start, "start", d, path);
  checkBound(s.stop, "stop", d, path);
  const step = s.step ?? 1;
  if (!Number.isInteger(step)) {
    throw new IndexError(`${where(path)}slice step ${step} for dimension ${d} is not an integer`, {
      path,
    });
  }
  if (step === 0) {
    throw new IndexError(`${where(path)}slice step cannot be zero (dimension ${d})`, { path });
  }
  const start = adjust(s.start, step < 0 ? len - 1 : 0, len, step);
  const stop = adjust(s.stop, step < 0 ? -1 : len, len, step);
  let count = 0;
  if (step > 0) {
    if (start < stop) count = Math.floor((stop - start - 1) / step) + 1;
  } else if (stop < start) {
    count = Math.floor((start - stop - 1) / -step) + 1;
  }
  return count === 0
    ? { kind: "slice", start: 0, step, count: 0 }
    : { kind: "slice", start, step, count };
}

function adjust(v: number | null, dflt: number, len: number, step: number): number {
  if (v === null) return dflt;
  if (v < 0) {
    v += len;
    if (v < 0) v = step < 0 ? -1 : 0;
  } else if (v >= len) {
    v = step < 0 ? len - 1 : len;
  }
  return v;
}

function normalizeArray(
  arr: ArrayLike<unknown>,
  len: number,
  d: number,
  path: string | undefined,
): NormalizedDim {
  const n = arr.length;
  if (n > 0 && typeof arr[0] === "boolean") {
    if (n !== len) {
      throw new IndexError(
        `${where(path)}boolean mask of length ${n} does not match dimension ${d} of length ${len}`,
        { path },
      );
    }
    let trues = 0;
    for (let i = 0; i < n; i++) {
      const v = arr[i];
      if (typeof v !== "boolean") throw mixed(d, path);
      if (v) trues++;
    }
    if (len - 1 > MAX_POINT_INDEX) throw tooLarge(d, len, path);
    const indices = new Int32Array(trues);
    for (let i = 0, k = 0; i < n; i++) if (arr[i]) indices[k++] = i;
    return { kind: "points", indices };
  }
  const indices = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let v = arr[i];
    if (typeof v === "bigint") {
      // Beyond ±2^53 a bigint is out of bounds for any dimension anyway.
      v = v > 2n ** 53n || v < -(2n ** 53n) ? Number.POSITIVE_INFINITY : Number(v);
    }
    if (typeof v !== "number") throw mixed(d, path);
    const w = v === Number.POSITIVE_INFINITY ? v : wrapIndex(v, len, d, path, "index array entry");
    if (w > MAX_POINT_INDEX) {
      if (w === Number.POSITIVE_INFINITY) {
        throw new IndexError(
          `${where(path)}index array entry ${String(arr[i])} is out of bounds for dimension ${d} of length ${len}`,
          { path },
        );
      }
      throw tooLarge(d, len, path);
    }
    indices[i] = w;
  }
  return { kind: "points", indices };
}

function mixed(d: number, path: string | undefined): IndexError {
  return new IndexError(
    `${where(path)}index array for dimension ${d} mixes types: use only integers or only booleans`,
    { path },
  );
}

function tooLarge(d: number, len: number, path: string | undefined): UnsupportedError {
  return new UnsupportedError(
    `${where(path)}index arrays address at most 2^31 elements per dimension; dimension ${d} has ${len}`,
    { path },
  );
}

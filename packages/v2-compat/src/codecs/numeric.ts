/**
 * Element conversions with numpy's semantics, shared by the numeric filters:
 * casts (`astype`: truncation toward zero into integers, wrap-around between
 * integers, rounding into narrower floats) and round-half-to-even (`np.around`).
 *
 * @module
 */
import { type DataArray, type DataType, roundToFloat16 } from "@zarr/core";

/** An element of a numeric data array. */
export type Num = number | bigint;

/** numpy's `around`: rounds half to even. */
export function roundHalfEven(x: number): number {
  if (!Number.isFinite(x)) return x;
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** Is the data type's element a bigint (int64/uint64)? */
export function isBig(dt: DataType): boolean {
  return dt.slotBytes === 8 && (dt.kind === "int" || dt.kind === "uint");
}

/** Rounds `x` to the precision of the float type `dt` (identity otherwise). */
export function toPrecision(x: number, dt: DataType): number {
  if (dt.kind !== "float") return x;
  if (dt.itemSize === 4) return Math.fround(x);
  if (dt.itemSize === 2) return roundToFloat16(x);
  return x;
}

/** Writes `v` into element `i` of `out` (of type `dt`) with numpy's cast rules. */
export function store(out: DataArray, dt: DataType, i: number, v: Num): void {
  const o = out as unknown as { [i: number]: Num };
  if (isBig(dt)) {
    o[i] = typeof v === "bigint" ? v : Number.isFinite(v) ? BigInt(Math.trunc(v)) : 0n;
  } else if (dt.kind === "bool") {
    o[i] = v === 0 || v === 0n ? 0 : 1;
  } else if (dt.kind === "float") {
    o[i] = toPrecision(Number(v), dt);
  } else if (typeof v === "bigint") {
    // Typed array stores of numbers wrap like C casts for in-range values; take the low bits first.
    o[i] = Number(BigInt.asIntN(32, v));
  } else {
    o[i] = Number.isFinite(v) ? Math.trunc(v) : 0;
  }
}

/** Casts every element of `data` (type `from`) into a new array of type `to`. */
export function cast(data: DataArray, to: DataType, n: number): DataArray {
  const out = to.allocate(n);
  const src = data as unknown as ArrayLike<Num>;
  for (let i = 0; i < n; i++) store(out, to, i, src[i]);
  return out;
}

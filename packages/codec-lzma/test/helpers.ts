// Element values of numeric arrays in the JSON form the interop scripts print
// (numpy's tolist(): ints and floats; 64-bit integers as numbers).
import type { DataType, NDArray } from "@zarr/core";

/** Every element of `a` in C order, as plain numbers. */
export function jsonValues(a: NDArray): unknown[] {
  return Array.from(a.data as ArrayLike<number | bigint>, (v) =>
    typeof v === "bigint" ? Number(v) : v,
  );
}

/** The in-memory data of `values` for the numeric data type `dt`. */
export function fromJsonValues(dt: DataType, values: unknown[]): NDArray["data"] {
  const data = dt.allocate(values.length) as unknown as { [i: number]: number | bigint };
  const big = data instanceof BigInt64Array || data instanceof BigUint64Array;
  values.forEach((v, i) => {
    data[i] = big ? BigInt(v as number) : (v as number);
  });
  return data as unknown as NDArray["data"];
}

import type { NDArray } from "@zarr/core";

/** The values of an NDArray as plain JS values in C order (for comparisons with expected JSON). */
export function toPlain(a: NDArray): unknown[] {
  const n = a.shape.reduce((x, y) => x * y, 1);
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const v = a.dataType.getScalar(a.data, i);
    if (typeof v === "bigint") out.push(Number(v));
    else if (typeof v === "boolean") out.push(v);
    else if (v instanceof Uint8Array) out.push(Array.from(v));
    else out.push(v);
  }
  return out;
}

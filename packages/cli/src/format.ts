/**
 * Text forms of array values for `zarr get --json`: bool → true/false;
 * integers → numbers, or decimal strings beyond ±2^53; floats → numbers (-0
 * as `-0`) with NaN, Infinity, -Infinity as strings; complex → [re, im]; r<N> and bytes →
 * lists of byte values; strings → strings.
 *
 * @module
 */
import type { DataType, NDArray, Scalar } from "@zarr/core";

function floatJson(v: number, single = false): string {
  if (Number.isNaN(v)) return '"NaN"';
  if (v === Number.POSITIVE_INFINITY) return '"Infinity"';
  if (v === Number.NEGATIVE_INFINITY) return '"-Infinity"';
  // JSON's grammar has -0 (and JSON.parse reads it back as -0); JSON.stringify writes 0.
  if (Object.is(v, -0)) return "-0";
  if (single) {
    // The shortest decimal that reads back as the same float32 (as NumPy prints it).
    for (let p = 1; p < 17; p++) {
      const text = v.toPrecision(p);
      if (Math.fround(Number(text)) === v) return JSON.stringify(Number(text));
    }
  }
  return JSON.stringify(v);
}

function bytesJson(b: Uint8Array): string {
  return `[${Array.from(b).join(",")}]`;
}

/** The JSON text of one element. */
export function scalarJson(dataType: DataType, value: Scalar): string {
  if (dataType.toJSONValue) {
    return JSON.stringify(dataType.toJSONValue(value), (_k, v) =>
      typeof v === "bigint" ? v.toString() : v,
    );
  }
  switch (dataType.kind) {
    case "bool":
      return value ? "true" : "false";
    case "int":
    case "uint":
      if (typeof value === "bigint") {
        return value >= -(2n ** 53n) && value <= 2n ** 53n
          ? value.toString()
          : `"${value.toString()}"`;
      }
      return JSON.stringify(value);
    case "float":
      return floatJson(value as number, dataType.itemSize !== null && dataType.itemSize <= 4);
    case "complex": {
      const [re, im] = value as readonly [number, number];
      const single = dataType.itemSize === 8;
      return `[${floatJson(re, single)},${floatJson(im, single)}]`;
    }
    case "raw":
    case "bytes":
      return bytesJson(value as Uint8Array);
    case "string":
      return JSON.stringify(value);
    default:
      if (value instanceof Uint8Array) return bytesJson(value);
      if (typeof value === "bigint") return `"${value.toString()}"`;
      if (typeof value === "number") return floatJson(value);
      return JSON.stringify(value);
  }
}

/** `{"shape": [...], "data": [...]}` with data in C order. */
export function arrayJson(array: NDArray): string {
  const n = array.shape.reduce((a, b) => a * b, 1);
  const parts = new Array<string>(n);
  for (let i = 0; i < n; i++)
    parts[i] = scalarJson(array.dataType, array.dataType.getScalar(array.data, i));
  return `{"shape":${JSON.stringify(array.shape)},"data":[${parts.join(",")}]}`;
}

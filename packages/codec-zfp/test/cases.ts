/** Arrays for the zfp tests: shapes with partial blocks, smooth and rough data, special values. */
import type { ZfpType } from "../src/params.js";

export const SHAPES: readonly (readonly number[])[] = [
  [1],
  [7],
  [16],
  [37],
  [1, 1],
  [5, 7],
  [8, 8],
  [13, 4],
  [3, 5, 6],
  [8, 8, 8],
  [9, 4, 5],
  [4, 4, 4, 4],
  [5, 4, 6, 3],
  [2, 3, 5, 7],
];

export const TYPES: readonly ZfpType[] = ["float32", "float64", "int32", "int64"];

/** numpy dtype strings of the zfp types. */
export const NUMPY: Readonly<Record<ZfpType, string>> = {
  float32: "<f4",
  float64: "<f8",
  int32: "<i4",
  int64: "<i8",
};

export const BYTES: Readonly<Record<ZfpType, number>> = {
  float32: 4,
  float64: 8,
  int32: 4,
  int64: 8,
};

function xorshift(seed: number): () => number {
  let x = seed | 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

export type DataKind = "smooth" | "special" | "rough";
export const KINDS: readonly DataKind[] = ["smooth", "special", "rough"];

const SPECIAL_F = [
  Number.NaN,
  -0,
  0,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  1e-40, // float32 subnormal
  5e-324, // float64 subnormal
  3.4e38,
  -1.7e308,
  1,
  -2.5,
];

/** Raw little-endian bytes of an array of `n` values. */
export function makeData(type: ZfpType, n: number, kind: DataKind, seed: number): Uint8Array {
  const rand = xorshift(seed * 7919 + n);
  const bytes = new Uint8Array(n * BYTES[type]);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < n; i++) {
    const smooth = Math.sin(i / 5) * 100 + Math.cos(i / 3) * 7 + i * 0.25;
    switch (type) {
      case "float32":
      case "float64": {
        let v = smooth;
        if (kind === "rough") v = (rand() - 0.5) * 10 ** Math.floor(rand() * 20 - 10);
        if (kind === "special")
          v = rand() < 0.3 ? SPECIAL_F[Math.floor(rand() * SPECIAL_F.length)]! : smooth;
        if (type === "float32") view.setFloat32(i * 4, v, true);
        else view.setFloat64(i * 8, v, true);
        if (kind === "special" && rand() < 0.05) {
          // A NaN with a payload.
          if (type === "float32")
            view.setUint32(i * 4, 0x7fa00001 | (rand() < 0.5 ? 0x80000000 : 0), true);
          else view.setBigUint64(i * 8, 0xfff4000000000123n, true);
        }
        break;
      }
      case "int32": {
        let v = Math.round(smooth * 1000);
        if (kind === "rough") v = Math.floor(rand() * 4294967296) | 0; // full range: libzfp's arithmetic wraps
        if (kind === "special")
          v = rand() < 0.3 ? [0, -1, 2147483647, -2147483648, 1 << 29][Math.floor(rand() * 5)]! : v;
        view.setInt32(i * 4, v, true);
        break;
      }
      case "int64": {
        let v = BigInt(Math.round(smooth * 1e6));
        if (kind === "rough")
          v = BigInt.asIntN(
            64,
            (BigInt(Math.floor(rand() * 4294967296)) << 32n) |
              BigInt(Math.floor(rand() * 4294967296)),
          );
        if (kind === "special")
          v =
            rand() < 0.3
              ? [0n, -1n, 9223372036854775807n, -9223372036854775808n, 1n << 61n][
                  Math.floor(rand() * 5)
                ]!
              : v;
        view.setBigInt64(i * 8, v, true);
        break;
      }
    }
  }
  return bytes;
}

/** numcodecs ZFPY configurations covering the modes and edge parameters. */
export const ZFPY_CONFIGS: readonly {
  mode: number;
  tolerance?: number;
  rate?: number;
  precision?: number;
}[] = [
  { mode: 4, tolerance: -1 }, // numcodecs' default: reversible
  { mode: 4, tolerance: 1e-3 },
  { mode: 4, tolerance: 0 },
  { mode: 4, tolerance: 0.5 },
  { mode: 4, tolerance: 1e6 },
  { mode: 2, rate: 1 },
  { mode: 2, rate: 4 },
  { mode: 2, rate: 8.5 },
  { mode: 2, rate: 16 },
  { mode: 2, rate: 0.1 },
  { mode: 3, precision: 0 },
  { mode: 3, precision: 1 },
  { mode: 3, precision: 7 },
  { mode: 3, precision: 20 },
  { mode: 3, precision: 64 },
];

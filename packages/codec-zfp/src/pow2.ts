/**
 * Exact powers of two and binary exponents (`ldexp`/`frexp` as libm
 * computes them), without relying on `Math.pow`'s accuracy.
 *
 * @module
 */

const MIN = -1100;
const MAX = 1100;
const TABLE = new Float64Array(MAX - MIN + 1);
{
  let v = 1;
  for (let e = 0; e <= MAX; e++, v *= 2) TABLE[e - MIN] = v;
  v = 1;
  for (let e = 0; e >= MIN; e--, v /= 2) TABLE[e - MIN] = v;
}

/** 2^e as a double: Infinity above 1023, 0 below -1074 (as `ldexp(1, e)`). */
export function pow2(e: number): number {
  if (e > MAX) return Number.POSITIVE_INFINITY;
  if (e < MIN) return 0;
  return TABLE[e - MIN]!;
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
/** Index of the high word of a double in {@link u32} (platform byte order). */
export const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
/** Index of the low word of a double in a two-word view. */
export const LO = 1 - HI;

/**
 * `frexp`'s exponent of a positive double: `e` with `x = m * 2^e`, `0.5 <= m
 * < 1`; 0 for Infinity (as glibc).
 */
export function frexpExponent(x: number): number {
  f64[0] = x;
  let biased = (u32[HI]! >>> 20) & 0x7ff;
  if (biased === 0x7ff) return 0;
  if (biased === 0) {
    f64[0] = x * 2 ** 64; // 2^64: normalizes subnormals exactly
    biased = (u32[HI]! >>> 20) & 0x7ff;
    return biased - 1022 - 64;
  }
  return biased - 1022;
}

/**
 * IEEE 754 binary16 conversions, table-free and on integer bit patterns so that
 * NaN payloads survive (a float32/float64 NaN passed through a JS number may be
 * quieted or canonicalized by the engine).
 *
 * In memory float16 arrays are `Float32Array`s (every binary16 value is exactly a
 * binary32 value); the bytes codec stores binary16.
 *
 * Rounding is round-to-nearest-even, with overflow to ±Infinity, gradual underflow
 * to subnormals and signed zeros. A NaN keeps the top 10 bits of its significand
 * (and its sign); when those are all zero the result is 0x7c01 | sign so that it
 * stays a NaN (numpy does the same).
 *
 * @module
 */

const scratchF64 = new Float64Array(1);
const scratchU32x2 = new Uint32Array(scratchF64.buffer);
const scratchF32 = new Float32Array(1);
const scratchU32 = new Uint32Array(scratchF32.buffer);

/** Converts the bits of a binary32 value to the bits of the nearest binary16 value. */
export function float32BitsToFloat16Bits(f: number): number {
  const sign = (f >>> 16) & 0x8000;
  const exp = (f >>> 23) & 0xff;
  const mant = f & 0x7fffff;
  if (exp === 0xff) {
    if (mant === 0) return sign | 0x7c00;
    return sign | 0x7c00 | (mant >>> 13 || 1);
  }
  const e = exp - 127;
  if (e > 15) return sign | 0x7c00;
  if (e >= -14) {
    // Normal half; a carry out of the mantissa correctly bumps the exponent (to Infinity at most).
    let h = ((e + 15) << 10) | (mant >>> 13);
    const rest = mant & 0x1fff;
    if (rest > 0x1000 || (rest === 0x1000 && (h & 1) === 1)) h++;
    return sign | h;
  }
  // Subnormal half: units of 2^-24. The 24-bit significand is shifted right by -e-1.
  const shift = -e - 1;
  if (shift > 24) return sign;
  const sig = mant | 0x800000;
  let h = sig >>> shift;
  const rest = sig & ((1 << shift) - 1);
  const half = 1 << (shift - 1);
  if (rest > half || (rest === half && (h & 1) === 1)) h++;
  return sign | h;
}

/** Converts the bits of a binary16 value to the bits of the equal binary32 value. */
export function float16BitsToFloat32Bits(h: number): number {
  const sign = (h & 0x8000) << 16;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0x1f) return (sign | 0x7f800000 | (mant << 13)) >>> 0;
  if (exp !== 0) return (sign | ((exp + 112) << 23) | (mant << 13)) >>> 0;
  if (mant === 0) return sign >>> 0;
  // Subnormal: normalize so the leading 1 lands in bit 10.
  const k = Math.clz32(mant) - 21;
  return (sign | ((113 - k) << 23) | (((mant << k) & 0x3ff) << 13)) >>> 0;
}

/**
 * Rounds a JS number (binary64) directly to binary16 bits, without a double
 * rounding through binary32.
 */
export function float64ToFloat16Bits(x: number): number {
  scratchF64[0] = x;
  const lo = scratchU32x2[0];
  const hi = scratchU32x2[1];
  const sign = (hi >>> 16) & 0x8000;
  const exp = (hi >>> 20) & 0x7ff;
  const mantHi = hi & 0xfffff; // top 20 of the 52 significand bits
  if (exp === 0x7ff) {
    if (mantHi === 0 && lo === 0) return sign | 0x7c00;
    return sign | 0x7c00 | (mantHi >>> 10 || 1);
  }
  const e = exp - 1023;
  if (e > 15) return sign | 0x7c00;
  if (e >= -14) {
    let h = ((e + 15) << 10) | (mantHi >>> 10);
    const rest = mantHi & 0x3ff;
    if (rest > 0x200 || (rest === 0x200 && (lo !== 0 || (h & 1) === 1))) h++;
    return sign | h;
  }
  // Subnormal half: the top 21 significand bits (with the implicit 1) in units of
  // 2^(e-20); shift to units of 2^-24. `lo` only acts as a sticky bit.
  const shift = -e - 4;
  if (shift > 21) return sign;
  const sig = mantHi | 0x100000;
  let h = sig >>> shift;
  const rest = sig & ((1 << shift) - 1);
  const half = 1 << (shift - 1);
  if (rest > half || (rest === half && (lo !== 0 || (h & 1) === 1))) h++;
  return sign | h;
}

/** The value of binary16 bits as a JS number. */
export function float16BitsToNumber(h: number): number {
  scratchU32[0] = float16BitsToFloat32Bits(h);
  return scratchF32[0];
}

/** Rounds a JS number to the nearest binary16 value (returned as a number). */
export function roundToFloat16(x: number): number {
  return float16BitsToNumber(float64ToFloat16Bits(x));
}

/**
 * Encodes float32 bit patterns (e.g. a `Uint32Array` view of a float16 data
 * type's `Float32Array`) as binary16 bit patterns.
 */
export function encodeFloat16(src: Uint32Array, dst: Uint16Array): void {
  const n = src.length;
  for (let i = 0; i < n; i++) dst[i] = float32BitsToFloat16Bits(src[i]);
}

/** Decodes binary16 bit patterns into float32 bit patterns. */
export function decodeFloat16(src: Uint16Array, dst: Uint32Array): void {
  const n = src.length;
  for (let i = 0; i < n; i++) dst[i] = float16BitsToFloat32Bits(src[i]);
}

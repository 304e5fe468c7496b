/**
 * Embedded bit-plane coding of a block's negabinary coefficients (zfp
 * documentation, "Algorithm", steps 7-8): bit planes from the most
 * significant down, each plane's first `n` bits verbatim (`n` = coefficients
 * already found significant), then group tests with unary run lengths for
 * the rest. `maxbits` bounds the bits written; `maxprec` the planes coded.
 *
 * For encoding, a plane is `words` 32-bit words (bit `i` = coefficient `i`);
 * word `w` of plane `k` is `planes[w * intprec + k]`, so that each 32
 * coefficients' planes form one 32 x 32 bit matrix (see {@link transpose32}).
 * Decoding deposits each plane's bits straight into the coefficients.
 *
 * @module
 */
import type { BitReader, BitWriter } from "./bitstream.js";

/**
 * Transposes the 32 x 32 bit matrix `a[o..o+31]` in place: bit `i` of
 * `a[o + k]` becomes bit `k` of `a[o + i]` (recursive block swaps).
 */
export function transpose32(a: Int32Array, o: number): void {
  let m = 0x0000ffff;
  for (let j = 16; j !== 0; j >>>= 1, m ^= m << j) {
    for (let k = 0; k < 32; k = (k + j + 1) & ~j) {
      const t = ((a[o + k]! >>> j) ^ a[o + k + j]!) & m;
      a[o + k + j]! ^= t;
      a[o + k]! ^= t << j;
    }
  }
}

/** Index of the first set bit at or after `from` (below `size`) of plane `k`, or -1. */
function nextSetBit(
  planes: Int32Array,
  k: number,
  intprec: number,
  from: number,
  size: number,
): number {
  let w = from >>> 5;
  const end = (size + 31) >>> 5;
  let word = planes[k + w * intprec]! & (~0 << (from & 31));
  for (;;) {
    if (word !== 0) {
      const i = w * 32 + 31 - Math.clz32(word & -word);
      return i < size ? i : -1;
    }
    if (++w >= end) return -1;
    word = planes[k + w * intprec]!;
  }
}

/** Writes bits 0..m-1 of plane `k`. */
function writePrefix(
  out: BitWriter,
  planes: Int32Array,
  k: number,
  intprec: number,
  m: number,
): void {
  for (let w = 0; m > 0; w++) {
    const n = m < 32 ? m : 32;
    const word = planes[k + w * intprec]!;
    out.writeBits(n === 32 ? word >>> 0 : (word & ((1 << n) - 1)) >>> 0, n);
    m -= n;
  }
}

/**
 * Encodes planes `intprec - 1` down to `intprec - maxprec` of `size`
 * coefficients, writing at most `maxbits` bits; returns the bits written.
 */
export function encodePlanes(
  out: BitWriter,
  maxbits: number,
  maxprec: number,
  intprec: number,
  planes: Int32Array,
  words: number,
  size: number,
): number {
  const kmin = intprec > maxprec ? intprec - maxprec : 0;
  let bits = maxbits;
  let n = 0;
  const last = size - 1;
  for (let k = intprec; bits > 0 && k-- > kmin; ) {
    const m = n < bits ? n : bits;
    bits -= m;
    writePrefix(out, planes, k, intprec, m);
    while (bits > 0 && n < size) {
      bits--;
      const p = nextSetBit(planes, k, intprec, n, size);
      if (p < 0) {
        out.writeBit(0);
        break;
      }
      out.writeBit(1);
      if (p < last) {
        // Zeros up to the one at p, then the one.
        const need = p - n + 1;
        if (bits >= need) {
          out.writeZeros(p - n);
          out.writeBit(1);
          bits -= need;
          n = p + 1;
        } else {
          out.writeZeros(bits);
          bits = 0;
        }
      } else {
        // The last coefficient's one bit is implied.
        const need = last - n;
        if (bits >= need) {
          out.writeZeros(need);
          bits -= need;
          n = size;
        } else {
          out.writeZeros(bits);
          bits = 0;
        }
      }
    }
  }
  return maxbits - bits;
}

/**
 * Decodes what {@link encodePlanes} wrote for 32-bit coefficients, each
 * plane's bits deposited straight into `coded` (coefficient `i`'s bit `k`:
 * one step per one bit, no transpose); planes below `32 - maxprec` stay
 * zero. Returns the bits read. When `maxbits` runs out inside a run of
 * zeros, the one bit is set at the next coefficient, as libzfp does.
 */
export function decodeCoefficients32(
  input: BitReader,
  maxbits: number,
  maxprec: number,
  coded: Int32Array,
  size: number,
): number {
  const kmin = 32 > maxprec ? 32 - maxprec : 0;
  coded.fill(0, 0, size);
  let bits = maxbits;
  let n = 0;
  const last = size - 1;
  for (let k = 32; bits > 0 && k-- > kmin; ) {
    const bit = 1 << k;
    let m = n < bits ? n : bits;
    bits -= m;
    for (let w = 0; m > 0; w += 32) {
      const c = m < 32 ? m : 32;
      let word = input.readBits(c) | 0;
      while (word !== 0) {
        const low = word & -word;
        coded[w + 31 - Math.clz32(low)]! |= bit;
        word ^= low;
      }
      m -= c;
    }
    while (bits > 0 && n < size) {
      bits--;
      if (input.readBit() === 0) break;
      if (n < last) {
        const limit = bits < last - n ? bits : last - n;
        const zeros = input.readZerosUntilOne(limit);
        if (zeros < limit) {
          bits -= zeros + 1;
          n += zeros;
        } else {
          bits -= limit;
          n += limit;
        }
      }
      coded[n]! |= bit;
      n++;
    }
  }
  return maxbits - bits;
}

/**
 * {@link decodeCoefficients32} for 64-bit coefficients: plane `k` goes to
 * bit `k` of `lo` (k < 32) or bit `k - 32` of `hi`.
 */
export function decodeCoefficients64(
  input: BitReader,
  maxbits: number,
  maxprec: number,
  hi: Int32Array,
  lo: Int32Array,
  size: number,
): number {
  const kmin = 64 > maxprec ? 64 - maxprec : 0;
  hi.fill(0, 0, size);
  lo.fill(0, 0, size);
  let bits = maxbits;
  let n = 0;
  const last = size - 1;
  for (let k = 64; bits > 0 && k-- > kmin; ) {
    const target = k >= 32 ? hi : lo;
    const bit = 1 << (k & 31);
    let m = n < bits ? n : bits;
    bits -= m;
    for (let w = 0; m > 0; w += 32) {
      const c = m < 32 ? m : 32;
      let word = input.readBits(c) | 0;
      while (word !== 0) {
        const low = word & -word;
        target[w + 31 - Math.clz32(low)]! |= bit;
        word ^= low;
      }
      m -= c;
    }
    while (bits > 0 && n < size) {
      bits--;
      if (input.readBit() === 0) break;
      if (n < last) {
        const limit = bits < last - n ? bits : last - n;
        const zeros = input.readZerosUntilOne(limit);
        if (zeros < limit) {
          bits -= zeros + 1;
          n += zeros;
        } else {
          bits -= limit;
          n += limit;
        }
      }
      target[n]! |= bit;
      n++;
    }
  }
  return maxbits - bits;
}

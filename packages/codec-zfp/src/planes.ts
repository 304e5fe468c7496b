/**
 * Embedded bit-plane coding of a block's negabinary coefficients (zfp
 * documentation, "Algorithm", steps 7-8): bit planes from the most
 * significant down, each plane's first `n` bits verbatim (`n` = coefficients
 * already found significant), then group tests with unary run lengths for
 * the rest. `maxbits` bounds the bits written; `maxprec` the planes coded.
 *
 * A plane is `words` 32-bit words (bit `i` = coefficient `i`), plane `k` at
 * `planes[k * words]`. The same code serves 32- and 64-bit integers.
 *
 * @module
 */
import type { BitReader, BitWriter } from "./bitstream.js";

/** Index of the first set bit at or after `from` (below `size`), or -1. */
function nextSetBit(planes: Uint32Array, base: number, from: number, size: number): number {
  let w = from >>> 5;
  const end = (size + 31) >>> 5;
  let word = planes[base + w]! & (~0 << (from & 31));
  for (;;) {
    if (word !== 0) {
      const i = w * 32 + 31 - Math.clz32(word & -word);
      return i < size ? i : -1;
    }
    if (++w >= end) return -1;
    word = planes[base + w]!;
  }
}

/** Writes bits 0..m-1 of the plane at `base`. */
function writePrefix(out: BitWriter, planes: Uint32Array, base: number, m: number): void {
  for (let w = 0; m > 0; w++) {
    const n = m < 32 ? m : 32;
    const word = planes[base + w]!;
    out.writeBits(n === 32 ? word : (word & ((1 << n) - 1)) >>> 0, n);
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
  planes: Uint32Array,
  words: number,
  size: number,
): number {
  const kmin = intprec > maxprec ? intprec - maxprec : 0;
  let bits = maxbits;
  let n = 0;
  const last = size - 1;
  for (let k = intprec; bits > 0 && k-- > kmin; ) {
    const base = k * words;
    const m = n < bits ? n : bits;
    bits -= m;
    writePrefix(out, planes, base, m);
    while (bits > 0 && n < size) {
      bits--;
      const p = nextSetBit(planes, base, n, size);
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
 * Decodes what {@link encodePlanes} wrote into `planes` (planes below
 * `intprec - maxprec` are zero); returns the bits read. When `maxbits` runs
 * out inside a run of zeros, the one bit is set at the next coefficient, as
 * libzfp does.
 */
export function decodePlanes(
  input: BitReader,
  maxbits: number,
  maxprec: number,
  intprec: number,
  planes: Uint32Array,
  words: number,
  size: number,
): number {
  const kmin = intprec > maxprec ? intprec - maxprec : 0;
  planes.fill(0, 0, intprec * words);
  let bits = maxbits;
  let n = 0;
  const last = size - 1;
  for (let k = intprec; bits > 0 && k-- > kmin; ) {
    const base = k * words;
    let m = n < bits ? n : bits;
    bits -= m;
    for (let w = 0; m > 0; w++) {
      const c = m < 32 ? m : 32;
      planes[base + w] = input.readBits(c);
      m -= c;
    }
    while (bits > 0 && n < size) {
      bits--;
      if (input.readBit() === 0) break;
      if (n < last) {
        // Scan for the next one bit: at most min(bits, last - n) bits.
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
      planes[base + (n >>> 5)]! |= 1 << (n & 31);
      n++;
    }
  }
  return maxbits - bits;
}

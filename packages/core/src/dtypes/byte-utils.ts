/**
 * Byte-level helpers shared by the fixed-size data types: byte views of typed
 * arrays, byte swapping, and filling or comparing a region against the bit
 * pattern of one element.
 *
 * @module
 */

import type { TypedArray } from "./types.js";

/** A byte view over the same memory as `data` (no copy). */
export function bytesOf(data: TypedArray): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** Returns a copy of `src` with every `size`-byte group reversed. */
export function byteSwapped(src: Uint8Array, size: number): Uint8Array {
  const n = src.length;
  const out = new Uint8Array(n);
  if ((size === 4 || size === 8) && src.byteOffset % 4 === 0 && n % size === 0) {
    swapWords(
      new Uint32Array(src.buffer, src.byteOffset, n >>> 2),
      new Uint32Array(out.buffer),
      size,
    );
    return out;
  }
  switch (size) {
    case 1:
      out.set(src);
      break;
    case 2:
      for (let i = 0; i < n; i += 2) {
        out[i] = src[i + 1];
        out[i + 1] = src[i];
      }
      break;
    case 4:
      for (let i = 0; i < n; i += 4) {
        out[i] = src[i + 3];
        out[i + 1] = src[i + 2];
        out[i + 2] = src[i + 1];
        out[i + 3] = src[i];
      }
      break;
    case 8:
      for (let i = 0; i < n; i += 8) {
        out[i] = src[i + 7];
        out[i + 1] = src[i + 6];
        out[i + 2] = src[i + 5];
        out[i + 3] = src[i + 4];
        out[i + 4] = src[i + 3];
        out[i + 5] = src[i + 2];
        out[i + 6] = src[i + 1];
        out[i + 7] = src[i];
      }
      break;
    default:
      for (let i = 0; i < n; i += size) {
        for (let j = 0; j < size; j++) out[i + j] = src[i + size - 1 - j];
      }
  }
  return out;
}

/** Word-wise swap of 4- or 8-byte groups (aligned input), much faster than bytes. */
function swapWords(src: Uint32Array, dst: Uint32Array, size: 4 | 8): void {
  const n = src.length;
  if (size === 4) {
    for (let i = 0; i < n; i++) {
      const x = src[i];
      dst[i] = ((x & 0xff) << 24) | ((x & 0xff00) << 8) | ((x >>> 8) & 0xff00) | (x >>> 24);
    }
    return;
  }
  for (let i = 0; i < n; i += 2) {
    const a = src[i];
    const b = src[i + 1];
    dst[i] = ((b & 0xff) << 24) | ((b & 0xff00) << 8) | ((b >>> 8) & 0xff00) | (b >>> 24);
    dst[i + 1] = ((a & 0xff) << 24) | ((a & 0xff00) << 8) | ((a >>> 8) & 0xff00) | (a >>> 24);
  }
}

/**
 * Returns `bytes` as a buffer whose byte offset is a multiple of `align`: the same
 * memory when it already is (zero-copy), else an aligned copy.
 */
export function aligned(bytes: Uint8Array, align: number): Uint8Array {
  return bytes.byteOffset % align === 0 ? bytes : bytes.slice();
}

/**
 * Writes the `pattern` (one element's bytes) into every element of `region`
 * (whose length is a multiple of the pattern length), doubling with `copyWithin`.
 */
export function fillPattern(region: Uint8Array, pattern: Uint8Array): void {
  const total = region.length;
  const size = pattern.length;
  if (total === 0) return;
  if (isZero(pattern)) {
    region.fill(0);
    return;
  }
  if (size === 1) {
    region.fill(pattern[0]);
    return;
  }
  region.set(pattern, 0);
  let filled = size;
  while (filled < total) {
    const n = Math.min(filled, total - filled);
    region.copyWithin(filled, 0, n);
    filled += n;
  }
}

function isZero(pattern: Uint8Array): boolean {
  for (let i = 0; i < pattern.length; i++) if (pattern[i] !== 0) return false;
  return true;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/**
 * True when every element of `region` equals `pattern` bit for bit. Compares 32-bit
 * words over the aligned middle of the region (a word pattern with the period
 * lcm(pattern length, 4) bytes), bytes at the edges.
 */
export function matchesPattern(region: Uint8Array, pattern: Uint8Array): boolean {
  const size = pattern.length;
  const total = region.length;
  let i = 0;
  // Unaligned head, byte by byte.
  const headEnd = Math.min(total, (4 - (region.byteOffset % 4)) % 4);
  for (; i < headEnd; i++) if (region[i] !== pattern[i % size]) return false;
  const words = (total - i) >>> 2;
  if (words > 0) {
    const period = size / gcd(size, 4); // words per repetition = lcm(size, 4) / 4
    const wordPattern = new Uint32Array(period);
    for (let w = 0; w < period; w++) {
      const b = i + 4 * w;
      wordPattern[w] =
        (pattern[b % size] |
          (pattern[(b + 1) % size] << 8) |
          (pattern[(b + 2) % size] << 16) |
          (pattern[(b + 3) % size] << 24)) >>>
        0;
    }
    const u32 = new Uint32Array(region.buffer, region.byteOffset + i, words);
    if (period === 1) {
      const p = wordPattern[0];
      for (let w = 0; w < words; w++) if (u32[w] !== p) return false;
    } else if (period === 2) {
      const p0 = wordPattern[0];
      const p1 = wordPattern[1];
      let w = 0;
      for (; w + 1 < words; w += 2) if (u32[w] !== p0 || u32[w + 1] !== p1) return false;
      if (w < words && u32[w] !== p0) return false;
    } else {
      let w = 0;
      for (; w + period <= words; w += period) {
        for (let k = 0; k < period; k++) if (u32[w + k] !== wordPattern[k]) return false;
      }
      for (let k = 0; w < words; w++, k++) if (u32[w] !== wordPattern[k]) return false;
    }
    i += words * 4;
  }
  for (; i < total; i++) if (region[i] !== pattern[i % size]) return false;
  return true;
}

/**
 * Byte shuffle and bitshuffle exactly as c-blosc 1.x lays them out, per block.
 *
 * - Byte shuffle: with `n = floor(size / ts)` elements, output byte `j * n + i`
 *   is byte `j` of element `i`; the trailing `size % ts` bytes are copied.
 * - Bitshuffle: when `n % 8 != 0` c-blosc copies the whole block unchanged.
 *   Otherwise the first `n * ts` bytes become `8 * ts` bit rows of `n / 8` bytes:
 *   row `8 * j + k` holds bit `k` (LSB first) of byte `j` of every element, and
 *   the trailing bytes are copied.
 *
 * All functions read `size` bytes of `src` from `srcOff` and write `size` bytes
 * of `dst` from `dstOff`; `src` and `dst` must not overlap.
 *
 * @module
 */

/** Byte-shuffles `size` bytes of elements of `ts` bytes. */
export function shuffle(
  ts: number,
  src: Uint8Array,
  srcOff: number,
  dst: Uint8Array,
  dstOff: number,
  size: number,
): void {
  const n = Math.floor(size / ts);
  if (ts <= 1 || n === 0) {
    dst.set(src.subarray(srcOff, srcOff + size), dstOff);
    return;
  }
  if (ts === 4) {
    shuffle4(src, srcOff, dst, dstOff, n);
  } else {
    for (let j = 0; j < ts; j++) {
      let o = dstOff + j * n;
      let s = srcOff + j;
      const end = o + n;
      while (o < end) {
        dst[o++] = src[s];
        s += ts;
      }
    }
  }
  const done = n * ts;
  if (done < size) dst.set(src.subarray(srcOff + done, srcOff + size), dstOff + done);
}

/** Inverse of {@link shuffle}. */
export function unshuffle(
  ts: number,
  src: Uint8Array,
  srcOff: number,
  dst: Uint8Array,
  dstOff: number,
  size: number,
): void {
  const n = Math.floor(size / ts);
  if (ts <= 1 || n === 0) {
    dst.set(src.subarray(srcOff, srcOff + size), dstOff);
    return;
  }
  if (ts === 4) {
    unshuffle4(src, srcOff, dst, dstOff, n);
  } else {
    for (let j = 0; j < ts; j++) {
      let s = srcOff + j * n;
      let o = dstOff + j;
      const end = s + n;
      while (s < end) {
        dst[o] = src[s++];
        o += ts;
      }
    }
  }
  const done = n * ts;
  if (done < size) dst.set(src.subarray(srcOff + done, srcOff + size), dstOff + done);
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** A 32-bit word view of `a` from byte `off` (n words), or null when unaligned. */
function words(a: Uint8Array, off: number, n: number): Int32Array | null {
  const addr = a.byteOffset + off;
  return LITTLE_ENDIAN && (addr & 3) === 0 ? new Int32Array(a.buffer, addr, n) : null;
}

// typesize 4 (float32/int32), the most common case: 4x4 byte transposes on
// 32-bit words when the planes are aligned, which also serves the inverse.
function shuffle4(src: Uint8Array, s: number, dst: Uint8Array, o: number, n: number): void {
  const quads = n >>> 2;
  const inW = words(src, s, 4 * quads);
  const outW = (n & 3) === 0 ? words(dst, o, 4 * quads) : null;
  let i = 0;
  if (inW !== null && outW !== null) {
    for (let q = 0; q < quads; q++) {
      const a = inW[4 * q];
      const b = inW[4 * q + 1];
      const c = inW[4 * q + 2];
      const d = inW[4 * q + 3];
      const t0 = (a & 0x00ff00ff) | ((b & 0x00ff00ff) << 8);
      const t1 = ((a >>> 8) & 0x00ff00ff) | (b & 0xff00ff00);
      const t2 = (c & 0x00ff00ff) | ((d & 0x00ff00ff) << 8);
      const t3 = ((c >>> 8) & 0x00ff00ff) | (d & 0xff00ff00);
      outW[q] = (t0 & 0xffff) | (t2 << 16);
      outW[quads + q] = (t1 & 0xffff) | (t3 << 16);
      outW[2 * quads + q] = (t0 >>> 16) | (t2 & 0xffff0000);
      outW[3 * quads + q] = (t1 >>> 16) | (t3 & 0xffff0000);
    }
    i = 4 * quads;
  }
  const o1 = o + n;
  const o2 = o1 + n;
  const o3 = o2 + n;
  for (let p = s + 4 * i; i < n; i++, p += 4) {
    dst[o + i] = src[p];
    dst[o1 + i] = src[p + 1];
    dst[o2 + i] = src[p + 2];
    dst[o3 + i] = src[p + 3];
  }
}

function unshuffle4(src: Uint8Array, s: number, dst: Uint8Array, o: number, n: number): void {
  const quads = n >>> 2;
  const inW = (n & 3) === 0 ? words(src, s, 4 * quads) : null;
  const outW = words(dst, o, 4 * quads);
  let i = 0;
  if (inW !== null && outW !== null) {
    for (let q = 0; q < quads; q++) {
      const a = inW[q];
      const b = inW[quads + q];
      const c = inW[2 * quads + q];
      const d = inW[3 * quads + q];
      const t0 = (a & 0x00ff00ff) | ((b & 0x00ff00ff) << 8);
      const t1 = ((a >>> 8) & 0x00ff00ff) | (b & 0xff00ff00);
      const t2 = (c & 0x00ff00ff) | ((d & 0x00ff00ff) << 8);
      const t3 = ((c >>> 8) & 0x00ff00ff) | (d & 0xff00ff00);
      outW[4 * q] = (t0 & 0xffff) | (t2 << 16);
      outW[4 * q + 1] = (t1 & 0xffff) | (t3 << 16);
      outW[4 * q + 2] = (t0 >>> 16) | (t2 & 0xffff0000);
      outW[4 * q + 3] = (t1 >>> 16) | (t3 & 0xffff0000);
    }
    i = 4 * quads;
  }
  const s1 = s + n;
  const s2 = s1 + n;
  const s3 = s2 + n;
  for (let p = o + 4 * i; i < n; i++, p += 4) {
    dst[p] = src[s + i];
    dst[p + 1] = src[s1 + i];
    dst[p + 2] = src[s2 + i];
    dst[p + 3] = src[s3 + i];
  }
}

// Results of transpose8, kept in module variables to avoid allocating.
let tLo = 0;
let tHi = 0;

/**
 * Transposes the 8x8 bit matrix whose rows are the bytes of `lo` (rows 0..3,
 * little-endian) and `hi` (rows 4..7): bit c of row r moves to bit r of row c
 * (Hacker's Delight "transpose8" with rows and columns mirrored). Leaves the
 * result packed the same way in `tLo`/`tHi`.
 */
function transpose8(lo: number, hi: number): void {
  let x = hi;
  let y = lo;
  let t = (x ^ (x >>> 7)) & 0x00aa00aa;
  x = x ^ t ^ (t << 7);
  t = (y ^ (y >>> 7)) & 0x00aa00aa;
  y = y ^ t ^ (t << 7);
  t = (x ^ (x >>> 14)) & 0x0000cccc;
  x = x ^ t ^ (t << 14);
  t = (y ^ (y >>> 14)) & 0x0000cccc;
  y = y ^ t ^ (t << 14);
  t = (x & 0xf0f0f0f0) | ((y >>> 4) & 0x0f0f0f0f);
  y = ((x << 4) & 0xf0f0f0f0) | (y & 0x0f0f0f0f);
  tHi = t;
  tLo = y;
}

/** Bit-shuffles `size` bytes of elements of `ts` bytes (c-blosc layout). */
export function bitshuffle(
  ts: number,
  src: Uint8Array,
  srcOff: number,
  dst: Uint8Array,
  dstOff: number,
  size: number,
): void {
  const n = Math.floor(size / ts);
  if (n % 8 !== 0 || n === 0) {
    dst.set(src.subarray(srcOff, srcOff + size), dstOff);
    return;
  }
  const rowBytes = n >>> 3;
  const [r1, r2, r3, r4, r5, r6, r7] = [1, 2, 3, 4, 5, 6, 7].map((k) => k * rowBytes);
  // For each group of 8 elements and each byte position j, gather the 8 bytes
  // and transpose the 8x8 bit matrix: output row (8j + k) gets bit k of each.
  for (let g = 0; g < rowBytes; g++) {
    const base = srcOff + g * 8 * ts;
    for (let j = 0; j < ts; j++) {
      const p = base + j;
      // lo holds elements 0..3, hi elements 4..7, one byte each.
      const lo = src[p] | (src[p + ts] << 8) | (src[p + 2 * ts] << 16) | (src[p + 3 * ts] << 24);
      const hi =
        src[p + 4 * ts] |
        (src[p + 5 * ts] << 8) |
        (src[p + 6 * ts] << 16) |
        (src[p + 7 * ts] << 24);
      transpose8(lo, hi);
      const o = dstOff + 8 * j * rowBytes + g;
      const a = tLo;
      const b = tHi;
      dst[o] = a;
      dst[o + r1] = a >>> 8;
      dst[o + r2] = a >>> 16;
      dst[o + r3] = a >>> 24;
      dst[o + r4] = b;
      dst[o + r5] = b >>> 8;
      dst[o + r6] = b >>> 16;
      dst[o + r7] = b >>> 24;
    }
  }
  const done = n * ts;
  if (done < size) dst.set(src.subarray(srcOff + done, srcOff + size), dstOff + done);
}

/** Inverse of {@link bitshuffle}. */
export function bitunshuffle(
  ts: number,
  src: Uint8Array,
  srcOff: number,
  dst: Uint8Array,
  dstOff: number,
  size: number,
): void {
  const n = Math.floor(size / ts);
  if (n % 8 !== 0 || n === 0) {
    dst.set(src.subarray(srcOff, srcOff + size), dstOff);
    return;
  }
  const rowBytes = n >>> 3;
  const [r1, r2, r3, r4, r5, r6, r7] = [1, 2, 3, 4, 5, 6, 7].map((k) => k * rowBytes);
  for (let g = 0; g < rowBytes; g++) {
    const base = dstOff + g * 8 * ts;
    for (let j = 0; j < ts; j++) {
      // Gather the 8 row bytes (bit k of 8 elements each) and transpose back.
      const r = srcOff + 8 * j * rowBytes + g;
      const lo = src[r] | (src[r + r1] << 8) | (src[r + r2] << 16) | (src[r + r3] << 24);
      const hi = src[r + r4] | (src[r + r5] << 8) | (src[r + r6] << 16) | (src[r + r7] << 24);
      transpose8(lo, hi);
      const a = tLo;
      const b = tHi;
      const p = base + j;
      dst[p] = a;
      dst[p + ts] = a >>> 8;
      dst[p + 2 * ts] = a >>> 16;
      dst[p + 3 * ts] = a >>> 24;
      dst[p + 4 * ts] = b;
      dst[p + 5 * ts] = b >>> 8;
      dst[p + 6 * ts] = b >>> 16;
      dst[p + 7 * ts] = b >>> 24;
    }
  }
  const done = n * ts;
  if (done < size) dst.set(src.subarray(srcOff + done, srcOff + size), dstOff + done);
}

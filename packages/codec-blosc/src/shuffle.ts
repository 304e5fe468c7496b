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

// The most common case (float32/int32) gets a loop that touches each input byte once.
function shuffle4(src: Uint8Array, s: number, dst: Uint8Array, o: number, n: number): void {
  const o1 = o + n;
  const o2 = o1 + n;
  const o3 = o2 + n;
  for (let i = 0; i < n; i++, s += 4) {
    dst[o + i] = src[s];
    dst[o1 + i] = src[s + 1];
    dst[o2 + i] = src[s + 2];
    dst[o3 + i] = src[s + 3];
  }
}

function unshuffle4(src: Uint8Array, s: number, dst: Uint8Array, o: number, n: number): void {
  const s1 = s + n;
  const s2 = s1 + n;
  const s3 = s2 + n;
  for (let i = 0; i < n; i++, o += 4) {
    dst[o] = src[s + i];
    dst[o + 1] = src[s1 + i];
    dst[o + 2] = src[s2 + i];
    dst[o + 3] = src[s3 + i];
  }
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
      let o = dstOff + 8 * j * rowBytes + g;
      for (let k = 0; k < 8; k++) {
        // Bit k of each of the 8 bytes, element e at bit e of the result.
        const l = (lo >>> k) & 0x01010101;
        const h = (hi >>> k) & 0x01010101;
        const lb = (l | (l >>> 7) | (l >>> 14) | (l >>> 21)) & 0x0f;
        const hb = (h | (h >>> 7) | (h >>> 14) | (h >>> 21)) & 0x0f;
        dst[o] = lb | (hb << 4);
        o += rowBytes;
      }
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
  for (let g = 0; g < rowBytes; g++) {
    const base = dstOff + g * 8 * ts;
    for (let j = 0; j < ts; j++) {
      // Gather the 8 row bytes (bit k of 8 elements each) and transpose back.
      let lo = 0;
      let hi = 0;
      let s = srcOff + 8 * j * rowBytes + g;
      for (let k = 0; k < 8; k++) {
        const b = src[s];
        s += rowBytes;
        // Spread bits 0..3 of b to bit k of bytes 0..3, bits 4..7 to bytes of hi.
        const l = b & 0x0f;
        const h = b >>> 4;
        lo |= ((l | (l << 7) | (l << 14) | (l << 21)) & 0x01010101) << k;
        hi |= ((h | (h << 7) | (h << 14) | (h << 21)) & 0x01010101) << k;
      }
      const p = base + j;
      dst[p] = lo;
      dst[p + ts] = lo >>> 8;
      dst[p + 2 * ts] = lo >>> 16;
      dst[p + 3 * ts] = lo >>> 24;
      dst[p + 4 * ts] = hi;
      dst[p + 5 * ts] = hi >>> 8;
      dst[p + 6 * ts] = hi >>> 16;
      dst[p + 7 * ts] = hi >>> 24;
    }
  }
  const done = n * ts;
  if (done < size) dst.set(src.subarray(srcOff + done, srcOff + size), dstOff + done);
}

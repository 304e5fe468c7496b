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
  } else if (!wordShuffle(ts, src, srcOff, dst, dstOff, n, true)) {
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
  } else if (!wordShuffle(ts, src, srcOff, dst, dstOff, n, false)) {
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

/**
 * Word-based byte (un)shuffle for typesize 2 and multiples of 4 (float64,
 * complex), when both sides are 4-byte aligned and `n % 4 == 0` (so every
 * plane starts on a word). Returns false, doing nothing, otherwise.
 */
function wordShuffle(
  ts: number,
  src: Uint8Array,
  s: number,
  dst: Uint8Array,
  o: number,
  n: number,
  forward: boolean,
): boolean {
  if ((n & 3) !== 0 || (ts !== 2 && (ts & 3) !== 0)) return false;
  const words4 = (n * ts) >>> 2;
  const inW = words(src, s, words4);
  const outW = words(dst, o, words4);
  if (inW === null || outW === null) return false;
  if (ts === 2) {
    if (forward) shuffle2Words(inW, outW, n >>> 2);
    else unshuffle2Words(inW, outW, n >>> 2);
  } else {
    transposeWords(forward ? inW : outW, forward ? outW : inW, n >>> 2, ts >>> 2, forward);
  }
  return true;
}

/** Bytes 0 and 2 of `x` packed into the low 16 bits. */
function evenBytes(x: number): number {
  const y = x & 0x00ff00ff;
  return (y | (y >>> 8)) & 0xffff;
}

/** The low 16 bits of `x` spread to bytes 0 and 2. */
function spreadBytes(x: number): number {
  const y = x & 0xffff;
  return (y | (y << 8)) & 0x00ff00ff;
}

// typesize 2: 4 elements (2 words) become one word of each of the 2 planes.
function shuffle2Words(inW: Int32Array, outW: Int32Array, quads: number): void {
  for (let q = 0; q < quads; q++) {
    const a = inW[2 * q];
    const b = inW[2 * q + 1];
    outW[q] = evenBytes(a) | (evenBytes(b) << 16);
    outW[quads + q] = evenBytes(a >>> 8) | (evenBytes(b >>> 8) << 16);
  }
}

function unshuffle2Words(inW: Int32Array, outW: Int32Array, quads: number): void {
  for (let q = 0; q < quads; q++) {
    const lo = inW[q];
    const hi = inW[quads + q];
    outW[2 * q] = spreadBytes(lo) | (spreadBytes(hi) << 8);
    outW[2 * q + 1] = spreadBytes(lo >>> 16) | (spreadBytes(hi >>> 16) << 8);
  }
}

/**
 * typesize 4k: for each word w of the elements, 4 consecutive elements'
 * words form a 4x4 byte matrix whose transpose is word q of planes 4w..4w+3.
 * The transpose is its own inverse: `elemsToPlanes` picks the direction.
 */
function transposeWords(
  elems: Int32Array,
  planes: Int32Array,
  quads: number,
  k: number,
  elemsToPlanes: boolean,
): void {
  for (let w = 0; w < k; w++) {
    const p0 = 4 * w * quads;
    if (elemsToPlanes) transposeToPlanes(elems, planes, quads, k, w, p0);
    else transposeToElems(elems, planes, quads, k, w, p0);
  }
}

function transposeToPlanes(
  elems: Int32Array,
  planes: Int32Array,
  quads: number,
  k: number,
  w: number,
  p0: number,
): void {
  const p1 = p0 + quads;
  const p2 = p1 + quads;
  const p3 = p2 + quads;
  for (let q = 0, e = w; q < quads; q++, e += 4 * k) {
    const a = elems[e];
    const b = elems[e + k];
    const c = elems[e + 2 * k];
    const d = elems[e + 3 * k];
    const t0 = (a & 0x00ff00ff) | ((b & 0x00ff00ff) << 8);
    const t1 = ((a >>> 8) & 0x00ff00ff) | (b & 0xff00ff00);
    const t2 = (c & 0x00ff00ff) | ((d & 0x00ff00ff) << 8);
    const t3 = ((c >>> 8) & 0x00ff00ff) | (d & 0xff00ff00);
    planes[p0 + q] = (t0 & 0xffff) | (t2 << 16);
    planes[p1 + q] = (t1 & 0xffff) | (t3 << 16);
    planes[p2 + q] = (t0 >>> 16) | (t2 & 0xffff0000);
    planes[p3 + q] = (t1 >>> 16) | (t3 & 0xffff0000);
  }
}

function transposeToElems(
  elems: Int32Array,
  planes: Int32Array,
  quads: number,
  k: number,
  w: number,
  p0: number,
): void {
  const p1 = p0 + quads;
  const p2 = p1 + quads;
  const p3 = p2 + quads;
  for (let q = 0, e = w; q < quads; q++, e += 4 * k) {
    const a = planes[p0 + q];
    const b = planes[p1 + q];
    const c = planes[p2 + q];
    const d = planes[p3 + q];
    const t0 = (a & 0x00ff00ff) | ((b & 0x00ff00ff) << 8);
    const t1 = ((a >>> 8) & 0x00ff00ff) | (b & 0xff00ff00);
    const t2 = (c & 0x00ff00ff) | ((d & 0x00ff00ff) << 8);
    const t3 = ((c >>> 8) & 0x00ff00ff) | (d & 0xff00ff00);
    elems[e] = (t0 & 0xffff) | (t2 << 16);
    elems[e + k] = (t1 & 0xffff) | (t3 << 16);
    elems[e + 2 * k] = (t0 >>> 16) | (t2 & 0xffff0000);
    elems[e + 3 * k] = (t1 >>> 16) | (t3 & 0xffff0000);
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

// Results of transpose4x4, kept in module variables to avoid allocating.
let q0 = 0;
let q1 = 0;
let q2 = 0;
let q3 = 0;

/** Transposes the 4x4 byte matrix of words a..d (byte k of word w -> byte w of word k). */
function transpose4x4(a: number, b: number, c: number, d: number): void {
  const t0 = (a & 0x00ff00ff) | ((b & 0x00ff00ff) << 8);
  const t1 = ((a >>> 8) & 0x00ff00ff) | (b & 0xff00ff00);
  const t2 = (c & 0x00ff00ff) | ((d & 0x00ff00ff) << 8);
  const t3 = ((c >>> 8) & 0x00ff00ff) | (d & 0xff00ff00);
  q0 = (t0 & 0xffff) | (t2 << 16);
  q1 = (t1 & 0xffff) | (t3 << 16);
  q2 = (t0 >>> 16) | (t2 & 0xffff0000);
  q3 = (t1 >>> 16) | (t3 & 0xffff0000);
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
  let g = 0;
  // Four groups of 8 elements at a time: each of the 8 rows of byte j gets
  // 4 consecutive bytes, written as one word when the rows are aligned.
  const out = rowBytes % 4 === 0 ? words(dst, dstOff, 2 * ts * rowBytes) : null;
  const inW = ts === 4 && out !== null ? words(src, srcOff, n) : null;
  if (out !== null && inW !== null) {
    g = bitshuffle4(inW, out, rowBytes);
  } else if (out !== null) {
    const rowWords = rowBytes >>> 2;
    for (; g + 4 <= rowBytes; g += 4) {
      const base = srcOff + g * 8 * ts;
      for (let j = 0; j < ts; j++) {
        let p = base + j;
        gather(src, p, ts);
        const aLo = tLo;
        const aHi = tHi;
        p += 8 * ts;
        gather(src, p, ts);
        const bLo = tLo;
        const bHi = tHi;
        p += 8 * ts;
        gather(src, p, ts);
        const cLo = tLo;
        const cHi = tHi;
        p += 8 * ts;
        gather(src, p, ts);
        const dLo = tLo;
        const dHi = tHi;
        const w = 8 * j * rowWords + (g >>> 2);
        transpose4x4(aLo, bLo, cLo, dLo);
        out[w] = q0;
        out[w + rowWords] = q1;
        out[w + 2 * rowWords] = q2;
        out[w + 3 * rowWords] = q3;
        const w4 = w + 4 * rowWords;
        transpose4x4(aHi, bHi, cHi, dHi);
        out[w4] = q0;
        out[w4 + rowWords] = q1;
        out[w4 + 2 * rowWords] = q2;
        out[w4 + 3 * rowWords] = q3;
      }
    }
  }
  const [r1, r2, r3, r4, r5, r6, r7] = [1, 2, 3, 4, 5, 6, 7].map((k) => k * rowBytes);
  for (; g < rowBytes; g++) {
    const base = srcOff + g * 8 * ts;
    for (let j = 0; j < ts; j++) {
      gather(src, base + j, ts);
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

/**
 * Reads byte `p` of 8 consecutive elements (stride `ts`) and bit-transposes
 * them: leaves rows k = 0..7 (bit k of each element, element e at bit e) in
 * `tLo` (rows 0..3) and `tHi` (rows 4..7).
 */
function gather(src: Uint8Array, p: number, ts: number): void {
  const lo = src[p] | (src[p + ts] << 8) | (src[p + 2 * ts] << 16) | (src[p + 3 * ts] << 24);
  const hi =
    src[p + 4 * ts] | (src[p + 5 * ts] << 8) | (src[p + 6 * ts] << 16) | (src[p + 7 * ts] << 24);
  transpose8(lo, hi);
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
  let g = 0;
  // Four groups at a time: read each of the 8 rows of byte j as one word.
  const inp = rowBytes % 4 === 0 ? words(src, srcOff, 2 * ts * rowBytes) : null;
  const outW = ts === 4 && inp !== null ? words(dst, dstOff, n) : null;
  if (inp !== null && outW !== null) {
    g = bitunshuffle4(inp, outW, rowBytes);
  } else if (inp !== null) {
    const rowWords = rowBytes >>> 2;
    for (; g + 4 <= rowBytes; g += 4) {
      const base = dstOff + g * 8 * ts;
      for (let j = 0; j < ts; j++) {
        const w = 8 * j * rowWords + (g >>> 2);
        const r0 = inp[w];
        const r1 = inp[w + rowWords];
        const r2 = inp[w + 2 * rowWords];
        const r3 = inp[w + 3 * rowWords];
        const r4 = inp[w + 4 * rowWords];
        const r5 = inp[w + 5 * rowWords];
        const r6 = inp[w + 6 * rowWords];
        const r7 = inp[w + 7 * rowWords];
        transpose4x4(r0, r1, r2, r3);
        const l0 = q0;
        const l1 = q1;
        const l2 = q2;
        const l3 = q3;
        transpose4x4(r4, r5, r6, r7);
        const h0 = q0;
        const h1 = q1;
        const h2 = q2;
        const h3 = q3;
        scatter(dst, base + j, ts, l0, h0);
        scatter(dst, base + j + 8 * ts, ts, l1, h1);
        scatter(dst, base + j + 16 * ts, ts, l2, h2);
        scatter(dst, base + j + 24 * ts, ts, l3, h3);
      }
    }
  }
  const [r1, r2, r3, r4, r5, r6, r7] = [1, 2, 3, 4, 5, 6, 7].map((k) => k * rowBytes);
  for (; g < rowBytes; g++) {
    const base = dstOff + g * 8 * ts;
    for (let j = 0; j < ts; j++) {
      // Gather the 8 row bytes (bit k of 8 elements each) and transpose back.
      const r = srcOff + 8 * j * rowBytes + g;
      const lo = src[r] | (src[r + r1] << 8) | (src[r + r2] << 16) | (src[r + r3] << 24);
      const hi = src[r + r4] | (src[r + r5] << 8) | (src[r + r6] << 16) | (src[r + r7] << 24);
      scatter(dst, base + j, ts, lo, hi);
    }
  }
  const done = n * ts;
  if (done < size) dst.set(src.subarray(srcOff + done, srcOff + size), dstOff + done);
}

/** Bit-transposes rows (lo: 0..3, hi: 4..7) back and writes byte `p` of 8 elements. */
function scatter(dst: Uint8Array, p: number, ts: number, lo: number, hi: number): void {
  transpose8(lo, hi);
  const a = tLo;
  const b = tHi;
  dst[p] = a;
  dst[p + ts] = a >>> 8;
  dst[p + 2 * ts] = a >>> 16;
  dst[p + 3 * ts] = a >>> 24;
  dst[p + 4 * ts] = b;
  dst[p + 5 * ts] = b >>> 8;
  dst[p + 6 * ts] = b >>> 16;
  dst[p + 7 * ts] = b >>> 24;
}

const stage = new Int32Array(32);

/**
 * bitunshuffle for typesize 4 with aligned rows and output: whole words in
 * and out. Returns the number of 8-element groups done (all of them).
 */
function bitunshuffle4(inp: Int32Array, out: Int32Array, rowBytes: number): number {
  const rowWords = rowBytes >>> 2;
  // transpose4x4 and transpose8 are written out inline: their module-level
  // result slots made this loop 1.6x slower (bench: 730 -> 1170 MiB/s).
  let t0: number, t1: number, t2: number, t3: number, x: number, y: number, t: number;
  let l0: number, l1: number, l2: number, l3: number;
  let h0: number, h1: number, h2: number, h3: number;
  for (let g = 0; g < rowBytes; g += 4) {
    const gw = g >>> 2;
    // stage[8j + 2k] / [8j + 2k + 1]: byte j of elements 0..3 / 4..7 of group k.
    for (let j = 0; j < 4; j++) {
      const w = 8 * j * rowWords + gw;
      const w4 = w + 4 * rowWords;
      const s = 8 * j;
      t0 = (inp[w] & 0x00ff00ff) | ((inp[w + rowWords] & 0x00ff00ff) << 8);
      t1 = ((inp[w] >>> 8) & 0x00ff00ff) | (inp[w + rowWords] & 0xff00ff00);
      t2 = (inp[w + 2 * rowWords] & 0x00ff00ff) | ((inp[w + 3 * rowWords] & 0x00ff00ff) << 8);
      t3 = ((inp[w + 2 * rowWords] >>> 8) & 0x00ff00ff) | (inp[w + 3 * rowWords] & 0xff00ff00);
      l0 = (t0 & 0xffff) | (t2 << 16);
      l1 = (t1 & 0xffff) | (t3 << 16);
      l2 = (t0 >>> 16) | (t2 & 0xffff0000);
      l3 = (t1 >>> 16) | (t3 & 0xffff0000);
      t0 = (inp[w4] & 0x00ff00ff) | ((inp[w4 + rowWords] & 0x00ff00ff) << 8);
      t1 = ((inp[w4] >>> 8) & 0x00ff00ff) | (inp[w4 + rowWords] & 0xff00ff00);
      t2 = (inp[w4 + 2 * rowWords] & 0x00ff00ff) | ((inp[w4 + 3 * rowWords] & 0x00ff00ff) << 8);
      t3 = ((inp[w4 + 2 * rowWords] >>> 8) & 0x00ff00ff) | (inp[w4 + 3 * rowWords] & 0xff00ff00);
      h0 = (t0 & 0xffff) | (t2 << 16);
      h1 = (t1 & 0xffff) | (t3 << 16);
      h2 = (t0 >>> 16) | (t2 & 0xffff0000);
      h3 = (t1 >>> 16) | (t3 & 0xffff0000);
      x = h0;
      y = l0;
      t = (x ^ (x >>> 7)) & 0x00aa00aa;
      x = x ^ t ^ (t << 7);
      t = (y ^ (y >>> 7)) & 0x00aa00aa;
      y = y ^ t ^ (t << 7);
      t = (x ^ (x >>> 14)) & 0x0000cccc;
      x = x ^ t ^ (t << 14);
      t = (y ^ (y >>> 14)) & 0x0000cccc;
      y = y ^ t ^ (t << 14);
      stage[s + 1] = (x & 0xf0f0f0f0) | ((y >>> 4) & 0x0f0f0f0f);
      stage[s + 0] = ((x << 4) & 0xf0f0f0f0) | (y & 0x0f0f0f0f);
      x = h1;
      y = l1;
      t = (x ^ (x >>> 7)) & 0x00aa00aa;
      x = x ^ t ^ (t << 7);
      t = (y ^ (y >>> 7)) & 0x00aa00aa;
      y = y ^ t ^ (t << 7);
      t = (x ^ (x >>> 14)) & 0x0000cccc;
      x = x ^ t ^ (t << 14);
      t = (y ^ (y >>> 14)) & 0x0000cccc;
      y = y ^ t ^ (t << 14);
      stage[s + 3] = (x & 0xf0f0f0f0) | ((y >>> 4) & 0x0f0f0f0f);
      stage[s + 2] = ((x << 4) & 0xf0f0f0f0) | (y & 0x0f0f0f0f);
      x = h2;
      y = l2;
      t = (x ^ (x >>> 7)) & 0x00aa00aa;
      x = x ^ t ^ (t << 7);
      t = (y ^ (y >>> 7)) & 0x00aa00aa;
      y = y ^ t ^ (t << 7);
      t = (x ^ (x >>> 14)) & 0x0000cccc;
      x = x ^ t ^ (t << 14);
      t = (y ^ (y >>> 14)) & 0x0000cccc;
      y = y ^ t ^ (t << 14);
      stage[s + 5] = (x & 0xf0f0f0f0) | ((y >>> 4) & 0x0f0f0f0f);
      stage[s + 4] = ((x << 4) & 0xf0f0f0f0) | (y & 0x0f0f0f0f);
      x = h3;
      y = l3;
      t = (x ^ (x >>> 7)) & 0x00aa00aa;
      x = x ^ t ^ (t << 7);
      t = (y ^ (y >>> 7)) & 0x00aa00aa;
      y = y ^ t ^ (t << 7);
      t = (x ^ (x >>> 14)) & 0x0000cccc;
      x = x ^ t ^ (t << 14);
      t = (y ^ (y >>> 14)) & 0x0000cccc;
      y = y ^ t ^ (t << 14);
      stage[s + 7] = (x & 0xf0f0f0f0) | ((y >>> 4) & 0x0f0f0f0f);
      stage[s + 6] = ((x << 4) & 0xf0f0f0f0) | (y & 0x0f0f0f0f);
    }
    // Element words: byte j of element e sits in byte e of stage[8j + 2k (+1)].
    let o = 8 * g;
    for (let k = 0; k < 4; k++) {
      const s = 2 * k;
      t0 = (stage[s] & 0x00ff00ff) | ((stage[s + 8] & 0x00ff00ff) << 8);
      t1 = ((stage[s] >>> 8) & 0x00ff00ff) | (stage[s + 8] & 0xff00ff00);
      t2 = (stage[s + 16] & 0x00ff00ff) | ((stage[s + 24] & 0x00ff00ff) << 8);
      t3 = ((stage[s + 16] >>> 8) & 0x00ff00ff) | (stage[s + 24] & 0xff00ff00);
      out[o] = (t0 & 0xffff) | (t2 << 16);
      out[o + 1] = (t1 & 0xffff) | (t3 << 16);
      out[o + 2] = (t0 >>> 16) | (t2 & 0xffff0000);
      out[o + 3] = (t1 >>> 16) | (t3 & 0xffff0000);
      t0 = (stage[s + 1] & 0x00ff00ff) | ((stage[s + 9] & 0x00ff00ff) << 8);
      t1 = ((stage[s + 1] >>> 8) & 0x00ff00ff) | (stage[s + 9] & 0xff00ff00);
      t2 = (stage[s + 17] & 0x00ff00ff) | ((stage[s + 25] & 0x00ff00ff) << 8);
      t3 = ((stage[s + 17] >>> 8) & 0x00ff00ff) | (stage[s + 25] & 0xff00ff00);
      out[o + 4] = (t0 & 0xffff) | (t2 << 16);
      out[o + 5] = (t1 & 0xffff) | (t3 << 16);
      out[o + 6] = (t0 >>> 16) | (t2 & 0xffff0000);
      out[o + 7] = (t1 >>> 16) | (t3 & 0xffff0000);
      o += 8;
    }
  }
  return rowBytes;
}

/**
 * bitshuffle for typesize 4 with aligned input and rows: whole words in and
 * out. Returns the number of 8-element groups done (all of them).
 */
function bitshuffle4(inp: Int32Array, out: Int32Array, rowBytes: number): number {
  const rowWords = rowBytes >>> 2;
  // transpose4x4 and transpose8 are written out inline: their module-level
  // result slots made this loop 1.6x slower (bench: 730 -> 1170 MiB/s).
  let t0: number, t1: number, t2: number, t3: number, x: number, y: number, t: number;
  let l0: number, l1: number, l2: number, l3: number;
  let h0: number, h1: number, h2: number, h3: number;
  for (let g = 0; g < rowBytes; g += 4) {
    // stage[8j + 2k] / [8j + 2k + 1]: rows 8j..8j+3 / 8j+4..8j+7 of group k.
    let e = 8 * g;
    for (let k = 0; k < 4; k++) {
      const s = 2 * k;
      t0 = (inp[e] & 0x00ff00ff) | ((inp[e + 1] & 0x00ff00ff) << 8);
      t1 = ((inp[e] >>> 8) & 0x00ff00ff) | (inp[e + 1] & 0xff00ff00);
      t2 = (inp[e + 2] & 0x00ff00ff) | ((inp[e + 3] & 0x00ff00ff) << 8);
      t3 = ((inp[e + 2] >>> 8) & 0x00ff00ff) | (inp[e + 3] & 0xff00ff00);
      l0 = (t0 & 0xffff) | (t2 << 16);
      l1 = (t1 & 0xffff) | (t3 << 16);
      l2 = (t0 >>> 16) | (t2 & 0xffff0000);
      l3 = (t1 >>> 16) | (t3 & 0xffff0000);
      t0 = (inp[e + 4] & 0x00ff00ff) | ((inp[e + 5] & 0x00ff00ff) << 8);
      t1 = ((inp[e + 4] >>> 8) & 0x00ff00ff) | (inp[e + 5] & 0xff00ff00);
      t2 = (inp[e + 6] & 0x00ff00ff) | ((inp[e + 7] & 0x00ff00ff) << 8);
      t3 = ((inp[e + 6] >>> 8) & 0x00ff00ff) | (inp[e + 7] & 0xff00ff00);
      h0 = (t0 & 0xffff) | (t2 << 16);
      h1 = (t1 & 0xffff) | (t3 << 16);
      h2 = (t0 >>> 16) | (t2 & 0xffff0000);
      h3 = (t1 >>> 16) | (t3 & 0xffff0000);
      x = h0;
      y = l0;
      t = (x ^ (x >>> 7)) & 0x00aa00aa;
      x = x ^ t ^ (t << 7);
      t = (y ^ (y >>> 7)) & 0x00aa00aa;
      y = y ^ t ^ (t << 7);
      t = (x ^ (x >>> 14)) & 0x0000cccc;
      x = x ^ t ^ (t << 14);
      t = (y ^ (y >>> 14)) & 0x0000cccc;
      y = y ^ t ^ (t << 14);
      stage[s + 1] = (x & 0xf0f0f0f0) | ((y >>> 4) & 0x0f0f0f0f);
      stage[s + 0] = ((x << 4) & 0xf0f0f0f0) | (y & 0x0f0f0f0f);
      x = h1;
      y = l1;
      t = (x ^ (x >>> 7)) & 0x00aa00aa;
      x = x ^ t ^ (t << 7);
      t = (y ^ (y >>> 7)) & 0x00aa00aa;
      y = y ^ t ^ (t << 7);
      t = (x ^ (x >>> 14)) & 0x0000cccc;
      x = x ^ t ^ (t << 14);
      t = (y ^ (y >>> 14)) & 0x0000cccc;
      y = y ^ t ^ (t << 14);
      stage[s + 9] = (x & 0xf0f0f0f0) | ((y >>> 4) & 0x0f0f0f0f);
      stage[s + 8] = ((x << 4) & 0xf0f0f0f0) | (y & 0x0f0f0f0f);
      x = h2;
      y = l2;
      t = (x ^ (x >>> 7)) & 0x00aa00aa;
      x = x ^ t ^ (t << 7);
      t = (y ^ (y >>> 7)) & 0x00aa00aa;
      y = y ^ t ^ (t << 7);
      t = (x ^ (x >>> 14)) & 0x0000cccc;
      x = x ^ t ^ (t << 14);
      t = (y ^ (y >>> 14)) & 0x0000cccc;
      y = y ^ t ^ (t << 14);
      stage[s + 17] = (x & 0xf0f0f0f0) | ((y >>> 4) & 0x0f0f0f0f);
      stage[s + 16] = ((x << 4) & 0xf0f0f0f0) | (y & 0x0f0f0f0f);
      x = h3;
      y = l3;
      t = (x ^ (x >>> 7)) & 0x00aa00aa;
      x = x ^ t ^ (t << 7);
      t = (y ^ (y >>> 7)) & 0x00aa00aa;
      y = y ^ t ^ (t << 7);
      t = (x ^ (x >>> 14)) & 0x0000cccc;
      x = x ^ t ^ (t << 14);
      t = (y ^ (y >>> 14)) & 0x0000cccc;
      y = y ^ t ^ (t << 14);
      stage[s + 25] = (x & 0xf0f0f0f0) | ((y >>> 4) & 0x0f0f0f0f);
      stage[s + 24] = ((x << 4) & 0xf0f0f0f0) | (y & 0x0f0f0f0f);
      e += 8;
    }
    const gw = g >>> 2;
    for (let j = 0; j < 4; j++) {
      const s = 8 * j;
      const w = 8 * j * rowWords + gw;
      const w4 = w + 4 * rowWords;
      t0 = (stage[s] & 0x00ff00ff) | ((stage[s + 2] & 0x00ff00ff) << 8);
      t1 = ((stage[s] >>> 8) & 0x00ff00ff) | (stage[s + 2] & 0xff00ff00);
      t2 = (stage[s + 4] & 0x00ff00ff) | ((stage[s + 6] & 0x00ff00ff) << 8);
      t3 = ((stage[s + 4] >>> 8) & 0x00ff00ff) | (stage[s + 6] & 0xff00ff00);
      out[w] = (t0 & 0xffff) | (t2 << 16);
      out[w + rowWords] = (t1 & 0xffff) | (t3 << 16);
      out[w + 2 * rowWords] = (t0 >>> 16) | (t2 & 0xffff0000);
      out[w + 3 * rowWords] = (t1 >>> 16) | (t3 & 0xffff0000);
      t0 = (stage[s + 1] & 0x00ff00ff) | ((stage[s + 3] & 0x00ff00ff) << 8);
      t1 = ((stage[s + 1] >>> 8) & 0x00ff00ff) | (stage[s + 3] & 0xff00ff00);
      t2 = (stage[s + 5] & 0x00ff00ff) | ((stage[s + 7] & 0x00ff00ff) << 8);
      t3 = ((stage[s + 5] >>> 8) & 0x00ff00ff) | (stage[s + 7] & 0xff00ff00);
      out[w4] = (t0 & 0xffff) | (t2 << 16);
      out[w4 + rowWords] = (t1 & 0xffff) | (t3 << 16);
      out[w4 + 2 * rowWords] = (t0 >>> 16) | (t2 & 0xffff0000);
      out[w4 + 3 * rowWords] = (t1 >>> 16) | (t3 & 0xffff0000);
    }
  }
  return rowBytes;
}

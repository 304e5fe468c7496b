/**
 * XXH64 (seed 0), the hash behind the zstd frame checksum (RFC 8878 section
 * 3.1.1: the low 32 bits of XXH64 of the decompressed content). 64-bit
 * arithmetic is done on pairs of 32-bit halves, which is much faster than BigInt.
 *
 * @module
 */

// Primes as [hi, lo].
const P1H = 0x9e3779b1,
  P1L = 0x85ebca87;
const P2H = 0xc2b2ae3d,
  P2L = 0x27d4eb4f;
const P3H = 0x165667b1,
  P3L = 0x9e3779f9;
const P4H = 0x85ebca77,
  P4L = 0xc2b2ae63;
const P5H = 0x27d4eb2f,
  P5L = 0x165667c5;

// Results of the helpers below (avoids allocating a pair per operation).
let rh = 0;
let rl = 0;

function add(ah: number, al: number, bh: number, bl: number): void {
  const lo = (al + bl) >>> 0;
  rh = (ah + bh + (lo < al ? 1 : 0)) >>> 0;
  rl = lo;
}

function mul(ah: number, al: number, bh: number, bl: number): void {
  const a0 = al & 0xffff,
    a1 = al >>> 16,
    b0 = bl & 0xffff,
    b1 = bl >>> 16;
  const p00 = a0 * b0,
    p01 = a0 * b1,
    p10 = a1 * b0,
    p11 = a1 * b1;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  rl = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  const hi = p11 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16);
  rh = (hi + Math.imul(ah, bl) + Math.imul(al, bh)) >>> 0;
}

/** Rotate left by 0 < r < 32. */
function rotl(h: number, l: number, r: number): void {
  rh = ((h << r) | (l >>> (32 - r))) >>> 0;
  rl = ((l << r) | (h >>> (32 - r))) >>> 0;
}

/** acc = rotl(acc + input * P2, 31) * P1 */
function round(ah: number, al: number, ih: number, il: number): void {
  mul(ih, il, P2H, P2L);
  add(ah, al, rh, rl);
  rotl(rh, rl, 31);
  mul(rh, rl, P1H, P1L);
}

/** acc = (acc ^ round(0, val)) * P1 + P4 */
function mergeRound(ah: number, al: number, vh: number, vl: number): void {
  round(0, 0, vh, vl);
  mul((ah ^ rh) >>> 0, (al ^ rl) >>> 0, P1H, P1L);
  add(rh, rl, P4H, P4L);
}

/** The low 32 bits of XXH64(data, seed 0), as zstd stores them. */
export function xxh64Low32(data: Uint8Array): number {
  const [, lo] = xxh64(data);
  return lo;
}

/** XXH64(data, seed 0) as `[hi, lo]` unsigned 32-bit halves. */
export function xxh64(data: Uint8Array): [number, number] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const len = data.length;
  let p = 0;
  let hh: number;
  let hl: number;
  if (len >= 32) {
    // v1 = P1 + P2, v2 = P2, v3 = 0, v4 = -P1 (mod 2^64)
    add(P1H, P1L, P2H, P2L);
    let v1h = rh,
      v1l = rl;
    let v2h = P2H,
      v2l = P2L;
    let v3h = 0,
      v3l = 0;
    add(~P1H >>> 0, ~P1L >>> 0, 0, 1);
    let v4h = rh,
      v4l = rl;
    const limit = len - 32;
    while (p <= limit) {
      round(v1h, v1l, view.getUint32(p + 4, true), view.getUint32(p, true));
      v1h = rh;
      v1l = rl;
      round(v2h, v2l, view.getUint32(p + 12, true), view.getUint32(p + 8, true));
      v2h = rh;
      v2l = rl;
      round(v3h, v3l, view.getUint32(p + 20, true), view.getUint32(p + 16, true));
      v3h = rh;
      v3l = rl;
      round(v4h, v4l, view.getUint32(p + 28, true), view.getUint32(p + 24, true));
      v4h = rh;
      v4l = rl;
      p += 32;
    }
    rotl(v1h, v1l, 1);
    let sh = rh,
      sl = rl;
    rotl(v2h, v2l, 7);
    add(sh, sl, rh, rl);
    sh = rh;
    sl = rl;
    rotl(v3h, v3l, 12);
    add(sh, sl, rh, rl);
    sh = rh;
    sl = rl;
    rotl(v4h, v4l, 18);
    add(sh, sl, rh, rl);
    mergeRound(rh, rl, v1h, v1l);
    mergeRound(rh, rl, v2h, v2l);
    mergeRound(rh, rl, v3h, v3l);
    mergeRound(rh, rl, v4h, v4l);
    hh = rh;
    hl = rl;
  } else {
    hh = P5H;
    hl = P5L;
  }
  // h += len (len < 2^53; its high half is len / 2^32)
  add(hh, hl, Math.floor(len / 0x100000000) >>> 0, len >>> 0);
  hh = rh;
  hl = rl;
  while (p + 8 <= len) {
    round(0, 0, view.getUint32(p + 4, true), view.getUint32(p, true));
    rotl((hh ^ rh) >>> 0, (hl ^ rl) >>> 0, 27);
    mul(rh, rl, P1H, P1L);
    add(rh, rl, P4H, P4L);
    hh = rh;
    hl = rl;
    p += 8;
  }
  if (p + 4 <= len) {
    mul(0, view.getUint32(p, true), P1H, P1L);
    rotl((hh ^ rh) >>> 0, (hl ^ rl) >>> 0, 23);
    mul(rh, rl, P2H, P2L);
    add(rh, rl, P3H, P3L);
    hh = rh;
    hl = rl;
    p += 4;
  }
  while (p < len) {
    mul(0, data[p]!, P5H, P5L);
    rotl((hh ^ rh) >>> 0, (hl ^ rl) >>> 0, 11);
    mul(rh, rl, P1H, P1L);
    hh = rh;
    hl = rl;
    p++;
  }
  // Avalanche: h ^= h >> 33; h *= P2; h ^= h >> 29; h *= P3; h ^= h >> 32.
  hl = (hl ^ (hh >>> 1)) >>> 0;
  mul(hh, hl, P2H, P2L);
  hh = rh;
  hl = rl;
  hl = (hl ^ ((hl >>> 29) | (hh << 3))) >>> 0;
  hh = (hh ^ (hh >>> 29)) >>> 0;
  mul(hh, hl, P3H, P3L);
  hh = rh;
  hl = rl;
  hl = (hl ^ hh) >>> 0;
  return [hh, hl];
}

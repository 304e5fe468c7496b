/**
 * zfp's 64-bit integer block codec (int64 data, and float64 data after the
 * block-floating-point step), as {@link ./int32.ts} but on 64-bit integers
 * held as two int32 halves (`hi`, `lo`; `lo` is the low 32 bits' pattern).
 * Arithmetic wraps modulo 2^64, as libzfp's does.
 *
 * @module
 */
import type { BitReader, BitWriter } from "./bitstream.js";
import { LINE_STARTS, planeWords } from "./lines.js";
import { COEFFICIENT_ORDER } from "./order.js";
import { decodeCoefficients64, encodePlanes, transpose32 } from "./planes.js";

const NBMASK = 0xaaaaaaaa;
/** Bits that code a reversible block's precision. */
const PBITS = 6;

const planes = new Int32Array(64 * 8);
const codedHi = new Int32Array(256);
const codedLo = new Int32Array(256);
/** Lanes x, y, z, w and a temporary. */
const H = new Int32Array(5);
const L = new Int32Array(5);

function add(i: number, j: number): void {
  const s = (L[i]! >>> 0) + (L[j]! >>> 0);
  H[i] = (H[i]! + H[j]! + (s > 0xffffffff ? 1 : 0)) | 0;
  L[i] = s | 0;
}

function sub(i: number, j: number): void {
  const d = (L[i]! >>> 0) - (L[j]! >>> 0);
  H[i] = (H[i]! - H[j]! - (d < 0 ? 1 : 0)) | 0;
  L[i] = d | 0;
}

/** Arithmetic shift right by one. */
function sar(i: number): void {
  L[i] = (L[i]! >>> 1) | (H[i]! << 31);
  H[i] = H[i]! >> 1;
}

function shl(i: number): void {
  H[i] = (H[i]! << 1) | (L[i]! >>> 31);
  L[i] = L[i]! << 1;
}

/** lanes[i] += lanes[j] >> 1 (`halfAdd(i, j, 1)`) or -= (`-1`). */
function addHalf(i: number, j: number, sign: 1 | -1): void {
  H[4] = H[j]!;
  L[4] = L[j]!;
  sar(4);
  if (sign === 1) add(i, 4);
  else sub(i, 4);
}

const X = 0;
const Y = 1;
const Z = 2;
const W = 3;

function fwdLift(): void {
  add(X, W);
  sar(X);
  sub(W, X);
  add(Z, Y);
  sar(Z);
  sub(Y, Z);
  add(X, Z);
  sar(X);
  sub(Z, X);
  add(W, Y);
  sar(W);
  sub(Y, W);
  addHalf(W, Y, 1);
  addHalf(Y, W, -1);
}

function invLift(): void {
  addHalf(Y, W, 1);
  addHalf(W, Y, -1);
  add(Y, W);
  shl(W);
  sub(W, Y);
  add(Z, X);
  shl(X);
  sub(X, Z);
  add(Y, Z);
  shl(Z);
  sub(Z, Y);
  add(W, X);
  shl(X);
  sub(X, W);
}

function revFwdLift(): void {
  sub(W, Z);
  sub(Z, Y);
  sub(Y, X);
  sub(W, Z);
  sub(Z, Y);
  sub(W, Z);
}

function revInvLift(): void {
  add(W, Z);
  add(Z, Y);
  add(W, Z);
  add(Y, X);
  add(Z, Y);
  add(W, Z);
}

/** Lift kinds, so that each transform's call site stays monomorphic. */
const FWD = 0;
const INV = 1;
const REV_FWD = 2;
const REV_INV = 3;

/** Lifts every line along axes 0, 1, ... (forward kinds) or ..., 1, 0 (inverse kinds). */
function transform(hi: Int32Array, lo: Int32Array, dims: number, kind: number): void {
  const lines = LINE_STARTS[dims]!;
  const forward = kind === FWD || kind === REV_FWD;
  for (let i = 0; i < dims; i++) {
    const axis = forward ? i : dims - 1 - i;
    const starts = lines[axis]!;
    const s = 1 << (2 * axis);
    for (let j = 0; j < starts.length; j++) {
      const p = starts[j]!;
      for (let l = 0; l < 4; l++) {
        H[l] = hi[p + l * s]!;
        L[l] = lo[p + l * s]!;
      }
      if (kind === FWD) fwdLift();
      else if (kind === INV) invLift();
      else if (kind === REV_FWD) revFwdLift();
      else revInvLift();
      for (let l = 0; l < 4; l++) {
        hi[p + l * s] = H[l]!;
        lo[p + l * s] = L[l]!;
      }
    }
  }
}

/**
 * Negabinary coefficients in coding order, as bit planes (word `w` of plane
 * `k` at `planes[64w + k]`); returns 64 minus the trailing zeros of their OR
 * (0 when all are zero).
 */
function toPlanes(hi: Int32Array, lo: Int32Array, dims: number, words: number): number {
  const order = COEFFICIENT_ORDER[dims]!;
  const size = order.length;
  if (size < 32) {
    planes.fill(0, size, 32);
    planes.fill(0, 32 + size, 64);
  }
  let orHi = 0;
  let orLo = 0;
  for (let i = 0; i < size; i++) {
    const p = order[i]!;
    const s = (lo[p]! >>> 0) + NBMASK;
    const uh = ((hi[p]! + NBMASK + (s > 0xffffffff ? 1 : 0)) | 0) ^ NBMASK;
    const ul = (s | 0) ^ NBMASK;
    orHi |= uh;
    orLo |= ul;
    const at = 64 * (i >>> 5) + (i & 31);
    planes[at] = ul;
    planes[at + 32] = uh;
  }
  for (let w = 0; w < words; w++) {
    transpose32(planes, 64 * w);
    transpose32(planes, 64 * w + 32);
  }
  if (orLo !== 0) return 64 - (31 - Math.clz32(orLo & -orLo));
  if (orHi !== 0) return 32 - (31 - Math.clz32(orHi & -orHi));
  return 0;
}

/** Negabinary coefficients in coding order (as decoded) back to the block. */
function fromCoefficients(hi: Int32Array, lo: Int32Array, dims: number): void {
  const order = COEFFICIENT_ORDER[dims]!;
  const size = order.length;
  for (let i = 0; i < size; i++) {
    const p = order[i]!;
    const d = ((codedLo[i]! ^ NBMASK) >>> 0) - NBMASK;
    hi[p] = ((codedHi[i]! ^ NBMASK) - NBMASK - (d < 0 ? 1 : 0)) | 0;
    lo[p] = d | 0;
  }
}

/** Encodes a block of 64-bit integers (lossy modes); returns the bits written. */
export function encodeInt64Block(
  out: BitWriter,
  minbits: number,
  maxbits: number,
  maxprec: number,
  hi: Int32Array,
  lo: Int32Array,
  dims: number,
): number {
  transform(hi, lo, dims, FWD);
  const words = planeWords(dims);
  toPlanes(hi, lo, dims, words);
  let bits = encodePlanes(out, maxbits, maxprec, 64, planes, words, 1 << (2 * dims));
  if (bits < minbits) {
    out.writeZeros(minbits - bits);
    bits = minbits;
  }
  return bits;
}

/** Decodes a block written by {@link encodeInt64Block}; returns the bits read. */
export function decodeInt64Block(
  input: BitReader,
  minbits: number,
  maxbits: number,
  maxprec: number,
  hi: Int32Array,
  lo: Int32Array,
  dims: number,
): number {
  let bits = decodeCoefficients64(input, maxbits, maxprec, codedHi, codedLo, 1 << (2 * dims));
  if (bits < minbits) {
    input.skip(minbits - bits);
    bits = minbits;
  }
  fromCoefficients(hi, lo, dims);
  transform(hi, lo, dims, INV);
  return bits;
}

/** Encodes a block of 64-bit integers losslessly (reversible mode); returns the bits written. */
export function encodeInt64BlockReversible(
  out: BitWriter,
  minbits: number,
  maxbits: number,
  maxprec: number,
  hi: Int32Array,
  lo: Int32Array,
  dims: number,
): number {
  transform(hi, lo, dims, REV_FWD);
  const words = planeWords(dims);
  let prec = toPlanes(hi, lo, dims, words);
  if (prec > maxprec) prec = maxprec;
  if (prec < 1) prec = 1;
  out.writeBits(prec - 1, PBITS);
  let bits = PBITS;
  bits += encodePlanes(out, (maxbits - bits) >>> 0, prec, 64, planes, words, 1 << (2 * dims));
  if (bits < minbits) {
    out.writeZeros(minbits - bits);
    bits = minbits;
  }
  return bits;
}

/** Decodes a block written by {@link encodeInt64BlockReversible}; returns the bits read. */
export function decodeInt64BlockReversible(
  input: BitReader,
  minbits: number,
  maxbits: number,
  hi: Int32Array,
  lo: Int32Array,
  dims: number,
): number {
  const prec = input.readBits(PBITS) + 1;
  let bits = PBITS;
  bits += decodeCoefficients64(
    input,
    (maxbits - bits) >>> 0,
    prec,
    codedHi,
    codedLo,
    1 << (2 * dims),
  );
  if (bits < minbits) {
    input.skip(minbits - bits);
    bits = minbits;
  }
  fromCoefficients(hi, lo, dims);
  transform(hi, lo, dims, REV_INV);
  return bits;
}

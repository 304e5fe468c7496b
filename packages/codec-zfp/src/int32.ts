/**
 * zfp's 32-bit integer block codec (int32 data, and float32 data after the
 * block-floating-point step): the decorrelating transform (or, in reversible
 * mode, the lossless Lorenzo-style transform), negabinary coefficients in
 * sequency order, and bit-plane coding. Arithmetic wraps modulo 2^32, as
 * libzfp's int32 arithmetic does on overflow.
 *
 * @module
 */
import type { BitReader, BitWriter } from "./bitstream.js";
import { LINE_STARTS, planeWords } from "./lines.js";
import { COEFFICIENT_ORDER } from "./order.js";
import { decodeCoefficients32, encodePlanes, transpose32 } from "./planes.js";

const NBMASK = 0xaaaaaaaa;
/** Bits that code a reversible block's precision. */
const PBITS = 5;

const planes = new Int32Array(32 * 8);

function fwdLift(b: Int32Array, p: number, s: number): void {
  let x = b[p]!;
  let y = b[p + s]!;
  let z = b[p + 2 * s]!;
  let w = b[p + 3 * s]!;
  x = (x + w) | 0;
  x >>= 1;
  w = (w - x) | 0;
  z = (z + y) | 0;
  z >>= 1;
  y = (y - z) | 0;
  x = (x + z) | 0;
  x >>= 1;
  z = (z - x) | 0;
  w = (w + y) | 0;
  w >>= 1;
  y = (y - w) | 0;
  w = (w + (y >> 1)) | 0;
  y = (y - (w >> 1)) | 0;
  b[p] = x;
  b[p + s] = y;
  b[p + 2 * s] = z;
  b[p + 3 * s] = w;
}

function invLift(b: Int32Array, p: number, s: number): void {
  let x = b[p]!;
  let y = b[p + s]!;
  let z = b[p + 2 * s]!;
  let w = b[p + 3 * s]!;
  y = (y + (w >> 1)) | 0;
  w = (w - (y >> 1)) | 0;
  y = (y + w) | 0;
  w <<= 1;
  w = (w - y) | 0;
  z = (z + x) | 0;
  x <<= 1;
  x = (x - z) | 0;
  y = (y + z) | 0;
  z <<= 1;
  z = (z - y) | 0;
  w = (w + x) | 0;
  x <<= 1;
  x = (x - w) | 0;
  b[p] = x;
  b[p + s] = y;
  b[p + 2 * s] = z;
  b[p + 3 * s] = w;
}

function revFwdLift(b: Int32Array, p: number, s: number): void {
  const x = b[p]!;
  let y = b[p + s]!;
  let z = b[p + 2 * s]!;
  let w = b[p + 3 * s]!;
  w = (w - z) | 0;
  z = (z - y) | 0;
  y = (y - x) | 0;
  w = (w - z) | 0;
  z = (z - y) | 0;
  w = (w - z) | 0;
  b[p + s] = y;
  b[p + 2 * s] = z;
  b[p + 3 * s] = w;
}

function revInvLift(b: Int32Array, p: number, s: number): void {
  const x = b[p]!;
  let y = b[p + s]!;
  let z = b[p + 2 * s]!;
  let w = b[p + 3 * s]!;
  w = (w + z) | 0;
  z = (z + y) | 0;
  w = (w + z) | 0;
  y = (y + x) | 0;
  z = (z + y) | 0;
  w = (w + z) | 0;
  b[p + s] = y;
  b[p + 2 * s] = z;
  b[p + 3 * s] = w;
}

/*
 * Each transform lifts every line along axes 0, 1, ... (forward) or ..., 1,
 * 0 (inverse). One function per lift keeps each call site monomorphic.
 */
function fwdXform(b: Int32Array, dims: number): void {
  const lines = LINE_STARTS[dims]!;
  for (let axis = 0; axis < dims; axis++) {
    const starts = lines[axis]!;
    const s = 1 << (2 * axis);
    for (let j = 0; j < starts.length; j++) fwdLift(b, starts[j]!, s);
  }
}

function invXform(b: Int32Array, dims: number): void {
  const lines = LINE_STARTS[dims]!;
  for (let axis = dims - 1; axis >= 0; axis--) {
    const starts = lines[axis]!;
    const s = 1 << (2 * axis);
    for (let j = 0; j < starts.length; j++) invLift(b, starts[j]!, s);
  }
}

function revFwdXform(b: Int32Array, dims: number): void {
  const lines = LINE_STARTS[dims]!;
  for (let axis = 0; axis < dims; axis++) {
    const starts = lines[axis]!;
    const s = 1 << (2 * axis);
    for (let j = 0; j < starts.length; j++) revFwdLift(b, starts[j]!, s);
  }
}

function revInvXform(b: Int32Array, dims: number): void {
  const lines = LINE_STARTS[dims]!;
  for (let axis = dims - 1; axis >= 0; axis--) {
    const starts = lines[axis]!;
    const s = 1 << (2 * axis);
    for (let j = 0; j < starts.length; j++) revInvLift(b, starts[j]!, s);
  }
}

/** Negabinary coefficients in coding order, as bit planes; returns their OR. */
function toPlanes(b: Int32Array, dims: number, words: number): number {
  const order = COEFFICIENT_ORDER[dims]!;
  const size = order.length;
  if (size < 32) planes.fill(0, size, 32);
  let or = 0;
  for (let i = 0; i < size; i++) {
    const u = (b[order[i]!]! + NBMASK) ^ NBMASK;
    or |= u;
    planes[i] = u;
  }
  for (let w = 0; w < words; w++) transpose32(planes, 32 * w);
  return or;
}

/** Negabinary coefficients in coding order (in `planes`, as decoded) back to the block. */
function fromCoefficients(b: Int32Array, dims: number): void {
  const order = COEFFICIENT_ORDER[dims]!;
  const size = order.length;
  for (let i = 0; i < size; i++) b[order[i]!] = ((planes[i]! ^ NBMASK) - NBMASK) | 0;
}

/** Encodes a block of 32-bit integers (lossy modes); returns the bits written. */
export function encodeInt32Block(
  out: BitWriter,
  minbits: number,
  maxbits: number,
  maxprec: number,
  b: Int32Array,
  dims: number,
): number {
  fwdXform(b, dims);
  const words = planeWords(dims);
  toPlanes(b, dims, words);
  let bits = encodePlanes(out, maxbits, maxprec, 32, planes, words, 1 << (2 * dims));
  if (bits < minbits) {
    out.writeZeros(minbits - bits);
    bits = minbits;
  }
  return bits;
}

/** Decodes a block written by {@link encodeInt32Block}; returns the bits read. */
export function decodeInt32Block(
  input: BitReader,
  minbits: number,
  maxbits: number,
  maxprec: number,
  b: Int32Array,
  dims: number,
): number {
  let bits = decodeCoefficients32(input, maxbits, maxprec, planes, 1 << (2 * dims));
  if (bits < minbits) {
    input.skip(minbits - bits);
    bits = minbits;
  }
  fromCoefficients(b, dims);
  invXform(b, dims);
  return bits;
}

/** Encodes a block of 32-bit integers losslessly (reversible mode); returns the bits written. */
export function encodeInt32BlockReversible(
  out: BitWriter,
  minbits: number,
  maxbits: number,
  maxprec: number,
  b: Int32Array,
  dims: number,
): number {
  revFwdXform(b, dims);
  const words = planeWords(dims);
  const or = toPlanes(b, dims, words);
  // Planes below the lowest set bit of any coefficient need not be coded.
  let prec = or === 0 ? 0 : 32 - (31 - Math.clz32(or & -or));
  if (prec > maxprec) prec = maxprec;
  if (prec < 1) prec = 1;
  out.writeBits(prec - 1, PBITS);
  let bits = PBITS;
  bits += encodePlanes(out, (maxbits - bits) >>> 0, prec, 32, planes, words, 1 << (2 * dims));
  if (bits < minbits) {
    out.writeZeros(minbits - bits);
    bits = minbits;
  }
  return bits;
}

/** Decodes a block written by {@link encodeInt32BlockReversible}; returns the bits read. */
export function decodeInt32BlockReversible(
  input: BitReader,
  minbits: number,
  maxbits: number,
  b: Int32Array,
  dims: number,
): number {
  const prec = input.readBits(PBITS) + 1;
  let bits = PBITS;
  bits += decodeCoefficients32(input, (maxbits - bits) >>> 0, prec, planes, 1 << (2 * dims));
  if (bits < minbits) {
    input.skip(minbits - bits);
    bits = minbits;
  }
  fromCoefficients(b, dims);
  revInvXform(b, dims);
  return bits;
}

/**
 * zfp's floating-point block codec (zfp documentation, "Algorithm", steps
 * 1-2: block-floating-point with a common exponent, then the integer block
 * codec; "Reversible mode": the same when that is lossless, else the float
 * bits reinterpreted as integers). Values are rounded and converted exactly
 * as libzfp's C code does on x86-64 (float32 arithmetic in float32;
 * out-of-range and NaN float-to-integer conversions give the smallest
 * integer).
 *
 * The block's values are read from and written to {@link F32} / {@link F64}
 * as raw bits, so NaN payloads survive.
 *
 * @module
 */
import type { BitReader, BitWriter } from "./bitstream.js";
import {
  decodeInt32Block,
  decodeInt32BlockReversible,
  encodeInt32Block,
  encodeInt32BlockReversible,
} from "./int32.js";
import {
  decodeInt64Block,
  decodeInt64BlockReversible,
  encodeInt64Block,
  encodeInt64BlockReversible,
} from "./int64.js";
import type { ZfpParams } from "./params.js";
import { HI, LO, pow2 } from "./pow2.js";

/** A float32 block: `values` and `bits` view the same memory. */
export const F32 = (() => {
  const values = new Float32Array(256);
  return { values, bits: new Int32Array(values.buffer) };
})();
/** A float64 block: `values`, and `bits` (two words per value, platform order; see HI/LO). */
export const F64 = (() => {
  const values = new Float64Array(256);
  return { values, bits: new Int32Array(values.buffer) };
})();

const iblock = new Int32Array(256);
const hiBlock = new Int32Array(256);
const loBlock = new Int32Array(256);
const g32 = new Float32Array(256);
const g32bits = new Int32Array(g32.buffer);
const g64 = new Float64Array(256);
const g64bits = new Int32Array(g64.buffer);
const one32 = new Float32Array(1);
const one32bits = new Int32Array(one32.buffer);
const one64 = new Float64Array(1);
const one64bits = new Uint32Array(one64.buffer);

const EBIAS32 = 127;
const EBIAS64 = 1023;

/** Bit planes to code for a block of common exponent `emax`. */
function precision(emax: number, maxprec: number, minexp: number, dims: number): number {
  const p = emax - minexp + 2 * dims + 2;
  return Math.min(maxprec, p > 0 ? p : 0);
}

/** The common exponent of the block (`frexp` of the largest magnitude; NaNs ignored). */
function exponent32(size: number): number {
  const v = F32.values;
  let max = 0;
  for (let i = 0; i < size; i++) {
    const f = Math.abs(v[i]!);
    if (max < f) max = f;
  }
  if (max === 0) return -EBIAS32;
  one32[0] = max;
  const biased = (one32bits[0]! >>> 23) & 0xff;
  if (biased === 0xff) return 0; // frexpf(inf) gives 0
  return biased === 0 ? 1 - EBIAS32 : biased - 126;
}

function exponent64(size: number): number {
  const v = F64.values;
  let max = 0;
  for (let i = 0; i < size; i++) {
    const f = Math.abs(v[i]!);
    if (max < f) max = f;
  }
  if (max === 0) return -EBIAS64;
  one64[0] = max;
  const biased = (one64bits[HI]! >>> 20) & 0x7ff;
  if (biased === 0x7ff) return 0;
  return biased === 0 ? 1 - EBIAS64 : biased - 1022;
}

function fwdCast32(size: number, emax: number): void {
  const s = Math.fround(pow2(30 - emax));
  const v = F32.values;
  for (let i = 0; i < size; i++) {
    const x = Math.fround(s * v[i]!);
    iblock[i] = x >= -2147483648 && x < 2147483648 ? x | 0 : -2147483648;
  }
}

function invCast32(out: Float32Array, size: number, emax: number): void {
  const s = Math.fround(pow2(emax - 30));
  for (let i = 0; i < size; i++) out[i] = s * Math.fround(iblock[i]!);
}

function fwdCast64(size: number, emax: number): void {
  const s = pow2(62 - emax);
  const v = F64.values;
  for (let i = 0; i < size; i++) {
    const x = s * v[i]!;
    if (x >= -(2 ** 63) && x < 2 ** 63) {
      const t = Math.trunc(x);
      const h = Math.floor(t / 4294967296);
      hiBlock[i] = h | 0;
      loBlock[i] = (t - h * 4294967296) | 0;
    } else {
      hiBlock[i] = -2147483648;
      loBlock[i] = 0;
    }
  }
}

function invCast64(out: Float64Array, size: number, emax: number): void {
  const s = pow2(emax - 62);
  for (let i = 0; i < size; i++) out[i] = s * (hiBlock[i]! * 4294967296 + (loBlock[i]! >>> 0));
}

/** Encodes the float32 block in {@link F32}; returns the bits written. */
export function encodeFloat32Block(out: BitWriter, p: ZfpParams, dims: number): number {
  const size = 1 << (2 * dims);
  const { minbits, maxbits } = p;
  const emax = exponent32(size);
  if (p.minexp < -1074) return encodeFloat32Reversible(out, p, dims, size, emax);
  const maxprec = precision(emax, p.maxprec, p.minexp, dims);
  const e = maxprec ? emax + EBIAS32 : 0;
  let bits = 1;
  if (e) {
    bits += 8;
    out.writeBits(2 * e + 1, bits);
    fwdCast32(size, emax);
    bits += encodeInt32Block(
      out,
      minbits - Math.min(bits, minbits),
      (maxbits - bits) >>> 0,
      maxprec,
      iblock,
      dims,
    );
  } else {
    out.writeBit(0);
    if (minbits > bits) {
      out.writeZeros(minbits - bits);
      bits = minbits;
    }
  }
  return bits;
}

function encodeFloat32Reversible(
  out: BitWriter,
  p: ZfpParams,
  dims: number,
  size: number,
  emax: number,
): number {
  const { minbits, maxbits } = p;
  const bits32 = F32.bits;
  let lossless = true;
  if (emax !== -EBIAS32) {
    fwdCast32(size, emax);
    invCast32(g32, size, emax);
    for (let i = 0; i < size && lossless; i++) lossless = g32bits[i] === bits32[i];
  } else {
    iblock.fill(0, 0, size);
    for (let i = 0; i < size && lossless; i++) lossless = bits32[i] === 0;
  }
  let bits = 0;
  if (lossless) {
    const e = emax + EBIAS32;
    if (!e) {
      out.writeBit(0);
      return 1;
    }
    out.writeBits(1, 2);
    out.writeBits(e, 8);
    bits = 10;
  } else {
    for (let i = 0; i < size; i++) {
      const x = bits32[i]!;
      iblock[i] = x < 0 ? x ^ 0x7fffffff : x;
    }
    out.writeBits(3, 2);
    bits = 2;
  }
  return (
    bits +
    encodeInt32BlockReversible(
      out,
      minbits - Math.min(bits, minbits),
      (maxbits - bits) >>> 0,
      p.maxprec,
      iblock,
      dims,
    )
  );
}

/** Decodes a float32 block into {@link F32}; returns the bits read. */
export function decodeFloat32Block(input: BitReader, p: ZfpParams, dims: number): number {
  const size = 1 << (2 * dims);
  const { minbits, maxbits } = p;
  if (p.minexp < -1074) return decodeFloat32Reversible(input, p, dims, size);
  let bits = 1;
  if (input.readBit()) {
    bits += 8;
    const emax = input.readBits(8) - EBIAS32;
    const maxprec = precision(emax, p.maxprec, p.minexp, dims);
    bits += decodeInt32Block(
      input,
      minbits - Math.min(bits, minbits),
      (maxbits - bits) >>> 0,
      maxprec,
      iblock,
      dims,
    );
    invCast32(F32.values, size, emax);
  } else {
    F32.bits.fill(0, 0, size);
    if (minbits > bits) {
      input.skip(minbits - bits);
      bits = minbits;
    }
  }
  return bits;
}

function decodeFloat32Reversible(
  input: BitReader,
  p: ZfpParams,
  dims: number,
  size: number,
): number {
  const { minbits, maxbits } = p;
  let bits = 1;
  if (input.readBit()) {
    bits++;
    if (input.readBit()) {
      bits += decodeInt32BlockReversible(
        input,
        minbits - Math.min(bits, minbits),
        (maxbits - bits) >>> 0,
        iblock,
        dims,
      );
      const out = F32.bits;
      for (let i = 0; i < size; i++) {
        const x = iblock[i]!;
        out[i] = x < 0 ? x ^ 0x7fffffff : x;
      }
    } else {
      bits += 8;
      const emax = input.readBits(8) - EBIAS32;
      bits += decodeInt32BlockReversible(
        input,
        minbits - Math.min(bits, minbits),
        (maxbits - bits) >>> 0,
        iblock,
        dims,
      );
      if (emax !== -EBIAS32) invCast32(F32.values, size, emax);
      else F32.bits.fill(0, 0, size);
    }
  } else {
    F32.bits.fill(0, 0, size);
    if (minbits > bits) {
      input.skip(minbits - bits);
      bits = minbits;
    }
  }
  return bits;
}

/** Encodes the float64 block in {@link F64}; returns the bits written. */
export function encodeFloat64Block(out: BitWriter, p: ZfpParams, dims: number): number {
  const size = 1 << (2 * dims);
  const { minbits, maxbits } = p;
  const emax = exponent64(size);
  if (p.minexp < -1074) return encodeFloat64Reversible(out, p, dims, size, emax);
  const maxprec = precision(emax, p.maxprec, p.minexp, dims);
  const e = maxprec ? emax + EBIAS64 : 0;
  let bits = 1;
  if (e) {
    bits += 11;
    out.writeBits(2 * e + 1, bits);
    fwdCast64(size, emax);
    bits += encodeInt64Block(
      out,
      minbits - Math.min(bits, minbits),
      (maxbits - bits) >>> 0,
      maxprec,
      hiBlock,
      loBlock,
      dims,
    );
  } else {
    out.writeBit(0);
    if (minbits > bits) {
      out.writeZeros(minbits - bits);
      bits = minbits;
    }
  }
  return bits;
}

function encodeFloat64Reversible(
  out: BitWriter,
  p: ZfpParams,
  dims: number,
  size: number,
  emax: number,
): number {
  const { minbits, maxbits } = p;
  const bits64 = F64.bits;
  let lossless = true;
  if (emax !== -EBIAS64) {
    fwdCast64(size, emax);
    invCast64(g64, size, emax);
    for (let i = 0; i < 2 * size && lossless; i++) lossless = g64bits[i] === bits64[i];
  } else {
    hiBlock.fill(0, 0, size);
    loBlock.fill(0, 0, size);
    for (let i = 0; i < 2 * size && lossless; i++) lossless = bits64[i] === 0;
  }
  let bits = 0;
  if (lossless) {
    const e = emax + EBIAS64;
    if (!e) {
      out.writeBit(0);
      return 1;
    }
    out.writeBits(1, 2);
    out.writeBits(e, 11);
    bits = 13;
  } else {
    for (let i = 0; i < size; i++) {
      const h = bits64[2 * i + HI]!;
      const l = bits64[2 * i + LO]!;
      hiBlock[i] = h < 0 ? h ^ 0x7fffffff : h;
      loBlock[i] = h < 0 ? ~l : l;
    }
    out.writeBits(3, 2);
    bits = 2;
  }
  return (
    bits +
    encodeInt64BlockReversible(
      out,
      minbits - Math.min(bits, minbits),
      (maxbits - bits) >>> 0,
      p.maxprec,
      hiBlock,
      loBlock,
      dims,
    )
  );
}

/** Decodes a float64 block into {@link F64}; returns the bits read. */
export function decodeFloat64Block(input: BitReader, p: ZfpParams, dims: number): number {
  const size = 1 << (2 * dims);
  const { minbits, maxbits } = p;
  if (p.minexp < -1074) return decodeFloat64Reversible(input, p, dims, size);
  let bits = 1;
  if (input.readBit()) {
    bits += 11;
    const emax = input.readBits(11) - EBIAS64;
    const maxprec = precision(emax, p.maxprec, p.minexp, dims);
    bits += decodeInt64Block(
      input,
      minbits - Math.min(bits, minbits),
      (maxbits - bits) >>> 0,
      maxprec,
      hiBlock,
      loBlock,
      dims,
    );
    invCast64(F64.values, size, emax);
  } else {
    F64.bits.fill(0, 0, 2 * size);
    if (minbits > bits) {
      input.skip(minbits - bits);
      bits = minbits;
    }
  }
  return bits;
}

function decodeFloat64Reversible(
  input: BitReader,
  p: ZfpParams,
  dims: number,
  size: number,
): number {
  const { minbits, maxbits } = p;
  let bits = 1;
  if (input.readBit()) {
    bits++;
    if (input.readBit()) {
      bits += decodeInt64BlockReversible(
        input,
        minbits - Math.min(bits, minbits),
        (maxbits - bits) >>> 0,
        hiBlock,
        loBlock,
        dims,
      );
      const out = F64.bits;
      for (let i = 0; i < size; i++) {
        const h = hiBlock[i]!;
        const l = loBlock[i]!;
        out[2 * i + HI] = h < 0 ? h ^ 0x7fffffff : h;
        out[2 * i + LO] = h < 0 ? ~l : l;
      }
    } else {
      bits += 11;
      const emax = input.readBits(11) - EBIAS64;
      bits += decodeInt64BlockReversible(
        input,
        minbits - Math.min(bits, minbits),
        (maxbits - bits) >>> 0,
        hiBlock,
        loBlock,
        dims,
      );
      if (emax !== -EBIAS64) invCast64(F64.values, size, emax);
      else F64.bits.fill(0, 0, 2 * size);
    }
  } else {
    F64.bits.fill(0, 0, 2 * size);
    if (minbits > bits) {
      input.skip(minbits - bits);
      bits = minbits;
    }
  }
  return bits;
}

/** The scratch blocks of the integer types: int32 values, or int64 as hi/lo halves. */
export const INT_BLOCKS = { i32: iblock, hi: hiBlock, lo: loBlock };

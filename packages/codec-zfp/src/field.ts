/**
 * Compression and decompression of a whole array ("field"), block by block
 * in zfp's order (x fastest), with libzfp's padding of partial blocks at the
 * array's upper edges: along each axis a partial line of n < 4 values is
 * completed from its own values (n = 1: a a a a; 2: a b b a; 3: a b c a),
 * axis by axis from x up, as libzfp's `pad_block`.
 *
 * Arrays are passed as their raw memory viewed as int32 words (one per
 * element for 32-bit types, two for 64-bit ones in platform order), so
 * every bit pattern, NaN payloads included, is copied exactly.
 *
 * @module
 */
import type { BitReader, BitWriter } from "./bitstream.js";
import {
  decodeFloat32Block,
  decodeFloat64Block,
  encodeFloat32Block,
  encodeFloat64Block,
  F32,
  F64,
  INT_BLOCKS,
} from "./float.js";
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
import type { ZfpParams, ZfpType } from "./params.js";
import { HI, LO } from "./pow2.js";

/** A block's place in the array: its first element and its extent per axis (1..4). */
interface BlockPlace {
  base: number;
  count: number[];
}

const STRIDES_IN_BLOCK = [1, 4, 16, 64];

/** Visits every block in zfp's order. `sizes` are `[nx, ny, nz, nw]` up to the dimensionality. */
function forEachBlock(sizes: readonly number[], visit: (place: BlockPlace) => void): void {
  const dims = sizes.length;
  const n = [1, 1, 1, 1];
  for (let d = 0; d < dims; d++) n[d] = sizes[d]!;
  const stride = [1, n[0]!, n[0]! * n[1]!, n[0]! * n[1]! * n[2]!];
  const place: BlockPlace = { base: 0, count: [1, 1, 1, 1] };
  const count = place.count;
  for (let w = 0; w < n[3]!; w += 4) {
    count[3] = Math.min(4, n[3]! - w);
    for (let z = 0; z < n[2]!; z += 4) {
      count[2] = Math.min(4, n[2]! - z);
      for (let y = 0; y < n[1]!; y += 4) {
        count[1] = Math.min(4, n[1]! - y);
        for (let x = 0; x < n[0]!; x += 4) {
          count[0] = Math.min(4, n[0]! - x);
          place.base = x + y * stride[1]! + z * stride[2]! + w * stride[3]!;
          visit(place);
        }
      }
    }
  }
}

/**
 * Copies a block out of `src` (element `e` at `src[e * step + offset]`) into
 * `dst` (value `i` at `dst[i * dstStep + dstOffset]`), padding partial
 * lines as libzfp does.
 */
function gather(
  src: Int32Array,
  step: number,
  offset: number,
  dst: Int32Array,
  dstStep: number,
  dstOffset: number,
  sizes: readonly number[],
  place: BlockPlace,
): void {
  const dims = sizes.length;
  const count = place.count;
  const cx = count[0]!;
  const cy = count[1]!;
  const cz = count[2]!;
  const cw = count[3]!;
  const sy = dims > 1 ? sizes[0]! : 0;
  const sz = dims > 2 ? sy * sizes[1]! : 0;
  const sw = dims > 3 ? sz * sizes[2]! : 0;
  if (cx === 4 && step === 1 && dstStep === 1) {
    // Whole rows of 32-bit values (the common case).
    for (let w = 0; w < cw; w++)
      for (let z = 0; z < cz; z++)
        for (let y = 0; y < cy; y++) {
          const e = place.base + y * sy + z * sz + w * sw;
          const i = 4 * y + 16 * z + 64 * w;
          dst[i] = src[e]!;
          dst[i + 1] = src[e + 1]!;
          dst[i + 2] = src[e + 2]!;
          dst[i + 3] = src[e + 3]!;
        }
  } else {
    for (let w = 0; w < cw; w++)
      for (let z = 0; z < cz; z++)
        for (let y = 0; y < cy; y++) {
          let e = place.base + y * sy + z * sz + w * sw;
          let i = 4 * y + 16 * z + 64 * w;
          for (let x = 0; x < cx; x++, e++, i++)
            dst[i * dstStep + dstOffset] = src[e * step + offset]!;
        }
  }
  // Pad axis by axis: along axis a, lines whose later coordinates are in range.
  for (let a = 0; a < dims; a++) {
    const n = place.count[a]!;
    if (n === 4) continue;
    const s = STRIDES_IN_BLOCK[a]!;
    const lim = [4, 4, 4, 4];
    for (let d = 0; d < 4; d++) lim[d] = d < a ? 4 : d > a ? place.count[d]! : 1;
    for (let w = 0; w < lim[3]!; w++)
      for (let z = 0; z < lim[2]!; z++)
        for (let y = 0; y < lim[1]!; y++)
          for (let x = 0; x < lim[0]!; x++) {
            const p = x + 4 * y + 16 * z + 64 * w;
            const at = (k: number) => (p + k * s) * dstStep + dstOffset;
            if (n <= 1) dst[at(1)] = dst[at(0)]!;
            if (n <= 2) dst[at(2)] = dst[at(1)]!;
            dst[at(3)] = dst[at(0)]!;
          }
  }
}

/** Copies the in-range values of a block out of `src` into the array `dst`. */
function scatter(
  src: Int32Array,
  srcStep: number,
  srcOffset: number,
  dst: Int32Array,
  step: number,
  offset: number,
  sizes: readonly number[],
  place: BlockPlace,
): void {
  const dims = sizes.length;
  const count = place.count;
  const cx = count[0]!;
  const cy = count[1]!;
  const cz = count[2]!;
  const cw = count[3]!;
  const sy = dims > 1 ? sizes[0]! : 0;
  const sz = dims > 2 ? sy * sizes[1]! : 0;
  const sw = dims > 3 ? sz * sizes[2]! : 0;
  if (cx === 4 && step === 1 && srcStep === 1) {
    for (let w = 0; w < cw; w++)
      for (let z = 0; z < cz; z++)
        for (let y = 0; y < cy; y++) {
          const e = place.base + y * sy + z * sz + w * sw;
          const i = 4 * y + 16 * z + 64 * w;
          dst[e] = src[i]!;
          dst[e + 1] = src[i + 1]!;
          dst[e + 2] = src[i + 2]!;
          dst[e + 3] = src[i + 3]!;
        }
    return;
  }
  for (let w = 0; w < cw; w++)
    for (let z = 0; z < cz; z++)
      for (let y = 0; y < cy; y++) {
        let e = place.base + y * sy + z * sz + w * sw;
        let i = 4 * y + 16 * z + 64 * w;
        for (let x = 0; x < cx; x++, e++, i++)
          dst[e * step + offset] = src[i * srcStep + srcOffset]!;
      }
}

/** Encodes every block of the array `data` into `out` (`zfp_compress` without the flush). */
export function compressBlocks(
  out: BitWriter,
  data: Int32Array,
  type: ZfpType,
  sizes: readonly number[],
  p: ZfpParams,
): void {
  const dims = sizes.length;
  const reversible = p.minexp < -1074;
  const { i32, hi, lo } = INT_BLOCKS;
  forEachBlock(sizes, (place) => {
    switch (type) {
      case "float32":
        gather(data, 1, 0, F32.bits, 1, 0, sizes, place);
        encodeFloat32Block(out, p, dims);
        break;
      case "float64":
        gather(data, 2, HI, F64.bits, 2, HI, sizes, place);
        gather(data, 2, LO, F64.bits, 2, LO, sizes, place);
        encodeFloat64Block(out, p, dims);
        break;
      case "int32":
        gather(data, 1, 0, i32, 1, 0, sizes, place);
        if (reversible) encodeInt32BlockReversible(out, p.minbits, p.maxbits, p.maxprec, i32, dims);
        else encodeInt32Block(out, p.minbits, p.maxbits, p.maxprec, i32, dims);
        break;
      case "int64":
        gather(data, 2, HI, hi, 1, 0, sizes, place);
        gather(data, 2, LO, lo, 1, 0, sizes, place);
        if (reversible)
          encodeInt64BlockReversible(out, p.minbits, p.maxbits, p.maxprec, hi, lo, dims);
        else encodeInt64Block(out, p.minbits, p.maxbits, p.maxprec, hi, lo, dims);
        break;
    }
  });
}

/**
 * Decodes every block from `input` into the array `out` (`zfp_decompress`).
 * Returns false as soon as a block reads past the end of the input.
 */
export function decompressBlocks(
  input: BitReader,
  out: Int32Array,
  type: ZfpType,
  sizes: readonly number[],
  p: ZfpParams,
): boolean {
  const dims = sizes.length;
  const reversible = p.minexp < -1074;
  const { i32, hi, lo } = INT_BLOCKS;
  let ok = true;
  forEachBlock(sizes, (place) => {
    if (!ok) return;
    switch (type) {
      case "float32":
        decodeFloat32Block(input, p, dims);
        scatter(F32.bits, 1, 0, out, 1, 0, sizes, place);
        break;
      case "float64":
        decodeFloat64Block(input, p, dims);
        scatter(F64.bits, 2, HI, out, 2, HI, sizes, place);
        scatter(F64.bits, 2, LO, out, 2, LO, sizes, place);
        break;
      case "int32":
        if (reversible) decodeInt32BlockReversible(input, p.minbits, p.maxbits, i32, dims);
        else decodeInt32Block(input, p.minbits, p.maxbits, p.maxprec, i32, dims);
        scatter(i32, 1, 0, out, 1, 0, sizes, place);
        break;
      case "int64":
        if (reversible) decodeInt64BlockReversible(input, p.minbits, p.maxbits, hi, lo, dims);
        else decodeInt64Block(input, p.minbits, p.maxbits, p.maxprec, hi, lo, dims);
        scatter(hi, 1, 0, out, 2, HI, sizes, place);
        scatter(lo, 1, 0, out, 2, LO, sizes, place);
        break;
    }
    if (input.overrun) ok = false;
  });
  return ok;
}

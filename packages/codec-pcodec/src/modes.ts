/**
 * Joining latents into numbers (format spec, "Modes"), written as raw bits
 * into the output's little-endian memory.
 *
 * @module
 */
import { float64ToFloat16Bits } from "@zarr/core/codec";
import { corrupt } from "./errors.js";
import type { Latents } from "./latents.js";
import { maskOf, midOf } from "./latents.js";
import { floatOfLatent, type Mode } from "./metadata.js";
import type { PcoNumberType } from "./number-types.js";

/** Output words: the numbers (8/16/32-bit) or their low/high word pairs (64-bit). */
export type OutputWords = Uint8Array | Uint16Array | Uint32Array;

/** The `from_latent_ordered` of a narrow latent, as the number's bits. */
function fromLatentNarrow(
  kind: PcoNumberType["kind"],
  l: number,
  mid: number,
  mask: number,
): number {
  if (kind === "uint") return l;
  if (kind === "int") return l ^ mid;
  return l & mid ? l ^ mid : ~l & mask;
}

/** Writes the numbers of `n` latents (`out` at element `at`) under `mode`. */
export function joinLatents(
  mode: Mode,
  type: PcoNumberType,
  primary: Latents,
  secondary: Latents | undefined,
  out: OutputWords,
  at: number,
): void {
  if (type.bits === 64) {
    join64(mode, type, primary, secondary, out as Uint32Array, at);
    return;
  }
  const n = primary.lo.length;
  const kind = type.kind;
  const mask = maskOf(type.bits);
  const mid = midOf(type.bits);
  const l0 = primary.lo;
  switch (mode.kind) {
    case "classic":
      for (let i = 0; i < n; i++) out[at + i] = fromLatentNarrow(kind, l0[i], mid, mask);
      return;
    case "dict": {
      const dict = mode.lo;
      for (let i = 0; i < n; i++) {
        const idx = l0[i];
        if (idx >= dict.length)
          corrupt(`dictionary index ${idx} exceeds the ${dict.length} values`);
        out[at + i] = fromLatentNarrow(kind, dict[idx], mid, mask);
      }
      return;
    }
    case "int_mult": {
      const l1 = secondary!.lo;
      const base = mode.baseLo;
      for (let i = 0; i < n; i++) {
        out[at + i] = fromLatentNarrow(kind, (Math.imul(l0[i], base) + l1[i]) & mask, mid, mask);
      }
      return;
    }
    case "float_quant": {
      const l1 = secondary!.lo;
      const k = mode.k;
      const cutoff = mid / 2 ** k;
      const lowMax = 2 ** k - 1;
      for (let i = 0; i < n; i++) {
        const y = l0[i];
        const low = y >= cutoff ? l1[i] : (lowMax - l1[i]) & mask;
        out[at + i] = fromLatentNarrow(kind, ((y << k) + low) & mask, mid, mask);
      }
      return;
    }
    case "float_mult": {
      const l1 = secondary!.lo;
      const base = floatOfLatent(mode.baseLo, 0, type);
      for (let i = 0; i < n; i++) {
        const unadjusted = toLatentNarrow(multiplyIntFloat(l0[i], base, type), mid, mask);
        const l = (unadjusted + l1[i] + mid) & mask;
        out[at + i] = fromLatentNarrow(kind, l, mid, mask);
      }
      return;
    }
  }
}

/** `to_latent_ordered` of a float's bits. */
function toLatentNarrow(bits: number, mid: number, mask: number): number {
  return bits & mid ? ~bits & mask : bits ^ mid;
}

const f32 = new Float32Array(1);
const f32Word = new Uint32Array(f32.buffer);

/**
 * The bits of `int_float_from_latent(l) * base` in a 16- or 32-bit float
 * type. The product of two such floats is exact in float64, so rounding it
 * once gives the type's own product. A NaN operand propagates quieted, as the
 * hardware Pco runs on does.
 */
function multiplyIntFloat(l: number, base: number, type: PcoNumberType): number {
  const mid = midOf(type.bits);
  const negative = l < mid;
  const abs = negative ? mid - 1 - l : l - mid;
  const gpi = 2 ** (type.precisionBits + 1);
  let value: number;
  if (abs < gpi) value = abs;
  else {
    // Past the largest exactly-counted integer, successive bit patterns.
    const gpiBits = (type.bits === 32 ? 127 + 24 : 15 + 11) * 2 ** type.precisionBits;
    let bits = gpiBits + (abs - gpi);
    if (negative) bits = (bits ^ mid) >>> 0;
    const f = floatBits(bits, type);
    if (Number.isNaN(f)) return (bits | (1 << (type.precisionBits - 1))) >>> 0;
    return productBits(f, base, type);
  }
  return productBits(negative ? -value : value, base, type);
}

function floatBits(bits: number, type: PcoNumberType): number {
  if (type.bits === 32) {
    f32Word[0] = bits;
    return f32[0];
  }
  return float16Value(bits);
}

function float16Value(h: number): number {
  const exp = (h >>> 10) & 0x1f;
  const frac = h & 0x3ff;
  const sign = h & 0x8000 ? -1 : 1;
  if (exp === 0x1f) return frac ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (exp === 0 ? frac * 2 ** -24 : (1024 + frac) * 2 ** (exp - 25));
}

function productBits(a: number, base: number, type: PcoNumberType): number {
  if (type.bits === 32) {
    f32[0] = a * base;
    return f32Word[0];
  }
  return float64ToFloat16Bits(a * base);
}

const f64 = new Float64Array(1);
const f64Words = new Uint32Array(f64.buffer);

function join64(
  mode: Mode,
  type: PcoNumberType,
  primary: Latents,
  secondary: Latents | undefined,
  out: Uint32Array,
  at: number,
): void {
  const n = primary.lo.length;
  const kind = type.kind;
  const { lo: pLo, hi: pHi } = primary;
  // Writes from_latent_ordered(lo, hi) at element i.
  const put = (i: number, lo: number, hi: number) => {
    const o = 2 * (at + i);
    if (kind === "float" && !(hi & 0x80000000)) {
      out[o] = ~lo;
      out[o + 1] = ~hi;
    } else {
      out[o] = lo;
      out[o + 1] = kind === "uint" ? hi : hi ^ 0x80000000;
    }
  };
  switch (mode.kind) {
    case "classic":
      if (kind === "uint") {
        for (let i = 0; i < n; i++) {
          out[2 * (at + i)] = pLo[i];
          out[2 * (at + i) + 1] = pHi[i];
        }
      } else for (let i = 0; i < n; i++) put(i, pLo[i], pHi[i]);
      return;
    case "dict": {
      const { lo, hi } = mode;
      for (let i = 0; i < n; i++) {
        const idx = pLo[i];
        if (idx >= lo.length) corrupt(`dictionary index ${idx} exceeds the ${lo.length} values`);
        put(i, lo[idx], hi[idx]);
      }
      return;
    }
    case "int_mult": {
      const { lo: sLo, hi: sHi } = secondary!;
      const { baseLo, baseHi } = mode;
      for (let i = 0; i < n; i++) {
        const [mLo, mHi] = mul64(pLo[i], pHi[i], baseLo, baseHi);
        const sum = mLo + sLo[i];
        put(i, sum >>> 0, (mHi + sHi[i] + (sum > 0xffffffff ? 1 : 0)) >>> 0);
      }
      return;
    }
    case "float_quant": {
      const { lo: sLo, hi: sHi } = secondary!;
      const k = mode.k;
      // cutoff = 2^63 >> k; lowMax = 2^k - 1, as (lo, hi) words.
      const cutHi = k < 32 ? 0x80000000 / 2 ** k : 0;
      const cutLo = k < 32 ? 0 : 2 ** (63 - k);
      const maxLo = k >= 32 ? 0xffffffff : 2 ** k - 1;
      const maxHi = k >= 32 ? 2 ** (k - 32) - 1 : 0;
      for (let i = 0; i < n; i++) {
        const yLo = pLo[i];
        const yHi = pHi[i];
        let lowLo = sLo[i];
        let lowHi = sHi[i];
        if (yHi < cutHi || (yHi === cutHi && yLo < cutLo)) {
          // lowMax - m, wrapping
          const d = maxLo - lowLo;
          lowLo = d >>> 0;
          lowHi = (maxHi - lowHi - (d < 0 ? 1 : 0)) >>> 0;
        }
        let shLo: number;
        let shHi: number;
        if (k >= 32) {
          shLo = 0;
          shHi = (yLo << (k - 32)) >>> 0;
        } else {
          shLo = (yLo << k) >>> 0;
          shHi = ((yHi << k) | (yLo >>> (32 - k))) >>> 0;
        }
        const sum = shLo + lowLo;
        put(i, sum >>> 0, (shHi + lowHi + (sum > 0xffffffff ? 1 : 0)) >>> 0);
      }
      return;
    }
    case "float_mult": {
      const { lo: sLo, hi: sHi } = secondary!;
      const base = floatOfLatent(mode.baseLo, mode.baseHi, type);
      for (let i = 0; i < n; i++) {
        multiplyIntFloat64(pLo[i], pHi[i], base);
        let uLo = f64Words[0];
        let uHi = f64Words[1];
        // to_latent_ordered
        if (uHi & 0x80000000) {
          uLo = ~uLo >>> 0;
          uHi = ~uHi >>> 0;
        } else uHi = (uHi ^ 0x80000000) >>> 0;
        const sum = uLo + sLo[i];
        // + adjustment + MID (toggle center)
        put(i, sum >>> 0, (uHi + sHi[i] + (sum > 0xffffffff ? 1 : 0) + 0x80000000) >>> 0);
      }
      return;
    }
  }
}

/** Leaves the bits of `int_float_from_latent(hi:lo) * base` (float64) in `f64Words`. */
function multiplyIntFloat64(lo: number, hi: number, base: number): void {
  const negative = hi < 0x80000000;
  const absHi = negative ? 0x7fffffff - hi : hi - 0x80000000;
  const absLo = negative ? 0xffffffff - lo : lo;
  if (absHi < 0x200000) {
    // below 2^53: the integer itself
    const value = absHi * 2 ** 32 + absLo;
    f64[0] = (negative ? -value : value) * base;
    return;
  }
  f64Words[0] = absLo;
  f64Words[1] = ((absHi - 0x200000 + 0x43400000) ^ (negative ? 0x80000000 : 0)) >>> 0;
  if (Number.isNaN(f64[0])) {
    f64Words[1] |= 0x80000; // quieted, payload kept
    return;
  }
  f64[0] = f64[0] * base;
}

/** The low 64 bits of `(aHi:aLo) * (bHi:bLo)`. */
function mul64(aLo: number, aHi: number, bLo: number, bHi: number): [number, number] {
  const a0 = aLo & 0xffff;
  const a1 = aLo >>> 16;
  const b0 = bLo & 0xffff;
  const b1 = bLo >>> 16;
  const mid = a0 * b1 + a1 * b0; // < 2^33
  const low = a0 * b0 + (mid % 65536) * 65536; // < 2^33
  const lo = low % 4294967296;
  const carry = Math.floor(low / 4294967296);
  const hi = a1 * b1 + Math.floor(mid / 65536) + carry + Math.imul(aLo, bHi) + Math.imul(aHi, bLo);
  return [lo >>> 0, hi >>> 0];
}

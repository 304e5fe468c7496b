/**
 * The encoder's mode candidates (format spec, "Modes", inverted): the
 * latents of a chunk split into primary and secondary latents whose join is
 * exactly the input. Candidates are only proposed; the encoder keeps the
 * one that codes a sample smallest, so a poor candidate costs time, never
 * size or correctness.
 *
 * - FloatQuant(k) when every float's low `k` significand bits are 0 (e.g.
 *   float64 data that was float32): the secondary latents are all 0.
 * - IntMult(g) when all integers are congruent modulo `g > 1` (their
 *   differences' GCD, e.g. timestamps in whole seconds stored in
 *   nanoseconds): the secondary latents are all equal.
 * - FloatMult(10^-d), d = 0..6, when at least half of a sample of the floats
 *   is exactly `round(x / base) * base` (decimal data): the secondary
 *   latents are the ULP adjustments, found by joining the primary latents
 *   with this package's decoder so that decoding reproduces every input bit.
 *
 * @module
 */

import { float16BitsToNumber, float64ToFloat16Bits } from "@zarr/core/codec";
import { allocLatents, type Latents, maskOf, midOf } from "./latents.js";
import type { Mode } from "./metadata.js";
import { floatOfLatent } from "./metadata.js";
import { joinLatents } from "./modes.js";
import type { PcoNumberType } from "./number-types.js";

/** A chunk's latents split under a mode. */
export interface ModeSplit {
  readonly mode: Mode;
  readonly primary: Latents;
  readonly secondary?: Latents;
  /** The oldest wrapped format version with this mode. */
  readonly minFormat: number;
}

/** Classic: the latents themselves. */
export function classicSplit(latents: Latents): ModeSplit {
  return { mode: { kind: "classic" }, primary: latents, minFormat: 1 };
}

/** Trailing zero bits of `x` (32 for 0). */
function tz32(x: number): number {
  return x === 0 ? 32 : 31 - Math.clz32(x & -x);
}

/** FloatQuant with the largest `k` that keeps every number exact and the secondary latents 0. */
export function floatQuantSplit(latents: Latents, type: PcoNumberType): ModeSplit | undefined {
  if (type.kind !== "float") return undefined;
  const n = latents.lo.length;
  const wide = type.bits === 64;
  const mid = midOf(type.bits);
  const mask = maskOf(type.bits);
  let k = type.precisionBits;
  for (let i = 0; i < n && k > 0; i++) {
    // The float's low bits: the latent's for positives, its complement's for negatives.
    const positive = wide ? latents.hi[i] >= 0x80000000 : latents.lo[i] >= mid;
    const lo = positive ? latents.lo[i] : ~latents.lo[i] & mask;
    if (wide) {
      const hi = (positive ? latents.hi[i] : ~latents.hi[i]) & 0x7fffffff;
      k = Math.min(k, lo !== 0 ? tz32(lo) : hi !== 0 ? 32 + tz32(hi) : k);
    } else {
      const bits = lo & (mid - 1);
      k = Math.min(k, bits !== 0 ? tz32(bits) : k);
    }
  }
  if (k === 0) return undefined;
  const primary = allocLatents(type.bits, n);
  const secondary = allocLatents(type.bits, n);
  for (let i = 0; i < n; i++) {
    if (wide) {
      const lo = latents.lo[i];
      const hi = latents.hi[i];
      primary.lo[i] = k >= 32 ? hi >>> (k - 32) : ((lo >>> k) | (hi << (32 - k))) >>> 0;
      primary.hi[i] = k >= 32 ? 0 : hi >>> k;
    } else {
      primary.lo[i] = latents.lo[i] >>> k;
    }
  }
  return { mode: { kind: "float_quant", k }, primary, secondary, minFormat: 2 };
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

function gcdBig(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** IntMult by the GCD of the latents' differences, when it is above 1. */
export function intMultSplit(latents: Latents, type: PcoNumberType): ModeSplit | undefined {
  if (type.kind === "float") return undefined;
  const n = latents.lo.length;
  if (n < 2) return undefined;
  const primary = allocLatents(type.bits, n);
  const secondary = allocLatents(type.bits, n);
  if (type.bits !== 64) {
    const l = latents.lo;
    let g = 0;
    for (let i = 1; i < n && g !== 1; i++) g = gcd(g, Math.abs(l[i] - l[0]));
    if (g <= 1) return undefined;
    for (let i = 0; i < n; i++) {
      primary.lo[i] = Math.floor(l[i] / g);
      secondary.lo[i] = l[i] % g;
    }
    return { mode: { kind: "int_mult", baseLo: g, baseHi: 0 }, primary, secondary, minFormat: 1 };
  }
  const big = (i: number) => (BigInt(latents.hi[i]) << 32n) | BigInt(latents.lo[i]);
  const first = big(0);
  let g = 0n;
  for (let i = 1; i < n && g !== 1n; i++) {
    const d = big(i) - first;
    g = gcdBig(g, d < 0n ? -d : d);
  }
  if (g <= 1n) return undefined;
  for (let i = 0; i < n; i++) {
    const v = big(i);
    const q = v / g;
    const r = v % g;
    primary.lo[i] = Number(q & 0xffffffffn);
    primary.hi[i] = Number(q >> 32n);
    secondary.lo[i] = Number(r & 0xffffffffn);
    secondary.hi[i] = Number(r >> 32n);
  }
  return {
    mode: { kind: "int_mult", baseLo: Number(g & 0xffffffffn), baseHi: Number(g >> 32n) },
    primary,
    secondary,
    minFormat: 1,
  };
}

function floatOfLatentPair(lo: number, hi: number, type: PcoNumberType): number {
  return floatOfLatent(lo, hi, type);
}

const f64 = new Float64Array(1);
const f64Words = new Uint32Array(f64.buffer);
const f32 = new Float32Array(1);
const f32Word = new Uint32Array(f32.buffer);

/** The float value of each latent (`from_latent_ordered`). */
function floatValues(latents: Latents, type: PcoNumberType): Float64Array {
  const n = latents.lo.length;
  const out = new Float64Array(n);
  const mid = midOf(type.bits);
  const mask = maskOf(type.bits);
  for (let i = 0; i < n; i++) {
    if (type.bits === 64) {
      const hi = latents.hi[i];
      const positive = hi >= 0x80000000;
      f64Words[0] = positive ? latents.lo[i] : ~latents.lo[i];
      f64Words[1] = positive ? hi ^ 0x80000000 : ~hi;
      out[i] = f64[0];
    } else {
      const l = latents.lo[i];
      const bits = l & mid ? l ^ mid : ~l & mask;
      if (type.bits === 32) {
        f32Word[0] = bits;
        out[i] = f32[0];
      } else out[i] = float16BitsToNumber(bits);
    }
  }
  return out;
}

/** `to_latent_ordered` of a float of the type. */
function latentOfFloat(x: number, type: PcoNumberType, out: Latents, i: number): void {
  if (type.bits === 64) {
    f64[0] = x;
    const [lo, hi] = [f64Words[0], f64Words[1]];
    const negative = hi >= 0x80000000;
    out.lo[i] = negative ? ~lo : lo;
    out.hi[i] = negative ? ~hi : hi ^ 0x80000000;
    return;
  }
  let bits: number;
  if (type.bits === 32) {
    f32[0] = x;
    bits = f32Word[0];
  } else bits = float64ToFloat16Bits(x);
  const mid = midOf(type.bits);
  out.lo[i] = bits & mid ? ~bits & maskOf(type.bits) : bits ^ mid;
}

/**
 * FloatMult candidates for decimal bases 10^-d (d = 0..6), most exact matches
 * first (at most two), or only the base whose latent is `only` (lo, hi).
 */
export function floatMultSplits(
  latents: Latents,
  type: PcoNumberType,
  only?: [number, number],
): ModeSplit[] {
  if (type.kind !== "float") return [];
  const n = latents.lo.length;
  const values = floatValues(latents, type);
  const gpi = 2 ** (type.precisionBits + 1);
  for (let i = 0; i < n; i++) if (!Number.isFinite(values[i])) return [];
  const round = (x: number) =>
    type.bits === 64
      ? x
      : type.bits === 32
        ? Math.fround(x)
        : float16BitsToNumber(float64ToFloat16Bits(x));
  const step = Math.max(1, Math.floor(n / 256));
  const scored: [number, number][] = [];
  const onlyBase = only && floatOfLatentPair(only[0], only[1], type);
  for (let d = 0; d <= 6; d++) {
    const base = round(10 ** -d);
    if (onlyBase !== undefined && base !== onlyBase) continue;
    let exact = 0;
    let total = 0;
    let fits = true;
    for (let i = 0; i < n; i += step) {
      const m = Math.round(values[i] / base);
      if (Math.abs(m) >= gpi / 2) {
        fits = false;
        break;
      }
      total++;
      if (round(m * base) === values[i]) exact++;
    }
    if (fits && exact * 2 >= total && total > 0) scored.push([exact / total, base]);
  }
  if (onlyBase !== undefined)
    return scored.map(([, base]) => floatMultSplit(values, latents, type, base));
  scored.sort((a, b) => b[0] - a[0] || b[1] - a[1]);
  return scored.slice(0, 2).map(([, base]) => floatMultSplit(values, latents, type, base));
}

function floatMultSplit(
  values: Float64Array,
  latents: Latents,
  type: PcoNumberType,
  base: number,
): ModeSplit {
  const n = values.length;
  const gpi = 2 ** (type.precisionBits + 1);
  const mid = midOf(type.bits);
  const baseLatent = allocLatents(type.bits, 1);
  latentOfFloat(base, type, baseLatent, 0);
  const mode: Mode = {
    kind: "float_mult",
    baseLo: baseLatent.lo[0],
    baseHi: baseLatent.hi[0] ?? 0,
  };
  const primary = allocLatents(type.bits, n);
  const secondary = allocLatents(type.bits, n);
  for (let i = 0; i < n; i++) {
    // int_float_to_latent of the multiplier (|m| < 2^precision): MID + m, or MID - 1 - |m|
    // Any multiplier decodes exactly (the adjustment makes up the rest); one
    // past the exactly representable integers is replaced by 0.
    const rounded = Math.round(values[i] / base);
    const m = Math.abs(rounded) < gpi / 2 ? rounded : 0;
    const negative = m < 0 || Object.is(m, -0);
    const abs = Math.abs(m);
    if (type.bits === 64) {
      const absLo = abs % 4294967296;
      const absHi = Math.floor(abs / 4294967296);
      primary.lo[i] = negative ? 0xffffffff - absLo : absLo;
      primary.hi[i] = negative ? 0x7fffffff - absHi : 0x80000000 + absHi;
      secondary.hi[i] = 0x80000000;
    } else {
      primary.lo[i] = negative ? mid - 1 - abs : mid + abs;
      secondary.lo[i] = mid;
    }
  }
  // Join with zero adjustments, as the decoder will, then store the difference in ULPs.
  const joined = new Uint8Array(n * (type.bits / 8));
  const words =
    type.bits === 64
      ? new Uint32Array(joined.buffer)
      : type.bits === 32
        ? new Uint32Array(joined.buffer)
        : new Uint16Array(joined.buffer);
  joinLatents(mode, type, primary, secondary, words, 0);
  const mask = maskOf(type.bits);
  for (let i = 0; i < n; i++) {
    if (type.bits === 64) {
      const lo = words[2 * i];
      const hi = words[2 * i + 1];
      const negative = hi >= 0x80000000;
      const yLo = negative ? ~lo >>> 0 : lo;
      const yHi = negative ? ~hi >>> 0 : (hi ^ 0x80000000) >>> 0;
      // adj = latent(x) - latent(y) + MID
      const d = latents.lo[i] - yLo;
      secondary.lo[i] = d;
      secondary.hi[i] = latents.hi[i] - yHi - (d < 0 ? 1 : 0) + 0x80000000;
    } else {
      const bits = words[i];
      const y = bits & mid ? ~bits & mask : bits ^ mid;
      secondary.lo[i] = (latents.lo[i] - y + mid) & mask;
    }
  }
  return { mode, primary, secondary, minFormat: 1 };
}

/**
 * Chunk metadata (format spec, "Chunk Metadata"): the mode, the delta
 * encoding, and per latent variable the tANS size and the bins.
 *
 * @module
 */
import { MAX_ANS_BITS } from "./ans.js";
import type { BitReader } from "./bit-reader.js";
import { corrupt } from "./errors.js";
import type { PcoNumberType } from "./number-types.js";

/** A wrapped format version (spec, "Header"). */
export interface FormatVersion {
  readonly major: number;
  readonly minor: number;
}

/** The newest wrapped format version this implementation is known to read fully. */
export const MAX_SUPPORTED_FORMAT: FormatVersion = { major: 4, minor: 1 };

/** Latent widths: the number type's, or u32 for Dict indices and lookbacks. */
export type LatentBits = 8 | 16 | 32 | 64;

/** The bins of one latent variable; `lowerHi` holds the high words of 64-bit lowers. */
export interface Bins {
  readonly count: number;
  readonly weights: Uint32Array;
  readonly lowerLo: Uint32Array;
  readonly lowerHi: Uint32Array;
  readonly offsetBits: Uint8Array;
}

/** Metadata of one latent variable. */
export interface LatentVarMeta {
  readonly bits: LatentBits;
  readonly ansSizeLog: number;
  readonly bins: Bins;
}

/** The mode (spec, "Modes"); 64-bit values are split into low and high words. */
export type Mode =
  | { readonly kind: "classic" }
  | { readonly kind: "int_mult"; readonly baseLo: number; readonly baseHi: number }
  | { readonly kind: "float_mult"; readonly baseLo: number; readonly baseHi: number }
  | { readonly kind: "float_quant"; readonly k: number }
  | { readonly kind: "dict"; readonly lo: Uint32Array; readonly hi: Uint32Array };

/** The chunk's delta encoding (spec, "Delta Encodings"). */
export type DeltaEncoding =
  | { readonly kind: "none" }
  | { readonly kind: "consecutive"; readonly order: number; readonly secondaryUsesDelta: boolean }
  | {
      readonly kind: "lookback";
      readonly windowNLog: number;
      readonly stateNLog: number;
      readonly secondaryUsesDelta: boolean;
    }
  | {
      readonly kind: "conv1";
      readonly quantization: number;
      readonly bias: bigint;
      readonly weights: readonly number[];
    };

/** The delta encoding applied to one latent variable. */
export type VarDelta =
  | { readonly kind: "none" }
  | { readonly kind: "consecutive"; readonly order: number }
  | { readonly kind: "lookback"; readonly windowNLog: number; readonly stateNLog: number }
  | {
      readonly kind: "conv1";
      readonly quantization: number;
      readonly bias: bigint;
      readonly weights: readonly number[];
    };

/** Which latent variable. */
export type LatentVarKey = "delta" | "primary" | "secondary";

/** A parsed chunk metadata. */
export interface ChunkMeta {
  readonly mode: Mode;
  readonly delta: DeltaEncoding;
  readonly vars: {
    readonly delta?: LatentVarMeta;
    readonly primary: LatentVarMeta;
    readonly secondary?: LatentVarMeta;
  };
}

const NONE: VarDelta = { kind: "none" };

/** The delta encoding of latent variable `key` (delta latents are never delta encoded). */
export function deltaForVar(delta: DeltaEncoding, key: LatentVarKey): VarDelta {
  if (key === "delta" || delta.kind === "none") return NONE;
  if (delta.kind === "conv1") return key === "primary" ? delta : NONE;
  if (key === "secondary" && !delta.secondaryUsesDelta) return NONE;
  return delta.kind === "consecutive"
    ? { kind: "consecutive", order: delta.order }
    : { kind: "lookback", windowNLog: delta.windowNLog, stateNLog: delta.stateNLog };
}

/** Latents per page stored explicitly as delta state (`state_n`). */
export function stateN(delta: VarDelta): number {
  switch (delta.kind) {
    case "none":
      return 0;
    case "consecutive":
      return delta.order;
    case "lookback":
      return 2 ** delta.stateNLog;
    case "conv1":
      return delta.weights.length;
  }
}

/** Bits of `offset_bits` in a bin: `log2(dtype_size) + 1`. */
export function offsetBitsBits(bits: LatentBits): number {
  return 32 - Math.clz32(bits);
}

function readMode(r: BitReader, version: FormatVersion, type: PcoNumberType): Mode {
  const bits = type.bits;
  r.require(4, "the chunk's mode");
  const value = r.read(4);
  if (value === 1 || value === 2) r.require(bits, "the mode's base");
  switch (value) {
    case 0:
      return { kind: "classic" };
    case 1: {
      if (version.major === 0) {
        corrupt("IntMult mode in format version 0 (pco 0.0.0's GCD mode) is not supported");
      }
      const baseLo = r.read64(bits);
      return { kind: "int_mult", baseLo, baseHi: r.hi };
    }
    case 2: {
      const baseLo = r.read64(bits);
      return { kind: "float_mult", baseLo, baseHi: r.hi };
    }
    case 3:
      r.require(8, "the FloatQuant mode's k");
      return { kind: "float_quant", k: r.read(8) };
    case 4: {
      r.require(25, "the Dict mode's length");
      const n = r.read(25);
      r.drainEmptyByte("the Dict mode's length");
      r.require(n * bits, `a dictionary of ${n} values`);
      const lo = new Uint32Array(n);
      const hi = new Uint32Array(bits === 64 ? n : 0);
      for (let i = 0; i < n; i++) {
        lo[i] = r.read64(bits);
        if (bits === 64) hi[i] = r.hi;
      }
      return { kind: "dict", lo, hi };
    }
    default:
      return corrupt(`unknown mode ${value}`);
  }
}

function readDelta(r: BitReader, version: FormatVersion): DeltaEncoding {
  r.require(4, "the chunk's delta encoding");
  if (version.major < 3) {
    // Before format 3: 3 bits of consecutive order, 0 meaning none.
    const order = r.read(3);
    return order === 0
      ? { kind: "none" }
      : { kind: "consecutive", order, secondaryUsesDelta: false };
  }
  const variant = r.read(4);
  switch (variant) {
    case 0:
      return { kind: "none" };
    case 1: {
      r.require(4, "the consecutive delta encoding");
      const order = r.read(3);
      if (order === 0) corrupt("consecutive delta encoding of order 0");
      return { kind: "consecutive", order, secondaryUsesDelta: r.read(1) === 1 };
    }
    case 2: {
      r.require(10, "the lookback delta encoding");
      const windowNLog = 1 + r.read(5);
      const stateNLog = r.read(4);
      // A chunk holds at most 2^24 numbers, so a larger window is never used.
      if (windowNLog > 24) corrupt(`lookback window size log ${windowNLog} exceeds 24`);
      if (stateNLog > windowNLog) {
        corrupt(`lookback state size log ${stateNLog} exceeds the window size log ${windowNLog}`);
      }
      return { kind: "lookback", windowNLog, stateNLog, secondaryUsesDelta: r.read(1) === 1 };
    }
    case 3: {
      r.require(5 + 64 + 5, "the Conv1 delta encoding");
      const quantization = r.read(5);
      const lo = r.read(32);
      const hi = r.read(32);
      // i64::from_latent_ordered: the raw value minus 2^63.
      const bias = BigInt.asIntN(64, ((BigInt(hi) << 32n) | BigInt(lo)) ^ (1n << 63n));
      const order = 1 + r.read(5);
      r.require(order * 32, "the Conv1 weights");
      const weights: number[] = [];
      for (let i = 0; i < order; i++) weights.push((r.read(32) ^ 0x80000000) | 0);
      return { kind: "conv1", quantization, bias, weights };
    }
    default:
      return corrupt(`unknown delta encoding ${variant}`);
  }
}

function readLatentVar(r: BitReader, bits: LatentBits, what: string): LatentVarMeta {
  r.require(4 + 15, `the ${what} latent variable's metadata`);
  const ansSizeLog = r.read(4);
  const count = r.read(15);
  if (ansSizeLog > MAX_ANS_BITS) {
    corrupt(`tANS size log ${ansSizeLog} exceeds ${MAX_ANS_BITS} (${what} latents)`);
  }
  if (2 ** ansSizeLog < count) {
    corrupt(`tANS size log ${ansSizeLog} is too small for ${count} bins (${what} latents)`);
  }
  if (count === 1 && ansSizeLog > 0) {
    corrupt(`a single bin with tANS size log ${ansSizeLog} (should be 0; ${what} latents)`);
  }
  const obBits = offsetBitsBits(bits);
  r.require(count * (ansSizeLog + bits + obBits), `${count} bins of the ${what} latents`);
  const weights = new Uint32Array(count);
  const lowerLo = new Uint32Array(count);
  const lowerHi = new Uint32Array(bits === 64 ? count : 0);
  const offsetBits = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    weights[i] = r.read(ansSizeLog) + 1;
    lowerLo[i] = r.read64(bits);
    if (bits === 64) lowerHi[i] = r.hi;
    const ob = r.read(obBits);
    if (ob > bits) corrupt(`a bin's ${ob} offset bits exceed the ${bits}-bit ${what} latents`);
    offsetBits[i] = ob;
  }
  return { bits, ansSizeLog, bins: { count, weights, lowerLo, lowerHi, offsetBits } };
}

function validate(meta: ChunkMeta, type: PcoNumberType): void {
  const { mode, delta } = meta;
  const float = type.kind === "float";
  switch (mode.kind) {
    case "int_mult":
      if (float) corrupt("IntMult mode on a float type");
      if (mode.baseLo === 0 && mode.baseHi === 0) corrupt("IntMult mode with base 0");
      break;
    case "float_mult":
      if (!float) corrupt("FloatMult mode on an integer type");
      if (!floatBaseIsValid(mode.baseLo, mode.baseHi, type)) {
        corrupt("FloatMult mode with a base that is zero, infinite or NaN");
      }
      break;
    case "float_quant":
      if (!float) corrupt("FloatQuant mode on an integer type");
      if (mode.k === 0 || mode.k > type.precisionBits) {
        corrupt(`FloatQuant mode with k = ${mode.k} (must be 1..${type.precisionBits})`);
      }
      break;
  }
  if (delta.kind === "lookback") {
    const window = 2 ** delta.windowNLog;
    const bins = meta.vars.delta!.bins;
    for (let i = 0; i < bins.count; i++) {
      const lower = bins.lowerLo[i];
      if (lower < 1 || lower > window) {
        corrupt(`a lookback bin's lower bound ${lower} is outside the window [1, ${window}]`);
      }
    }
  }
  if (delta.kind === "conv1") {
    const bits = meta.vars.primary.bits;
    if (bits === 64) corrupt("Conv1 delta encoding on 64-bit latents");
    const convBits = 2 * bits;
    const maxQuantization = Math.min(31, convBits - 1);
    if (delta.quantization > maxQuantization) {
      corrupt(`Conv1 quantization ${delta.quantization} exceeds ${maxQuantization}`);
    }
    let sumAbs = 0;
    for (const w of delta.weights) sumAbs += Math.abs(w);
    const bias = Math.abs(Number(delta.bias));
    if (bias + 2 ** bits * sumAbs >= 2 ** (convBits - 1)) {
      corrupt("Conv1 weights and bias risk overflowing");
    }
  }
}

const f64 = new Float64Array(1);
const f64Words = new Uint32Array(f64.buffer);
const f32 = new Float32Array(1);
const f32Word = new Uint32Array(f32.buffer);

/** True when the FloatMult base (a latent, `to_latent_ordered` of the float) is finite and nonzero. */
function floatBaseIsValid(lo: number, hi: number, type: PcoNumberType): boolean {
  const value = floatOfLatent(lo, hi, type);
  return Number.isFinite(value) && value !== 0;
}

/** The float whose `to_latent_ordered` is `hi:lo` (the spec's `from_unsigned`). */
export function floatOfLatent(lo: number, hi: number, type: PcoNumberType): number {
  if (type.bits === 64) {
    const positive = (hi & 0x80000000) !== 0;
    f64Words[0] = positive ? lo : ~lo;
    f64Words[1] = positive ? hi ^ 0x80000000 : ~hi;
    return f64[0];
  }
  if (type.bits === 32) {
    f32Word[0] = lo & 0x80000000 ? lo ^ 0x80000000 : ~lo;
    return f32[0];
  }
  const h = lo & 0x8000 ? lo ^ 0x8000 : ~lo & 0xffff;
  const exp = (h >>> 10) & 0x1f;
  const frac = h & 0x3ff;
  const sign = h & 0x8000 ? -1 : 1;
  if (exp === 0x1f) return frac ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (exp === 0 ? frac * 2 ** -24 : (1024 + frac) * 2 ** (exp - 25));
}

/** Reads a chunk's metadata at a byte boundary; leaves the reader at the next byte boundary. */
export function readChunkMeta(
  r: BitReader,
  version: FormatVersion,
  type: PcoNumberType,
): ChunkMeta {
  const mode = readMode(r, version, type);
  const delta = readDelta(r, version);
  const deltaVar = delta.kind === "lookback" ? readLatentVar(r, 32, "lookback") : undefined;
  const primary = readLatentVar(r, mode.kind === "dict" ? 32 : type.bits, "primary");
  const secondary =
    mode.kind === "int_mult" || mode.kind === "float_mult" || mode.kind === "float_quant"
      ? readLatentVar(r, type.bits, "secondary")
      : undefined;
  r.drainEmptyByte("the chunk metadata");
  const meta: ChunkMeta = { mode, delta, vars: { delta: deltaVar, primary, secondary } };
  validate(meta, type);
  return meta;
}

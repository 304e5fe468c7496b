/**
 * zfp's compression parameters (zfp documentation, "Compression modes"):
 * every mode is a setting of `minbits`, `maxbits` (bits per block),
 * `maxprec` (bit planes) and `minexp` (smallest bit plane's exponent); the
 * reversible mode is `minexp` below `ZFP_MIN_EXP`. Also the header's 12- or
 * 64-bit encoding of them ("Header format" / `zfp_stream_mode`).
 *
 * @module
 */
import { frexpExponent } from "./pow2.js";

export const ZFP_MIN_BITS = 1;
export const ZFP_MAX_BITS = 16658;
export const ZFP_MAX_PREC = 64;
export const ZFP_MIN_EXP = -1074;
/** Largest short (12-bit) mode code. */
const MODE_SHORT_MAX = 4094;

/** The scalar types of zfp, numbered as in its header (`zfp_type`). */
export type ZfpType = "int32" | "int64" | "float32" | "float64";
export const TYPE_CODES: Readonly<Record<ZfpType, number>> = {
  int32: 1,
  int64: 2,
  float32: 3,
  float64: 4,
};
export const TYPES_BY_CODE: readonly ZfpType[] = ["int32", "int64", "float32", "float64"];

/** One setting of zfp's compression parameters. */
export interface ZfpParams {
  readonly minbits: number;
  readonly maxbits: number;
  readonly maxprec: number;
  readonly minexp: number;
}

/** zfp's names of the modes a parameter setting falls in. */
export type ZfpModeName =
  | "expert"
  | "fixed_rate"
  | "fixed_precision"
  | "fixed_accuracy"
  | "reversible";

/** `zfp_stream_set_reversible`. */
export function reversibleParams(): ZfpParams {
  return {
    minbits: ZFP_MIN_BITS,
    maxbits: ZFP_MAX_BITS,
    maxprec: ZFP_MAX_PREC,
    minexp: ZFP_MIN_EXP - 1,
  };
}

/**
 * `zfp_stream_set_rate(rate, type, dims, align = false)`: `round(4^dims *
 * rate)` bits per block, at least the exponent's bits for floating types
 * when `type` is given (zfpy passes none). Returns undefined when the bits
 * per block would not fit the header (more than 32768).
 */
export function rateParams(
  rate: number,
  type: ZfpType | undefined,
  dims: number,
): ZfpParams | undefined {
  const n = 1 << (2 * dims);
  let bits = Math.floor(n * rate + 0.5);
  if (!(bits >= 0 && bits <= 0x8000)) return undefined;
  if (type === "float32") bits = Math.max(bits, 1 + 8);
  if (type === "float64") bits = Math.max(bits, 1 + 11);
  return { minbits: bits, maxbits: bits, maxprec: ZFP_MAX_PREC, minexp: ZFP_MIN_EXP };
}

/** `zfp_stream_set_precision`: 0 means the full 64. */
export function precisionParams(precision: number): ZfpParams {
  const maxprec = precision ? Math.min(precision, ZFP_MAX_PREC) : ZFP_MAX_PREC;
  return { minbits: ZFP_MIN_BITS, maxbits: ZFP_MAX_BITS, maxprec, minexp: ZFP_MIN_EXP };
}

/** `zfp_stream_set_accuracy`: `minexp` = floor(log2(tolerance)), or ZFP_MIN_EXP for 0. */
export function accuracyParams(tolerance: number): ZfpParams {
  const minexp = tolerance > 0 ? frexpExponent(tolerance) - 1 : ZFP_MIN_EXP;
  return { minbits: ZFP_MIN_BITS, maxbits: ZFP_MAX_BITS, maxprec: ZFP_MAX_PREC, minexp };
}

/** `zfp_stream_set_params`' check: undefined when the setting is invalid. */
export function expertParams(
  minbits: number,
  maxbits: number,
  maxprec: number,
  minexp: number,
): ZfpParams | undefined {
  if (minbits > maxbits || !(maxprec > 0 && maxprec <= 64)) return undefined;
  return { minbits, maxbits, maxprec, minexp };
}

/** `zfp_stream_compression_mode`. */
export function modeName(p: ZfpParams): ZfpModeName {
  const { minbits, maxbits, maxprec, minexp } = p;
  if (
    minbits === ZFP_MIN_BITS &&
    maxbits === ZFP_MAX_BITS &&
    maxprec === ZFP_MAX_PREC &&
    minexp === ZFP_MIN_EXP
  )
    return "expert";
  if (
    minbits === maxbits &&
    maxbits >= 1 &&
    maxbits <= ZFP_MAX_BITS &&
    maxprec >= ZFP_MAX_PREC &&
    minexp === ZFP_MIN_EXP
  )
    return "fixed_rate";
  if (minbits <= ZFP_MIN_BITS && maxbits >= ZFP_MAX_BITS && maxprec >= 1 && minexp === ZFP_MIN_EXP)
    return "fixed_precision";
  if (
    minbits <= ZFP_MIN_BITS &&
    maxbits >= ZFP_MAX_BITS &&
    maxprec >= ZFP_MAX_PREC &&
    minexp >= ZFP_MIN_EXP
  )
    return "fixed_accuracy";
  if (
    minbits <= ZFP_MIN_BITS &&
    maxbits >= ZFP_MAX_BITS &&
    maxprec >= ZFP_MAX_PREC &&
    minexp < ZFP_MIN_EXP
  )
    return "reversible";
  return "expert";
}

/**
 * The header's mode code (`zfp_stream_mode`): a short code (0..4094), or
 * the long form's four fields (each stored minus its bias in 15, 15, 7 and
 * 15 bits after the 12 bits 0xfff).
 */
export type ModeCode =
  | { readonly short: number }
  | { readonly long: readonly [number, number, number, number] };

export function modeCode(p: ZfpParams): ModeCode {
  switch (modeName(p)) {
    case "fixed_rate":
      if (p.maxbits <= 2048) return { short: p.maxbits - 1 };
      break;
    case "fixed_precision":
      if (p.maxprec <= 128) return { short: p.maxprec - 1 + 2048 };
      break;
    case "fixed_accuracy":
      if (p.minexp <= 843) return { short: p.minexp - ZFP_MIN_EXP + 2048 + 128 + 1 };
      break;
    case "reversible":
      return { short: 2048 + 128 };
    default:
      break;
  }
  const clamp = (v: number, hi: number) => Math.max(1, Math.min(v, hi)) - 1;
  return {
    long: [
      clamp(p.minbits, 0x8000),
      clamp(p.maxbits, 0x8000),
      clamp(p.maxprec, 0x80),
      Math.max(0, Math.min(p.minexp + 16495, 0x7fff)),
    ],
  };
}

/** `zfp_stream_set_mode`: the parameters of a mode code, or undefined when invalid. */
export function paramsFromCode(code: ModeCode): ZfpParams | undefined {
  if ("short" in code) {
    const m = code.short;
    if (m < 2048)
      return { minbits: m + 1, maxbits: m + 1, maxprec: ZFP_MAX_PREC, minexp: ZFP_MIN_EXP };
    if (m < 2048 + 128) return expertParams(ZFP_MIN_BITS, ZFP_MAX_BITS, m + 1 - 2048, ZFP_MIN_EXP);
    if (m === 2048 + 128) return reversibleParams();
    if (m <= MODE_SHORT_MAX)
      return {
        minbits: ZFP_MIN_BITS,
        maxbits: ZFP_MAX_BITS,
        maxprec: ZFP_MAX_PREC,
        minexp: m + ZFP_MIN_EXP - (2048 + 128 + 1),
      };
    return undefined;
  }
  const [minbits, maxbits, maxprec, minexp] = code.long;
  return expertParams(minbits + 1, maxbits + 1, maxprec + 1, minexp - 16495);
}

/**
 * Configurations: numcodecs' `zfpy` (`{mode, tolerance, rate, precision}`,
 * mode an integer of zfpy's `zfp_mode`) and zarrs' `zfp` (`{mode:
 * "fixed_rate", rate}` ..., the zarr-extensions `zfp` codec), and the zfp
 * parameters each one encodes with.
 *
 * @module
 */
import { CodecError, type JsonObject, type JsonValue } from "@zarr/core";
import {
  accuracyParams,
  expertParams,
  precisionParams,
  rateParams,
  reversibleParams,
  type ZfpParams,
  type ZfpType,
} from "./params.js";

/** zfpy's mode numbers (`zfp_mode`): 2 fixed rate, 3 fixed precision, 4 fixed accuracy, 5 reversible. */
export const ZFPY_MODES = {
  fixedRate: 2,
  fixedPrecision: 3,
  fixedAccuracy: 4,
  reversible: 5,
} as const;

/** numcodecs' `ZFPY` configuration (its defaults: mode 4, the rest -1). */
export interface ZfpyConfig {
  readonly mode: number;
  readonly tolerance: number;
  readonly rate: number;
  readonly precision: number;
}

const ZFPY_KEYS = new Set(["mode", "tolerance", "rate", "precision", "compression_kwargs", "id"]);

function fail(name: string, path: string, why: string): never {
  throw new CodecError(`${name} codec at "${path}": ${why}`, { path });
}

function show(v: JsonValue | undefined): string {
  return JSON.stringify(v) ?? String(v);
}

/** Validates a numcodecs `zfpy` configuration. */
export function parseZfpyConfig(
  configuration: JsonObject | undefined,
  name: string,
  path: string,
  lenient: boolean,
): ZfpyConfig {
  const c = configuration ?? {};
  for (const key of Object.keys(c)) {
    if (!lenient && !ZFPY_KEYS.has(key)) fail(name, path, `unknown configuration field "${key}"`);
  }
  const mode = c.mode ?? ZFPY_MODES.fixedAccuracy;
  if (typeof mode !== "number" || !Number.isInteger(mode) || mode < 0) {
    fail(
      name,
      path,
      `configuration.mode must be zfpy's mode number (2, 3, 4 or 5), got ${show(mode)}`,
    );
  }
  const number = (key: string): number => {
    const v = c[key] ?? -1;
    if (typeof v !== "number" || !Number.isFinite(v)) {
      fail(name, path, `configuration.${key} must be a number, got ${show(v)}`);
    }
    return v;
  };
  return {
    mode,
    tolerance: number("tolerance"),
    rate: number("rate"),
    precision: number("precision"),
  };
}

/**
 * The parameters numcodecs' `ZFPY.encode` compresses with: the mode picks
 * one of tolerance, rate and precision, and `zfpy.compress_numpy` uses it
 * when it is at least 0, else the reversible mode (so numcodecs' default,
 * mode 4 with tolerance -1, is lossless). Fixed rate counts bits per value
 * over the array's own dimensionality. Undefined for modes numcodecs cannot
 * encode with.
 */
export function zfpyParams(config: ZfpyConfig, dims: number): ZfpParams | undefined | "rate" {
  switch (config.mode) {
    case ZFPY_MODES.fixedAccuracy:
      return config.tolerance >= 0 ? accuracyParams(config.tolerance) : reversibleParams();
    case ZFPY_MODES.fixedRate:
      if (config.rate < 0) return reversibleParams();
      return rateParams(config.rate, undefined, dims) ?? "rate";
    case ZFPY_MODES.fixedPrecision:
      // zfpy takes a C int: a fraction is dropped.
      return config.precision >= 0
        ? precisionParams(Math.trunc(config.precision))
        : reversibleParams();
    case ZFPY_MODES.reversible:
      return reversibleParams();
    default:
      return undefined;
  }
}

/** The modes of zarrs' `zfp` codec. */
export type ZfpMode =
  | { readonly mode: "fixed_rate"; readonly rate: number }
  | { readonly mode: "fixed_precision"; readonly precision: number }
  | { readonly mode: "fixed_accuracy"; readonly tolerance: number }
  | { readonly mode: "reversible" }
  | {
      readonly mode: "expert";
      readonly minbits: number;
      readonly maxbits: number;
      readonly maxprec: number;
      readonly minexp: number;
    };

const ZFP_FIELDS: Record<string, readonly string[]> = {
  fixed_rate: ["rate"],
  fixed_precision: ["precision"],
  fixed_accuracy: ["tolerance"],
  reversible: [],
  expert: ["minbits", "maxbits", "maxprec", "minexp"],
};

/** Validates a `zfp` configuration (zarr-extensions `zfp` schema). */
export function parseZfpConfig(
  configuration: JsonObject | undefined,
  name: string,
  path: string,
): ZfpMode {
  const c = configuration ?? {};
  const mode = c.mode;
  const fields = typeof mode === "string" ? ZFP_FIELDS[mode] : undefined;
  if (!fields) {
    fail(
      name,
      path,
      `configuration.mode must be "fixed_rate", "fixed_precision", "fixed_accuracy", "reversible" or "expert", got ${show(mode)}`,
    );
  }
  for (const key of Object.keys(c)) {
    if (key !== "mode" && !fields.includes(key)) {
      fail(name, path, `unknown configuration field "${key}" for mode "${mode}"`);
    }
  }
  const get = (key: string, integer: boolean, min?: number): number => {
    const v = c[key];
    if (
      typeof v !== "number" ||
      !Number.isFinite(v) ||
      (integer && !Number.isInteger(v)) ||
      (min !== undefined && v < min)
    ) {
      const what = integer
        ? min === 0
          ? "a non-negative integer"
          : "an integer"
        : min === 0
          ? "a number >= 0"
          : "a number";
      fail(name, path, `configuration.${key} must be ${what}, got ${show(v)}`);
    }
    return v;
  };
  switch (mode) {
    case "fixed_rate":
      return { mode, rate: get("rate", false, 0) };
    case "fixed_precision":
      return { mode, precision: get("precision", true, 0) };
    case "fixed_accuracy":
      return { mode, tolerance: get("tolerance", false, 0) };
    case "reversible":
      return { mode };
    default: {
      const m: ZfpMode = {
        mode: "expert",
        minbits: get("minbits", true, 0),
        maxbits: get("maxbits", true, 0),
        maxprec: get("maxprec", true, 0),
        minexp: get("minexp", true),
      };
      if (!expertParams(m.minbits, m.maxbits, m.maxprec, m.minexp)) {
        fail(name, path, "expert mode needs minbits <= maxbits and maxprec in 1..64");
      }
      if (m.maxbits > 0x8000) fail(name, path, "expert mode needs maxbits <= 32768");
      return m;
    }
  }
}

/**
 * The parameters zarrs compresses with for `mode`: as libzfp's setters,
 * except that zarrs sets a fixed rate for 3-dimensional blocks whatever the
 * array's dimensionality (`zfp_stream_set_rate(.., type, 3, 0)`: 64 × rate
 * bits per block), which this codec follows so that it reads and writes the
 * same bytes.
 */
export function zfpModeParams(m: ZfpMode, type: ZfpType): ZfpParams | undefined {
  switch (m.mode) {
    case "fixed_rate":
      return rateParams(m.rate, type, 3);
    case "fixed_precision":
      return precisionParams(m.precision);
    case "fixed_accuracy":
      return accuracyParams(m.tolerance);
    case "reversible":
      return reversibleParams();
    case "expert":
      return expertParams(m.minbits, m.maxbits, m.maxprec, m.minexp);
  }
}

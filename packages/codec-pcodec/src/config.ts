/**
 * numcodecs' `PCodec` configuration (numcodecs/pcodec.py): `level`,
 * `mode_spec`, `delta_spec`, `paging_spec`, `delta_encoding_order`,
 * `equal_pages_up_to`, with its defaults and its checks.
 *
 * @module
 */
import { CodecError, type JsonObject } from "@zarr/core";
import type { EncodeOptions } from "./encoder.js";
import { MAX_CHUNK_N } from "./standalone.js";

/** numcodecs' default `equal_pages_up_to` (pco's `DEFAULT_MAX_PAGE_N`). */
export const DEFAULT_MAX_PAGE_N = 262144;
/** numcodecs' default `level` (pco's `DEFAULT_COMPRESSION_LEVEL`). */
export const DEFAULT_LEVEL = 8;

/** `mode_spec` values numcodecs accepts. */
export type ModeSpec = "auto" | "classic";
/** `delta_spec` values numcodecs accepts (`none` is its deprecated spelling of `no_op`). */
export type DeltaSpec = "auto" | "no_op" | "none" | "try_consecutive" | "try_lookback";

/** A parsed `PCodec` configuration. */
export interface PcodecConfig {
  /** 0..12. */
  level: number;
  mode_spec: ModeSpec;
  delta_spec: DeltaSpec;
  paging_spec: "equal_pages_up_to";
  /** 0..7 or null. */
  delta_encoding_order: number | null;
  /** 1..2^24. */
  equal_pages_up_to: number;
}

const KNOWN = new Set([
  "id",
  "level",
  "mode_spec",
  "delta_spec",
  "paging_spec",
  "delta_encoding_order",
  "equal_pages_up_to",
]);
const MODE_SPECS = ["auto", "classic"];
const DELTA_SPECS = ["auto", "no_op", "none", "try_consecutive", "try_lookback"];

/**
 * Validates a configuration, filling numcodecs' defaults; a `CodecError` names the bad field.
 *
 * @example
 * ```ts
 * import { parsePcodecConfig } from "@zarr/codec-pcodec";
 * parsePcodecConfig({ id: "pcodec", level: 5 }, "pcodec", "a/.zarray", true).delta_spec; // "auto"
 * ```
 */
export function parsePcodecConfig(
  configuration: JsonObject | undefined,
  name: string,
  path: string,
  lenient = false,
): PcodecConfig {
  const c = configuration ?? {};
  const fail = (why: string): never => {
    throw new CodecError(`${name} codec at "${path}": ${why}`, { path });
  };
  for (const key of Object.keys(c)) {
    if (!lenient && !KNOWN.has(key)) fail(`unknown configuration field "${key}"`);
  }
  const integer = (key: string, value: unknown, min: number, max: number): number => {
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
      fail(`configuration.${key} must be an integer ${min}..${max}, got ${JSON.stringify(value)}`);
    }
    return value as number;
  };
  const oneOf = <T extends string>(key: string, value: unknown, allowed: string[]): T => {
    if (typeof value !== "string" || !allowed.includes(value)) {
      fail(
        `configuration.${key} must be one of ${allowed.join(", ")}, got ${JSON.stringify(value)}`,
      );
    }
    return value as T;
  };
  const level = integer("level", c.level ?? DEFAULT_LEVEL, 0, 12);
  const mode_spec = oneOf<ModeSpec>("mode_spec", c.mode_spec ?? "auto", MODE_SPECS);
  const delta_spec = oneOf<DeltaSpec>("delta_spec", c.delta_spec ?? "auto", DELTA_SPECS);
  const paging_spec = oneOf<"equal_pages_up_to">(
    "paging_spec",
    c.paging_spec ?? "equal_pages_up_to",
    ["equal_pages_up_to"],
  );
  const order = c.delta_encoding_order ?? null;
  const delta_encoding_order = order === null ? null : integer("delta_encoding_order", order, 0, 7);
  if (delta_encoding_order !== null && delta_spec !== "auto" && delta_spec !== "try_consecutive") {
    fail(
      "configuration.delta_encoding_order can only be set with delta_spec auto or try_consecutive",
    );
  }
  if (delta_spec === "try_consecutive" && delta_encoding_order === null) {
    fail("configuration.delta_spec try_consecutive needs delta_encoding_order");
  }
  const equal_pages_up_to = integer(
    "equal_pages_up_to",
    c.equal_pages_up_to ?? DEFAULT_MAX_PAGE_N,
    1,
    MAX_CHUNK_N,
  );
  return { level, mode_spec, delta_spec, paging_spec, delta_encoding_order, equal_pages_up_to };
}

/**
 * What the encoder does for a configuration: `mode_spec: "auto"` tries
 * Classic, FloatQuant, IntMult and FloatMult (decimal bases) and keeps the
 * smallest, `"classic"` uses Classic only; consecutive delta of
 * `delta_encoding_order`, none for `no_op`, and its own choice of order 0..7
 * for `auto` and `try_lookback` (it has no lookback encoder).
 */
export function encodeOptionsOf(config: PcodecConfig): EncodeOptions {
  const { delta_spec, delta_encoding_order } = config;
  let deltaOrder: EncodeOptions["deltaOrder"] = "auto";
  if (delta_encoding_order !== null) deltaOrder = delta_encoding_order;
  else if (delta_spec === "no_op" || delta_spec === "none") deltaOrder = 0;
  return {
    level: config.level,
    deltaOrder,
    maxChunkN: config.equal_pages_up_to,
    modes: config.mode_spec === "classic" ? "classic" : "auto",
  };
}

/**
 * Pco's number types (format spec, "Standalone Format": the number type
 * bytes) and what the decoder needs to know about each: its latent width and
 * how latents map to numbers (spec, "Modes": `from_latent_ordered`).
 *
 * @module
 */

/** The kind of number: how `from_latent_ordered` maps a latent to it. */
export type NumberKind = "uint" | "int" | "float";

/** A Pco number type. */
export interface PcoNumberType {
  /** The standalone format's 1-byte representation. */
  readonly byte: number;
  /** Pco's name (`u32`, `f64`, ...). */
  readonly name: string;
  /** Bits of the number and of its latent type (`dtype_size`). */
  readonly bits: 8 | 16 | 32 | 64;
  readonly kind: NumberKind;
  /** Floats: stored significand bits (10, 23, 52), the largest FloatQuant `k`. */
  readonly precisionBits: number;
}

function t(byte: number, name: string, bits: 8 | 16 | 32 | 64, kind: NumberKind, p = 0) {
  return { byte, name, bits, kind, precisionBits: p } as const;
}

/** Every number type of the format spec, by byte. */
export const NUMBER_TYPES: readonly PcoNumberType[] = [
  t(1, "u32", 32, "uint"),
  t(2, "u64", 64, "uint"),
  t(3, "i32", 32, "int"),
  t(4, "i64", 64, "int"),
  t(5, "f32", 32, "float", 23),
  t(6, "f64", 64, "float", 52),
  t(7, "u16", 16, "uint"),
  t(8, "i16", 16, "int"),
  t(9, "f16", 16, "float", 10),
  t(10, "u8", 8, "uint"),
  t(11, "i8", 8, "int"),
];

const BY_BYTE = new Map(NUMBER_TYPES.map((x) => [x.byte, x]));
const BY_NAME = new Map(NUMBER_TYPES.map((x) => [x.name, x]));

/** The number type of a standalone type byte, or `undefined`. */
export function numberTypeOfByte(byte: number): PcoNumberType | undefined {
  return BY_BYTE.get(byte);
}

/**
 * The number type named `u32`, `f64`, ... (throws for other names).
 *
 * @example
 * ```ts
 * import { numberTypeNamed } from "@zarr/codec-pcodec";
 * numberTypeNamed("f16").byte; // 9, its standalone type byte
 * ```
 */
export function numberTypeNamed(name: string): PcoNumberType {
  const found = BY_NAME.get(name);
  if (!found) throw new RangeError(`pco has no number type "${name}"`);
  return found;
}

const ZARR_NAMES: Record<string, string> = {
  uint8: "u8",
  uint16: "u16",
  uint32: "u32",
  uint64: "u64",
  int8: "i8",
  int16: "i16",
  int32: "i32",
  int64: "i64",
  float16: "f16",
  float32: "f32",
  float64: "f64",
};

/** The Pco number type of a Zarr v3 data type name, or `undefined`. */
export function numberTypeOfDataType(dataTypeName: string): PcoNumberType | undefined {
  const name = ZARR_NAMES[dataTypeName];
  return name === undefined ? undefined : BY_NAME.get(name);
}

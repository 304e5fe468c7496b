/**
 * Element conversions with numpy's semantics, shared by the numeric filters:
 * casts (`astype`: truncation toward zero into integers, wrap-around between
 * integers, rounding into narrower floats) and round-half-to-even (`np.around`).
 *
 * @module
 */
import type { DataArray, DataType } from "@zarr/core";
import {
  float16BitsToFloat32Bits,
  float32BitsToFloat16Bits,
  float64ToFloat16Bits,
  roundToFloat16,
} from "@zarr/core/codec";

/** An element of a numeric data array. */
export type Num = number | bigint;

/** numpy's `around`: rounds half to even. */
export function roundHalfEven(x: number): number {
  if (!Number.isFinite(x)) return x;
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** Is the data type's element a bigint (int64/uint64)? */
export function isBig(dt: DataType): boolean {
  return dt.slotBytes === 8 && (dt.kind === "int" || dt.kind === "uint");
}

/** Rounds `x` to the precision of the float type `dt` (identity otherwise). */
export function toPrecision(x: number, dt: DataType): number {
  if (dt.kind !== "float") return x;
  if (dt.itemSize === 4) return Math.fround(x);
  if (dt.itemSize === 2) return roundToFloat16(x);
  return x;
}

const TWO31 = 2 ** 31;
const TWO63 = 2 ** 63;

/**
 * x86-64's truncating conversion to int32 (`cvttsd2si`), which numpy's casts
 * use: toward zero, and the "integer indefinite" -2^31 for NaN and anything
 * out of range.
 */
function cvt32(x: number): number {
  const t = Math.trunc(x);
  return t >= -TWO31 && t < TWO31 ? t : -TWO31;
}

/** The 64-bit form of {@link cvt32}: -2^63 for NaN and out of range. */
function cvt64(x: number): bigint {
  const t = Math.trunc(x);
  return t >= -TWO63 && t < TWO63 ? BigInt(t) : -(2n ** 63n);
}

/**
 * numpy's cast of a float to an integer type on x86-64 (numpy 1.24, measured
 * against it over NaN, infinities, halves and every range boundary; see the
 * v2-compat interop tests): int8..int32 take the low bits of {@link cvt32};
 * uint32 and uint64 convert values at or above 2^31 / 2^63 shifted down by
 * that much and flip the top bit back; int64 is {@link cvt64}.
 */
export function floatToInt(x: number, dt: DataType): Num {
  return floatToIntTyped(x, npType(dt), 8);
}

/** A 64-bit integer rounded once (half to even) to the nearest float32, as numpy casts it. */
function bigToFloat32(v: bigint): number {
  const negative = v < 0n;
  const a = negative ? -v : v;
  const bits = a.toString(2).length;
  if (bits <= 24) return Number(v);
  const shift = BigInt(bits - 24);
  let m = a >> shift;
  const rest = a - (m << shift);
  const half = 1n << (shift - 1n);
  if (rest > half || (rest === half && (m & 1n) === 1n)) m += 1n;
  const r = Number(m) * 2 ** Number(shift);
  return negative ? -r : r;
}

/**
 * Writes `v` into element `i` of `out` (of type `dt`) with numpy's cast rules.
 * `fromFloat`: `v` is a float value (the source type is a float type, or the
 * result of float arithmetic), so a cast into an integer type follows
 * {@link floatToInt}; otherwise numbers are integers and wrap like C casts.
 */
export function store(out: DataArray, dt: DataType, i: number, v: Num, fromFloat = false): void {
  const o = out as unknown as { [i: number]: Num };
  if (dt.kind === "bool") {
    o[i] = v === 0 || v === 0n ? 0 : 1;
  } else if (dt.kind === "float") {
    o[i] =
      typeof v === "bigint" && dt.itemSize === 4 ? bigToFloat32(v) : toPrecision(Number(v), dt);
  } else if (typeof v === "number" && fromFloat) {
    o[i] = floatToInt(v, dt);
  } else if (isBig(dt)) {
    o[i] = typeof v === "bigint" ? v : BigInt(Math.trunc(v));
  } else if (typeof v === "bigint") {
    // Typed array stores of numbers wrap like C casts for in-range values; take the low bits first.
    o[i] = Number(BigInt.asIntN(32, v));
  } else {
    o[i] = Math.trunc(v);
  }
}

/** Casts every element of `data` (type `from`) into a new array of type `to`, as numpy's `astype`. */
export function cast(data: DataArray, from: DataType, to: DataType, n: number): DataArray {
  const out = to.allocate(n);
  const o = out as unknown as { [i: number]: Num };
  const src = data as unknown as ArrayLike<Num>;
  const f = npType(from);
  const t = npType(to);
  const floats = from.kind === "float" && to.kind === "float";
  for (let i = 0; i < n; i++) {
    const v = src[i];
    if (floats && Number.isNaN(v)) castNaN(data, from, i, out, to, i);
    else o[i] = to.kind === "bool" ? (v === 0 || v === 0n ? 0 : 1) : npCast(v, f, t);
  }
  return out;
}

/** A float64 and its two 32-bit words, for NaN bit arithmetic. */
const scratch = new Float64Array(1);
const scratchWords = new Uint32Array(scratch.buffer);
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const HIGH_WORD = LITTLE ? 1 : 0;
const LOW_WORD = 1 - HIGH_WORD;

/** The bits of float32 (or float16, held as float32) element `i` of `data`. */
function float32Bits(data: DataArray, i: number): number {
  const a = data as Float32Array;
  return new Uint32Array(a.buffer, a.byteOffset + i * 4, 1)[0];
}

/**
 * Writes numpy's cast of the NaN at `data[i]` (type `from`) to `out[j]`
 * (type `to`), bit for bit: numpy copies a NaN of the same type, converts to
 * and from float16 with its own bit arithmetic (payload kept, signaling or
 * not), and converts between float32 and float64 with the CPU, which quiets a
 * signaling NaN as reading a float32 element into a JavaScript number does.
 * JavaScript numbers alone would quiet every NaN that passes through them.
 */
export function castNaN(
  data: DataArray,
  from: DataType,
  i: number,
  out: DataArray,
  to: DataType,
  j: number,
): void {
  const src = data as Float32Array | Float64Array;
  const dst = out as Float32Array | Float64Array;
  const a = from.itemSize as number;
  const b = to.itemSize as number;
  if (a === 8 && b === 8) {
    dst[j] = src[i];
    return;
  }
  if (a === 2 && b === 8) {
    // npy_half_to_double: sign, all-ones exponent, the half's 10 payload bits on top.
    const h = float32BitsToFloat16Bits(float32Bits(data, i));
    scratchWords[HIGH_WORD] = ((h & 0x8000) << 16) | 0x7ff00000 | ((h & 0x3ff) << 10);
    scratchWords[LOW_WORD] = 0;
    dst[j] = scratch[0];
    return;
  }
  if (b === 8 || (a === 8 && b === 4)) {
    dst[j] = src[i]; // the CPU's float32 <-> float64 conversion: quieted, like JS
    return;
  }
  // To float32 or float16 (both held as float32 bits); float16 payloads rounded
  // as npy_floatbits_to_halfbits / npy_doublebits_to_halfbits do.
  const bits =
    a === 8
      ? float16BitsToFloat32Bits(float64ToFloat16Bits(src[i]))
      : b === 2 && a === 4
        ? float16BitsToFloat32Bits(float32BitsToFloat16Bits(float32Bits(data, i)))
        : float32Bits(data, i);
  new Uint32Array(dst.buffer, dst.byteOffset + j * 4, 1)[0] = bits;
}

/**
 * numpy 1.24's numeric types and value-based promotion, for the filters that
 * mix an array with Python scalars from their config (`(x - offset) * scale`):
 * the result type depends on the scalar's value, and integer arithmetic
 * wraps in the promoted type. Integral config numbers count as Python ints
 * (JSON cannot tell `1000` from `1000.0`; Python writes the latter for floats,
 * which only matters for float16 data and for float32 data with integer
 * offsets or scales of magnitude 2^15 and more).
 */
export interface NpType {
  readonly kind: "u" | "i" | "f";
  readonly bytes: 1 | 2 | 4 | 8;
}

/** float64. */
export const F8: NpType = { kind: "f", bytes: 8 };

/** The numpy type of a Python scalar's value once converted: int64 for ints, float64 for floats. */
export function scalarType(pythonType: "int" | "float"): NpType {
  return pythonType === "int" ? { kind: "i", bytes: 8 } : F8;
}

/** The numpy type of a numeric data type (bool as uint8, which has the same promotions here). */
export function npType(dt: DataType): NpType {
  const bytes = (dt.itemSize ?? 8) as NpType["bytes"];
  if (dt.kind === "float") return { kind: "f", bytes };
  return { kind: dt.kind === "int" ? "i" : "u", bytes };
}

/** `np.min_scalar_type` of a Python scalar. */
function minScalarType(v: number, pythonType: "int" | "float"): NpType | undefined {
  if (pythonType === "int") {
    if (v >= 0) {
      if (v <= 0xff) return { kind: "u", bytes: 1 };
      if (v <= 0xffff) return { kind: "u", bytes: 2 };
      if (v <= 0xffff_ffff) return { kind: "u", bytes: 4 };
      return v < 2 ** 64 ? { kind: "u", bytes: 8 } : undefined;
    }
    if (v >= -0x80) return { kind: "i", bytes: 1 };
    if (v >= -0x8000) return { kind: "i", bytes: 2 };
    if (v >= -0x8000_0000) return { kind: "i", bytes: 4 };
    return v >= -(2 ** 63) ? { kind: "i", bytes: 8 } : undefined;
  }
  if (!Number.isFinite(v) || Math.abs(v) < 65000) return { kind: "f", bytes: 2 };
  return Math.abs(v) < 3.4e38 ? { kind: "f", bytes: 4 } : F8;
}

/** `np.promote_types` for numeric types. */
export function promote(a: NpType, b: NpType): NpType {
  if (a.kind === "f" || b.kind === "f") {
    const f = a.kind === "f" ? (b.kind === "f" ? (a.bytes > b.bytes ? a : b) : a) : b;
    const other = f === a ? b : a;
    if (other.kind === "f") return f;
    // The smallest float that holds every value of the integer type.
    const need = other.bytes === 1 ? 2 : other.bytes === 2 ? 4 : 8;
    return { kind: "f", bytes: Math.max(f.bytes, need) as NpType["bytes"] };
  }
  if (a.kind === b.kind) return a.bytes >= b.bytes ? a : b;
  const u = a.kind === "u" ? a : b;
  const i = a.kind === "u" ? b : a;
  if (i.bytes > u.bytes) return i;
  return u.bytes === 8 ? F8 : { kind: "i", bytes: (u.bytes * 2) as NpType["bytes"] };
}

/**
 * The result type of `array (of type a) <op> python scalar`, numpy 1.24's
 * value-based casting. `pythonType`: the scalar's Python type (default: int
 * when integral).
 */
export function resultType(
  a: NpType,
  scalar: number,
  pythonType: "int" | "float" = Number.isInteger(scalar) ? "int" : "float",
): NpType {
  const scalarKind = pythonType === "int" ? "i" : "f";
  // A scalar of a higher kind than the array (float with an integer array) is not demoted.
  if (scalarKind === "f" && a.kind !== "f") return promote(a, F8);
  const m = minScalarType(scalar, pythonType);
  return m === undefined ? F8 : promote(a, m);
}

/** `x` (of type `from`) cast to `to`, with numpy's rules (see {@link floatToInt}). */
export function npCast(x: Num, from: NpType, to: NpType): Num {
  if (to.kind === "f") {
    const v = typeof x === "bigint" && to.bytes === 4 ? bigToFloat32(x) : Number(x);
    return to.bytes === 8 ? v : to.bytes === 4 ? Math.fround(v) : roundToFloat16(v);
  }
  if (typeof x === "number" && from.kind === "f") return floatToIntTyped(x, to, from.bytes);
  const big = typeof x === "bigint" ? x : BigInt(x);
  const wrapped =
    to.kind === "u" ? BigInt.asUintN(to.bytes * 8, big) : BigInt.asIntN(to.bytes * 8, big);
  return to.bytes === 8 ? wrapped : Number(wrapped);
}

/**
 * The NaN that x86-64's SSE arithmetic (numpy's float loops) returns for `x op y`
 * when an operand is NaN: the first operand's when it is NaN, else the second's,
 * quieted; `undefined` when neither is NaN. JS engines make no promise about
 * which operand's NaN `x + y` keeps, so arithmetic that must match numpy bit for
 * bit (delta's differences and cumulative sums) picks it explicitly.
 */
export function x86NaN(x: number, y: number): number | undefined {
  // biome-ignore lint/suspicious/noSelfCompare: the NaN test that keeps the operand
  const n = x !== x ? x : y !== y ? y : undefined;
  if (n === undefined) return undefined;
  scratch[0] = n;
  scratchWords[HIGH_WORD] |= 0x0008_0000; // the quiet bit
  return scratch[0];
}

/** `x op y` on float values, with numpy's (x86's) NaN result. */
export function floatArith(op: "+" | "-" | "*" | "/", x: number, y: number): number {
  return x86NaN(x, y) ?? (op === "+" ? x + y : op === "-" ? x - y : op === "*" ? x * y : x / y);
}

/** `a op b` computed in type `t` (both already of type `t`): floats rounded, integers wrapped. */
export function npArith(op: "+" | "-" | "*" | "/", a: Num, b: Num, t: NpType): Num {
  if (t.kind === "f") return npCast(floatArith(op, Number(a), Number(b)), F8, t);
  const x = BigInt(a);
  const y = BigInt(b);
  const r = op === "+" ? x + y : op === "-" ? x - y : x * y;
  return npCast(r, t, t);
}

/** {@link floatToInt} by numpy type; a float16 source casts to uint32 through int64's low bits. */
function floatToIntTyped(x: number, to: NpType, fromBytes: number): Num {
  if (to.bytes === 8) {
    if (to.kind === "i") return cvt64(x);
    return x >= TWO63
      ? BigInt.asUintN(64, cvt64(x - TWO63) ^ (1n << 63n))
      : BigInt.asUintN(64, cvt64(x));
  }
  if (to.kind === "u" && to.bytes === 4) {
    if (fromBytes === 2) return Number(BigInt.asUintN(32, cvt64(x)));
    return x >= TWO31 ? (cvt32(x - TWO31) ^ 0x8000_0000) >>> 0 : cvt32(x) >>> 0;
  }
  const v = cvt32(x);
  const bits = to.bytes * 8;
  return to.kind === "u" ? v & ((1 << bits) - 1) : (v << (32 - bits)) >> (32 - bits);
}

/**
 * Integer types that zarrs' `zfp` codec stores as zfp's int32/int64
 * (zarr-extensions `zfp`, "Compression" / "Decompression"): 8- and 16-bit
 * integers are promoted with libzfp's `zfp_promote_*` rule (shifted to the
 * top of an int32, unsigned ones first centred on zero) and demoted with
 * clamping; uint32/uint64 are stored as int32/int64 (zarrs clamps values
 * above the signed maximum; this package refuses to encode them rather than
 * change them) and decoded with negatives clamped to 0.
 *
 * @module
 */
import type { TypedArray } from "@zarr/core";
import { HI } from "./pow2.js";
import type { ZfpData } from "./stream.js";

/** Data types of the `zfp` codec that are stored as another zfp type. */
export const PROMOTED: Readonly<Record<string, "int32" | "int64">> = {
  int8: "int32",
  uint8: "int32",
  int16: "int32",
  uint16: "int32",
  uint32: "int32",
  uint64: "int64",
};

const SHIFT: Readonly<Record<string, number>> = { int8: 23, uint8: 23, int16: 15, uint16: 15 };
const CENTRE: Readonly<Record<string, number>> = { uint8: 0x80, uint16: 0x8000 };

/** The zfp array stored for `data` of data type `name`; a string says why it cannot be. */
export function promote(name: string, data: TypedArray): ZfpData | string {
  const n = data.length;
  if (name === "uint64") {
    const src = data as BigUint64Array;
    const words = new Int32Array(src.buffer, src.byteOffset, 2 * n);
    for (let i = 0; i < n; i++) {
      if (words[2 * i + HI]! < 0)
        return `uint64 value ${src[i]} exceeds the int64 range zfp stores`;
    }
    return new BigInt64Array(src.buffer.slice(src.byteOffset, src.byteOffset + src.byteLength));
  }
  const out = new Int32Array(n);
  const src = data as Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array;
  if (name === "uint32") {
    for (let i = 0; i < n; i++) {
      const v = src[i]!;
      if (v > 0x7fffffff) return `uint32 value ${v} exceeds the int32 range zfp stores`;
      out[i] = v;
    }
    return out;
  }
  const shift = SHIFT[name]!;
  const centre = CENTRE[name] ?? 0;
  for (let i = 0; i < n; i++) out[i] = (src[i]! - centre) << shift;
  return out;
}

/** Writes the values of the zfp array `stored` into `out` of data type `name`. */
export function demote(name: string, stored: ZfpData, out: TypedArray): void {
  const n = out.length;
  if (name === "uint64") {
    const src = stored as BigInt64Array;
    const words = new Int32Array(src.buffer, src.byteOffset, 2 * n);
    const dst = new Int32Array(out.buffer, out.byteOffset, 2 * n);
    for (let i = 0; i < 2 * n; i += 2) {
      const negative = words[i + HI]! < 0;
      dst[i] = negative ? 0 : words[i]!;
      dst[i + 1] = negative ? 0 : words[i + 1]!;
    }
    return;
  }
  const src = stored as Int32Array;
  const dst = out as Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array;
  if (name === "uint32") {
    for (let i = 0; i < n; i++) dst[i] = Math.max(src[i]!, 0);
    return;
  }
  const shift = SHIFT[name]!;
  const centre = CENTRE[name] ?? 0;
  const half = 1 << (30 - shift); // 128 for 8-bit types, 32768 for 16-bit
  const lo = centre ? 0 : -half;
  const hi = centre ? 2 * centre - 1 : half - 1;
  for (let i = 0; i < n; i++) {
    const v = (src[i]! >> shift) + centre;
    dst[i] = v < lo ? lo : v > hi ? hi : v;
  }
}

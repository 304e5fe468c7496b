/**
 * The zfp header (zfp documentation, "Header format"; `zfp_write_header` /
 * `zfp_read_header` with `ZFP_HEADER_FULL`): 32 bits of magic ("zfp" and
 * codec version 5), 52 bits of field metadata (scalar type, dimensionality,
 * sizes minus one in 48/24/16/12 bits each) and the 12- or 64-bit mode.
 *
 * @module
 */
import type { BitReader, BitWriter } from "./bitstream.js";
import {
  type ModeCode,
  modeCode,
  paramsFromCode,
  TYPE_CODES,
  TYPES_BY_CODE,
  type ZfpParams,
  type ZfpType,
} from "./params.js";

/** zfp's codec (stream format) version, the fourth magic byte. */
export const ZFP_CODEC_VERSION = 5;
/** Bits of size per dimension in the header, by dimensionality. */
const SIZE_BITS = [0, 48, 24, 16, 12];

/** What a full header describes. */
export interface ZfpHeader {
  readonly type: ZfpType;
  /** Sizes in zfp order: `[nx, ny, nz, nw]` up to the dimensionality (nx varies fastest). */
  readonly sizes: readonly number[];
  readonly params: ZfpParams;
}

/** Why a size cannot go in a header, or undefined when all fit. */
export function headerSizeProblem(sizes: readonly number[]): string | undefined {
  const bits = SIZE_BITS[sizes.length]!;
  for (const n of sizes) {
    if (n < 1 || n - 1 >= 2 ** bits) {
      return `a ${sizes.length}-dimensional zfp header holds sizes 1..${2 ** bits}, got ${n}`;
    }
  }
  return undefined;
}

/** Writes a full header (sizes must pass {@link headerSizeProblem}). */
export function writeHeader(out: BitWriter, header: ZfpHeader): void {
  out.writeBits(0x7a, 8); // z
  out.writeBits(0x66, 8); // f
  out.writeBits(0x70, 8); // p
  out.writeBits(ZFP_CODEC_VERSION, 8);
  const dims = header.sizes.length;
  out.writeBits(TYPE_CODES[header.type] - 1, 2);
  out.writeBits(dims - 1, 2);
  const bits = SIZE_BITS[dims]!;
  for (const n of header.sizes) {
    const v = n - 1;
    if (bits > 32) {
      out.writeBits(v % 4294967296, 32);
      out.writeBits(Math.floor(v / 4294967296), bits - 32);
    } else {
      out.writeBits(v, bits);
    }
  }
  const code = modeCode(header.params);
  if ("short" in code) {
    out.writeBits(code.short, 12);
  } else {
    out.writeBits(0xfff, 12);
    out.writeBits(code.long[0], 15);
    out.writeBits(code.long[1], 15);
    out.writeBits(code.long[2], 7);
    out.writeBits(code.long[3], 15);
  }
}

/** Reads a full header; a string says why it is not one. */
export function readHeader(input: BitReader): ZfpHeader | string {
  if (input.totalBits < 96)
    return `${input.totalBits / 8} bytes cannot hold a zfp header (12 bytes at least)`;
  const magic = [input.readBits(8), input.readBits(8), input.readBits(8)];
  if (magic[0] !== 0x7a || magic[1] !== 0x66 || magic[2] !== 0x70) {
    return 'no zfp header (the stream does not start with the magic "zfp")';
  }
  const version = input.readBits(8);
  if (version !== ZFP_CODEC_VERSION) {
    return `zfp codec version ${version} is not supported (only ${ZFP_CODEC_VERSION}, libzfp 0.5.5 to 1.0.x)`;
  }
  const type = TYPES_BY_CODE[input.readBits(2)]!;
  const dims = input.readBits(2) + 1;
  const bits = SIZE_BITS[dims]!;
  const sizes: number[] = [];
  for (let d = 0; d < dims; d++) {
    if (bits > 32) {
      // libzfp reads only the low 32 bits of a 1-d size.
      sizes.push(input.readBits(32) + 1);
      input.readBits(bits - 32);
    } else {
      sizes.push(input.readBits(bits) + 1);
    }
  }
  const short = input.readBits(12);
  let code: ModeCode;
  if (short === 0xfff) {
    const f = [
      input.readBits(15),
      input.readBits(15),
      input.readBits(7),
      input.readBits(15),
    ] as const;
    code = { long: f };
  } else {
    code = { short };
  }
  if (input.overrun) return "the stream ends inside the zfp header";
  const params = paramsFromCode(code);
  if (!params) return "the zfp header's compression parameters are invalid";
  return { type, sizes, params };
}

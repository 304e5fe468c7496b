/**
 * Whole zfp streams: an optional full header, then the blocks of an array,
 * flushed to the stream's word size (`zfpy.compress_numpy` /
 * `zfpy.decompress_numpy`, and headerless streams as zarrs' `zfp` codec
 * writes them).
 *
 * @module
 */
import { BitReader, BitWriter } from "./bitstream.js";
import { compressBlocks, decompressBlocks } from "./field.js";
import { headerSizeProblem, readHeader, writeHeader, type ZfpHeader } from "./header.js";
import { modeCode, paramsFromCode, type ZfpParams, type ZfpType } from "./params.js";

/** The typed arrays zfp compresses, by type. */
export type ZfpData = Float32Array | Float64Array | Int32Array | BigInt64Array;

/** An error in a zfp stream or in what was asked of the codec. */
export class ZfpFormatError extends Error {
  override name = "ZfpFormatError";
}

/** The zfp type of a typed array, or undefined. */
export function zfpTypeOf(data: ArrayBufferView): ZfpType | undefined {
  if (data instanceof Float32Array) return "float32";
  if (data instanceof Float64Array) return "float64";
  if (data instanceof Int32Array) return "int32";
  if (data instanceof BigInt64Array) return "int64";
  return undefined;
}

/** The raw memory of `data` as int32 words. */
function words(data: ZfpData): Int32Array {
  return new Int32Array(data.buffer, data.byteOffset, data.byteLength >>> 2);
}

/** zfp sizes `[nx, ny, nz, nw]` of a C-order shape (the last axis varies fastest). */
export function zfpSizes(shape: readonly number[]): number[] {
  return [...shape].reverse();
}

/** Options of {@link zfpCompress}. */
export interface CompressOptions {
  /** Write the full zfp header first (as zfpy does). Default true. */
  header?: boolean;
  /**
   * The stream word size in bits: the end is padded with zeros to a multiple
   * of it. libzfp's default build uses 64 (PyPI/conda zfpy, zarrs); Debian's
   * and Ubuntu's libzfp packages use 8. Default 64.
   */
  wordBits?: 8 | 16 | 32 | 64;
}

/**
 * Compresses a C-order array of `shape` (1 to 4 dimensions) with `params`.
 *
 * @example
 * ```ts
 * const bytes = zfpCompress(new Float32Array(64), [4, 4, 4], accuracyParams(1e-3));
 * ```
 */
export function zfpCompress(
  data: ZfpData,
  shape: readonly number[],
  params: ZfpParams,
  options: CompressOptions = {},
): Uint8Array {
  const type = zfpTypeOf(data);
  if (!type)
    throw new ZfpFormatError("zfp compresses float32, float64, int32 and int64 arrays only");
  checkShape(shape, data.length);
  const floor = minimumMaxbits(type, params);
  if (params.maxbits < floor) {
    throw new ZfpFormatError(
      `${params.maxbits} bits per block cannot hold the ${floor} bits every ${type} block starts with in this mode (libzfp would overrun its buffer): use a higher rate or maxbits`,
    );
  }
  const sizes = zfpSizes(shape);
  const n = data.length;
  const out = new BitWriter(Math.min(n * data.BYTES_PER_ELEMENT + 64, 1 << 24));
  if (options.header ?? true) {
    const problem = headerSizeProblem(sizes);
    if (problem) throw new ZfpFormatError(problem);
    const coded = paramsFromCode(modeCode(params));
    if (!coded || !sameBehaviour(coded, params)) {
      // libzfp writes such streams, but its header then describes other
      // parameters and the stream cannot be decoded.
      throw new ZfpFormatError(
        `the zfp header cannot describe minbits ${params.minbits}, maxbits ${params.maxbits}, maxprec ${params.maxprec}, minexp ${params.minexp} (a rate below half a bit per block?)`,
      );
    }
    writeHeader(out, { type, sizes, params });
  }
  compressBlocks(out, words(data), type, sizes, params);
  return out.finish(options.wordBits ?? 64);
}

/**
 * True when streams written with `a` and `b` are the same: every setting
 * below ZFP_MIN_EXP is the reversible mode, and a block always writes at
 * least one bit when `maxbits` allows one, so `minbits` 0 and 1 agree.
 */
function sameBehaviour(a: ZfpParams, b: ZfpParams): boolean {
  return (
    a.maxbits === b.maxbits &&
    a.maxprec === b.maxprec &&
    (a.minexp === b.minexp || (a.minexp < -1074 && b.minexp < -1074)) &&
    (a.minbits === b.minbits || (a.minbits <= 1 && b.minbits <= 1 && a.maxbits >= 1))
  );
}

/**
 * The bits a block of `type` always writes before its budget is checked:
 * libzfp subtracts them from `maxbits` unsigned, so a smaller `maxbits`
 * makes it write far past its own size bound.
 */
export function minimumMaxbits(type: ZfpType, p: ZfpParams): number {
  const float = type === "float32" || type === "float64";
  const ebits = type === "float32" ? 8 : 11;
  const pbits = type === "int32" || type === "float32" ? 5 : 6;
  if (p.minexp < -1074) return float ? 2 + ebits + pbits : pbits;
  return float ? 1 + ebits : 0;
}

function checkShape(shape: readonly number[], length: number): void {
  if (shape.length < 1 || shape.length > 4) {
    throw new ZfpFormatError(`zfp handles 1 to 4 dimensions, not ${shape.length}`);
  }
  let n = 1;
  for (const s of shape) {
    if (!Number.isSafeInteger(s) || s < 1)
      throw new ZfpFormatError(`zfp needs sizes of at least 1, got shape [${shape}]`);
    n *= s;
  }
  if (n !== length) throw new ZfpFormatError(`shape [${shape}] holds ${n} elements, not ${length}`);
}

function allocate(type: ZfpType, n: number): ZfpData {
  switch (type) {
    case "float32":
      return new Float32Array(n);
    case "float64":
      return new Float64Array(n);
    case "int32":
      return new Int32Array(n);
    case "int64":
      return new BigInt64Array(n);
  }
}

/** Reads the full header at the start of `bytes`. */
export function zfpReadHeader(bytes: Uint8Array): ZfpHeader {
  const header = readHeader(new BitReader(bytes));
  if (typeof header === "string") throw new ZfpFormatError(header);
  return header;
}

/** What {@link zfpDecompress} expects to find. */
export interface DecompressExpectation {
  readonly type: ZfpType;
  /** C-order shape (1 to 4 dimensions). */
  readonly shape: readonly number[];
  /**
   * The parameters of a headerless stream; without them the stream must
   * start with a full header, whose type must equal the expected, and whose
   * shape must hold as many values (the blocks follow the header's shape).
   */
  readonly params?: ZfpParams;
}

/**
 * Decompresses a zfp stream into a new C-order array of the expected type
 * and shape. Throws {@link ZfpFormatError} when the header disagrees with the
 * expectation or the stream ends before the last block. Memory is the
 * expected array; bytes after the last block are ignored (as libzfp does).
 */
export function zfpDecompress(bytes: Uint8Array, expect: DecompressExpectation): ZfpData {
  const { type, shape } = expect;
  let n = 1;
  for (const s of shape) n *= s;
  checkShape(shape, n);
  let sizes = zfpSizes(shape);
  const input = new BitReader(bytes);
  let params = expect.params;
  if (!params) {
    const header = readHeader(input);
    if (typeof header === "string") throw new ZfpFormatError(header);
    if (header.type !== type) {
      throw new ZfpFormatError(`the zfp header holds ${header.type} values, expected ${type}`);
    }
    // Another shape of the same size is the same C-order values: numcodecs'
    // delta and fixedscaleoffset filters flatten a chunk before zfpy sees it,
    // and zarr-python reshapes what zfpy decodes.
    let count = 1;
    for (const s of header.sizes) count *= s;
    if (count !== n) {
      throw new ZfpFormatError(
        `the zfp header's shape is [${zfpSizes(header.sizes)}], expected [${shape}]`,
      );
    }
    sizes = [...header.sizes];
    params = header.params;
  }
  const data = allocate(type, n);
  if (!decompressBlocks(input, words(data), type, sizes, params)) {
    throw new ZfpFormatError(
      `the zfp stream of ${bytes.length} bytes ends before its last block (truncated or corrupt)`,
    );
  }
  return data;
}

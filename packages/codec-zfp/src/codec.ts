/**
 * The codecs: numcodecs' `zfpy` (a v2 compressor: bytes -> bytes over the
 * chunk's little-endian bytes), zarr-python 3's `numcodecs.zfpy` (array ->
 * bytes) — both a zfp stream with a full header, as
 * `zfpy.compress_numpy` writes — and zarrs' `zfp` (array -> bytes, a
 * headerless stream whose parameters come from the metadata).
 *
 * @module
 */
import { CodecError, type DataType, type JsonObject, type TypedArray } from "@zarr/core";
import {
  type ArrayToBytesCodec,
  type BytesToBytesCodec,
  type ChunkSpec,
  type CodecContext,
  type CodecFactory,
  type CodecOptions,
  type NDArray,
  throwIfAborted,
} from "@zarr/core/codec";
import {
  parseZfpConfig,
  parseZfpyConfig,
  type ZfpMode,
  type ZfpyConfig,
  zfpModeParams,
  zfpyParams,
} from "./config.js";
import type { ZfpParams, ZfpType } from "./params.js";
import { demote, PROMOTED, promote } from "./promote.js";
import { type ZfpData, ZfpFormatError, zfpCompress, zfpDecompress } from "./stream.js";

/** Options of the codec factories (not part of the metadata). */
export interface ZfpCodecOptions {
  /**
   * Stream word size in bits: encoded chunks end with zeros up to a multiple
   * of it. 64 (default) is libzfp's default build (zfpy from PyPI and conda,
   * zarrs); 8 gives the bytes of Debian's and Ubuntu's libzfp. Readers accept
   * either.
   */
  wordBits?: 8 | 16 | 32 | 64;
}

const NATIVE: ReadonlySet<string> = new Set(["float32", "float64", "int32", "int64"]);

function codecError(name: string, path: string, message: string, cause?: unknown): CodecError {
  return new CodecError(`${name} codec at "${path}": ${message}`, { path, cause });
}

function count(shape: readonly number[]): number {
  let n = 1;
  for (const s of shape) n *= s;
  return n;
}

function cStrides(shape: readonly number[]): number[] {
  const stride = new Array<number>(shape.length);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    stride[i] = s;
    s *= shape[i]!;
  }
  return stride;
}

/** Blocks of 4^d values covering `shape`. */
function blockCount(shape: readonly number[]): number {
  let n = 1;
  for (const s of shape) n *= Math.ceil(s / 4);
  return n;
}

/**
 * The most bytes a zfp stream of a chunk can take: per block the larger of
 * every value at full precision with its group tests and exponent, and the
 * 32768 bits the header can ask a block to be padded to, plus the header.
 */
function maxStreamBytes(shape: readonly number[], itemSize: number): number {
  const dims = Math.max(1, shape.length);
  const perBlock = Math.max(0x8000, (1 << (2 * dims)) * (8 * itemSize + 1) + 64);
  return Math.ceil((blockCount(shape) * perBlock + 160) / 8) + 8;
}

/** Checks the chunk shape and data type a zfpy codec can encode; returns the zfp type. */
function zfpyType(name: string, path: string, spec: ChunkSpec): ZfpType {
  const dt = spec.dataType.name;
  if (!NATIVE.has(dt)) {
    throw codecError(
      name,
      path,
      `zfpy encodes float32, float64, int32 and int64 chunks, not ${dt}`,
    );
  }
  if (spec.shape.length < 1 || spec.shape.length > 4) {
    throw codecError(
      name,
      path,
      `zfpy encodes chunks of 1 to 4 dimensions, not ${spec.shape.length}`,
    );
  }
  return dt as ZfpType;
}

/** Shared by the zfpy codecs: numcodecs' configuration and encoding rule. */
class ZfpyCore {
  constructor(
    readonly name: string,
    readonly path: string,
    readonly config: ZfpyConfig,
    readonly wordBits: 8 | 16 | 32 | 64,
  ) {}

  toJSON(): JsonObject {
    const { mode, tolerance, rate, precision } = this.config;
    return { name: this.name, configuration: { mode, tolerance, rate, precision } };
  }

  params(shape: readonly number[]): ZfpParams {
    const p = zfpyParams(this.config, shape.length);
    if (p === undefined) {
      throw codecError(
        this.name,
        this.path,
        `mode ${this.config.mode} cannot encode (numcodecs encodes with modes 2 fixed rate, 3 fixed precision and 4 fixed accuracy; 5 is reversible)`,
      );
    }
    if (p === "rate")
      throw codecError(this.name, this.path, `rate ${this.config.rate} is out of range`);
    return p;
  }

  encode(data: ZfpData, shape: readonly number[]): Uint8Array {
    try {
      return zfpCompress(data, shape, this.params(shape), { wordBits: this.wordBits });
    } catch (e) {
      if (e instanceof ZfpFormatError)
        throw codecError(this.name, this.path, `cannot encode: ${e.message}`, e);
      throw e;
    }
  }

  decode(bytes: Uint8Array, type: ZfpType, shape: readonly number[]): ZfpData {
    try {
      return zfpDecompress(bytes, { type, shape });
    } catch (e) {
      if (e instanceof ZfpFormatError) {
        throw codecError(
          this.name,
          this.path,
          `cannot decode ${bytes.length} bytes: ${e.message}`,
          e,
        );
      }
      throw e;
    }
  }
}

function typedFromBytes(type: ZfpType, bytes: Uint8Array): ZfpData {
  const itemSize = type === "float32" || type === "int32" ? 4 : 8;
  const n = bytes.length / itemSize;
  const out =
    type === "float32"
      ? new Float32Array(n)
      : type === "float64"
        ? new Float64Array(n)
        : type === "int32"
          ? new Int32Array(n)
          : new BigInt64Array(n);
  // Hosts are little-endian (core asserts it), as the chunk's bytes are.
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

/**
 * numcodecs `zfpy` as a v2 compressor: encodes the chunk's little-endian
 * bytes (of the chunk shape and data type the array gives) as
 * `numcodecs.zfpy.ZFPY.encode` does; decodes any zfpy stream whose header
 * matches the chunk.
 *
 * @example
 * ```ts
 * import { codecTestContext } from "@zarr/core/codec";
 * const codec = zfpyCodec.fromConfig({ mode: 4, tolerance: 1e-3 }, codecTestContext([8, 8], "float32", { format: 2 }));
 * ```
 */
export class ZfpyBytesCodec implements BytesToBytesCodec {
  readonly kind = "bytes_to_bytes";
  readonly name: string;
  readonly #core: ZfpyCore;
  readonly #type: ZfpType;
  readonly #shape: readonly number[];

  constructor(
    name: string,
    path: string,
    config: ZfpyConfig,
    spec: ChunkSpec,
    options: ZfpCodecOptions = {},
  ) {
    this.name = name;
    this.#core = new ZfpyCore(name, path, config, options.wordBits ?? 64);
    this.#type = zfpyType(name, path, spec);
    this.#shape = spec.shape;
  }

  toJSON(): JsonObject {
    return this.#core.toJSON();
  }

  get #size(): number {
    return count(this.#shape) * (this.#type === "float32" || this.#type === "int32" ? 4 : 8);
  }

  encode(bytes: Uint8Array, options?: CodecOptions): Uint8Array {
    throwIfAborted(options?.signal, this.#core.path);
    if (bytes.length !== this.#size) {
      throw codecError(
        this.name,
        this.#core.path,
        `expected ${this.#size} bytes of a [${this.#shape}] ${this.#type} chunk, got ${bytes.length}`,
      );
    }
    return this.#core.encode(typedFromBytes(this.#type, bytes), this.#shape);
  }

  maxEncodedSize(_decodedSize: number): number {
    return maxStreamBytes(this.#shape, this.#type === "float32" || this.#type === "int32" ? 4 : 8);
  }

  /** Decodes into exactly the chunk's size (the header must agree with the chunk's shape and type). */
  decode(bytes: Uint8Array, decodedSize?: number, options?: CodecOptions): Uint8Array {
    throwIfAborted(options?.signal, this.#core.path);
    const size = this.#size;
    const bound = decodedSize ?? options?.maxDecodedSize;
    if (decodedSize !== undefined && decodedSize !== size) {
      throw codecError(
        this.name,
        this.#core.path,
        `a [${this.#shape}] ${this.#type} chunk has ${size} bytes, not the expected ${decodedSize}`,
      );
    }
    if (bound !== undefined && size > bound) {
      throw codecError(
        this.name,
        this.#core.path,
        `a [${this.#shape}] ${this.#type} chunk of ${size} bytes exceeds the bound of ${bound}`,
      );
    }
    const data = this.#core.decode(bytes, this.#type, this.#shape);
    return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  }
}

/**
 * zarr-python 3's `numcodecs.zfpy` (array -> bytes): the chunk array as
 * `numcodecs.zfpy.ZFPY.encode` writes it, a zfpy stream with a full header.
 *
 * @example
 * ```ts
 * import { codecTestContext } from "@zarr/core/codec";
 * const codec = numcodecsZfpyCodec.fromConfig({ mode: 2, rate: 8 }, codecTestContext([64, 64], "float64"));
 * ```
 */
export class ZfpyArrayCodec implements ArrayToBytesCodec {
  readonly kind = "array_to_bytes";
  readonly name: string;
  readonly #core: ZfpyCore;

  constructor(name: string, path: string, config: ZfpyConfig, options: ZfpCodecOptions = {}) {
    this.name = name;
    this.#core = new ZfpyCore(name, path, config, options.wordBits ?? 64);
  }

  toJSON(): JsonObject {
    return this.#core.toJSON();
  }

  validate(spec: ChunkSpec): void {
    zfpyType(this.name, this.#core.path, spec);
  }

  maxEncodedSize(spec: ChunkSpec): number {
    return maxStreamBytes(spec.shape, spec.dataType.itemSize ?? 8);
  }

  encode(chunk: NDArray, spec: ChunkSpec, options?: CodecOptions): Uint8Array {
    throwIfAborted(options?.signal, this.#core.path);
    zfpyType(this.name, this.#core.path, spec);
    return this.#core.encode(chunk.data as ZfpData, spec.shape);
  }

  decode(bytes: Uint8Array, spec: ChunkSpec, options?: CodecOptions): NDArray {
    throwIfAborted(options?.signal, this.#core.path);
    const type = zfpyType(this.name, this.#core.path, spec);
    const data = this.#core.decode(bytes, type, spec.shape);
    return { data, shape: spec.shape, stride: cStrides(spec.shape), dataType: spec.dataType };
  }
}

/** The zfp type a `zfp` codec stores a data type as, or undefined. */
function storedType(dataType: DataType): ZfpType | undefined {
  if (NATIVE.has(dataType.name)) return dataType.name as ZfpType;
  return PROMOTED[dataType.name];
}

/**
 * zarrs' `zfp` codec (array -> bytes; zarr-extensions `zfp`): a headerless
 * zfp stream, parameters from the metadata. Chunks of 0 dimensions are a
 * 1-d field of one value; more than 4 dimensions are not supported (put a
 * codec that drops unit dimensions first).
 *
 * @example
 * ```ts
 * import { codecTestContext } from "@zarr/core/codec";
 * const codec = zfpCodec.fromConfig({ mode: "fixed_accuracy", tolerance: 0.05 }, codecTestContext([32, 32, 32], "float32"));
 * ```
 */
export class ZfpCodec implements ArrayToBytesCodec {
  readonly kind = "array_to_bytes";
  readonly name: string;
  readonly mode: ZfpMode;
  readonly #path: string;
  readonly #wordBits: 8 | 16 | 32 | 64;

  constructor(name: string, path: string, mode: ZfpMode, options: ZfpCodecOptions = {}) {
    this.name = name;
    this.mode = mode;
    this.#path = path;
    this.#wordBits = options.wordBits ?? 64;
  }

  toJSON(): JsonObject {
    return { name: this.name, configuration: { ...this.mode } };
  }

  #error(message: string, cause?: unknown): CodecError {
    return codecError(this.name, this.#path, message, cause);
  }

  /** The zfp type, shape and parameters of chunks of `spec`. */
  #plan(spec: ChunkSpec): { type: ZfpType; shape: readonly number[]; params: ZfpParams } {
    const type = storedType(spec.dataType);
    if (!type) {
      throw this.#error(
        `zfp encodes float32, float64 and integer chunks of up to 64 bits, not ${spec.dataType.name}`,
      );
    }
    if (spec.shape.length > 4) {
      throw this.#error(
        `zfp encodes chunks of up to 4 dimensions, not ${spec.shape.length} (drop unit dimensions first)`,
      );
    }
    if (this.mode.mode === "fixed_accuracy" && (type === "int32" || type === "int64")) {
      throw this.#error(
        `fixed_accuracy mode is for floating-point data, not ${spec.dataType.name}`,
      );
    }
    const params = zfpModeParams(this.mode, type);
    if (!params) throw this.#error(`rate ${(this.mode as { rate: number }).rate} is out of range`);
    return { type, shape: spec.shape.length === 0 ? [1] : spec.shape, params };
  }

  validate(spec: ChunkSpec): void {
    this.#plan(spec);
  }

  maxEncodedSize(spec: ChunkSpec): number {
    return maxStreamBytes(spec.shape, 8);
  }

  encode(chunk: NDArray, spec: ChunkSpec, options?: CodecOptions): Uint8Array {
    throwIfAborted(options?.signal, this.#path);
    const { shape, params } = this.#plan(spec);
    let data: ZfpData;
    if (NATIVE.has(spec.dataType.name)) {
      data = chunk.data as ZfpData;
    } else {
      const promoted = promote(spec.dataType.name, chunk.data as TypedArray);
      if (typeof promoted === "string") throw this.#error(`cannot encode: ${promoted}`);
      data = promoted;
    }
    try {
      return zfpCompress(data, shape, params, { header: false, wordBits: this.#wordBits });
    } catch (e) {
      if (e instanceof ZfpFormatError) throw this.#error(`cannot encode: ${e.message}`, e);
      throw e;
    }
  }

  decode(bytes: Uint8Array, spec: ChunkSpec, options?: CodecOptions): NDArray {
    throwIfAborted(options?.signal, this.#path);
    const { type, shape, params } = this.#plan(spec);
    let stored: ZfpData;
    try {
      stored = zfpDecompress(bytes, { type, shape, params });
    } catch (e) {
      if (e instanceof ZfpFormatError)
        throw this.#error(`cannot decode ${bytes.length} bytes: ${e.message}`, e);
      throw e;
    }
    let data: ZfpData | TypedArray = stored;
    if (!NATIVE.has(spec.dataType.name)) {
      const out = spec.dataType.allocate(count(spec.shape)) as TypedArray;
      demote(spec.dataType.name, stored, out);
      data = out;
    }
    return { data, shape: spec.shape, stride: cStrides(spec.shape), dataType: spec.dataType };
  }
}

function zfpyFactory(
  name: string,
  kind: "bytes_to_bytes" | "array_to_bytes",
  options: ZfpCodecOptions,
): CodecFactory {
  return {
    kind,
    fromConfig(configuration: JsonObject | undefined, context: CodecContext) {
      // v2 metadata may carry keys of other numcodecs versions (compression_kwargs is ignored, as numcodecs does).
      const config = parseZfpyConfig(configuration, name, context.path, context.format === 2);
      return kind === "bytes_to_bytes"
        ? new ZfpyBytesCodec(name, context.path, config, context.spec, options)
        : new ZfpyArrayCodec(name, context.path, config, options);
    },
  };
}

/**
 * Factories with {@link ZfpCodecOptions}, to register instead of the
 * defaults (e.g. `registerCodec("zfpy", createZfpFactories({ wordBits: 8 }).zfpy)`).
 */
export function createZfpFactories(options: ZfpCodecOptions = {}): {
  zfpy: CodecFactory;
  numcodecsZfpy: CodecFactory;
  zfp: CodecFactory;
} {
  return {
    zfpy: zfpyFactory("zfpy", "bytes_to_bytes", options),
    numcodecsZfpy: zfpyFactory("numcodecs.zfpy", "array_to_bytes", options),
    zfp: {
      kind: "array_to_bytes",
      fromConfig(configuration, context) {
        return new ZfpCodec(
          "zfp",
          context.path,
          parseZfpConfig(configuration, "zfp", context.path),
          options,
        );
      },
    },
  };
}

const DEFAULTS = createZfpFactories();
/** numcodecs `zfpy` in v2 metadata (a compressor: bytes -> bytes). */
export const zfpyCodec: CodecFactory = DEFAULTS.zfpy;
/** zarr-python 3's `numcodecs.zfpy` in v3 metadata (array -> bytes). */
export const numcodecsZfpyCodec: CodecFactory = DEFAULTS.numcodecsZfpy;
/** zarrs' `zfp` in v3 metadata (array -> bytes, headerless). */
export const zfpCodec: CodecFactory = DEFAULTS.zfp;

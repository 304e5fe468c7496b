/**
 * The pcodec codecs: numcodecs' `PCodec` as a v2 compressor (`pcodec`, a
 * bytes -> bytes codec reading the chunk's data type from its context) and
 * as zarr-python 3's `numcodecs.pcodec` (an array -> bytes codec).
 *
 * @module
 */
import { CodecError, type JsonObject } from "@zarr/core";
import {
  type ArrayToBytesCodec,
  type BytesToBytesCodec,
  type ChunkSpec,
  type CodecFactory,
  type CodecOptions,
  type NDArray,
  throwIfAborted,
} from "@zarr/core/codec";
import { encodeOptionsOf, type PcodecConfig, parsePcodecConfig } from "./config.js";
import { encodeStandalone } from "./encoder.js";
import { PcoError } from "./errors.js";
import { numberTypeOfDataType, type PcoNumberType } from "./number-types.js";
import { decodeStandalone } from "./standalone.js";

/**
 * The most bytes {@link PcodecCodec.decode} produces when it is given neither
 * an exact `decodedSize` nor `options.maxDecodedSize`: 1 GiB.
 */
export const DEFAULT_MAX_DECODED_SIZE = 1 << 30;

/** The data types numcodecs' `PCodec` accepts (Zarr v3 names). */
export const SUPPORTED_DATA_TYPES: readonly string[] = [
  "uint16",
  "uint32",
  "uint64",
  "int16",
  "int32",
  "int64",
  "float16",
  "float32",
  "float64",
];

/** Options of {@link PcodecCodec}. */
export interface PcodecCodecOptions extends Partial<PcodecConfig> {
  /** The Zarr data type of the numbers (`"float64"`, ...). */
  dataType: string;
  /** The metadata name written by `toJSON` (default `"pcodec"`). */
  name?: string;
  /** The metadata path, for error messages. */
  path?: string;
}

/**
 * numcodecs' `PCodec` (v2 id `pcodec`) as a bytes -> bytes codec: the bytes
 * are the chunk's numbers in little-endian order, compressed as a Pco
 * standalone stream.
 *
 * @example
 * ```ts
 * import { PcodecCodec } from "@zarr/codec-pcodec";
 * const codec = new PcodecCodec({ dataType: "float64" });
 * const values = Float64Array.from({ length: 1000 }, (_, i) => Math.sin(i / 10));
 * const packed = await codec.encode(new Uint8Array(values.buffer));
 * const back = new Float64Array((await codec.decode(packed, values.byteLength)).buffer);
 * console.log(codec.toJSON()); // { name: "pcodec", configuration: { level: 8, ... } }
 * ```
 */
export class PcodecCodec implements BytesToBytesCodec {
  readonly kind = "bytes_to_bytes";
  readonly name: string;
  readonly config: PcodecConfig;
  readonly dataType: string;
  readonly #type: PcoNumberType;
  readonly #path: string;

  constructor(options: PcodecCodecOptions) {
    this.name = options.name ?? "pcodec";
    this.#path = options.path ?? "";
    const { dataType, name: _n, path: _p, ...config } = options;
    this.config = parsePcodecConfig(config as JsonObject, this.name, this.#path);
    this.dataType = dataType;
    this.#type = pcoTypeOf(dataType, this.name, this.#path);
  }

  toJSON(): JsonObject {
    return { name: this.name, configuration: { ...this.config } };
  }

  #error(message: string, cause?: unknown): CodecError {
    return new CodecError(`${this.name} codec at "${this.#path}": ${message}`, {
      path: this.#path,
      cause,
    });
  }

  encode(bytes: Uint8Array, options?: CodecOptions): Uint8Array {
    throwIfAborted(options?.signal, this.#path);
    const width = this.#type.bits / 8;
    if (bytes.length % width !== 0) {
      throw this.#error(`${bytes.length} bytes are not a whole number of ${this.dataType} values`);
    }
    return encodeStandalone(bytes, this.#type, encodeOptionsOf(this.config));
  }

  /**
   * The most bytes an encoding of `decodedSize` bytes takes, for any writer:
   * a number costs at most its own bits plus 14 tANS bits, and each chunk's
   * metadata at most a few hundred KiB (bins and delta state).
   */
  maxEncodedSize(decodedSize: number): number {
    const n = decodedSize / (this.#type.bits / 8);
    return decodedSize + Math.ceil((n * 14) / 8) + (Math.ceil(n / 4096) + 1) * (1 << 20);
  }

  /**
   * Decodes. `decodedSize` is the exact size (any other is a `CodecError`);
   * without it the output may have at most `options.maxDecodedSize` bytes
   * (else {@link DEFAULT_MAX_DECODED_SIZE}). Chunks declaring more numbers
   * than that fail before their data is decoded.
   */
  decode(bytes: Uint8Array, decodedSize?: number, options?: CodecOptions): Uint8Array {
    throwIfAborted(options?.signal, this.#path);
    const width = this.#type.bits / 8;
    const limit = decodedSize ?? options?.maxDecodedSize ?? DEFAULT_MAX_DECODED_SIZE;
    if (!Number.isSafeInteger(limit) || limit < 0) {
      throw this.#error(`the decoded size must be a non-negative integer, got ${limit}`);
    }
    if (decodedSize !== undefined && decodedSize % width !== 0) {
      throw this.#error(`${decodedSize} bytes are not a whole number of ${this.dataType} values`);
    }
    return this.decodeNumbers(bytes, Math.floor(limit / width), decodedSize !== undefined);
  }

  /** Decodes `count` numbers (exactly, or at most when `exact` is false) into their bytes. */
  decodeNumbers(bytes: Uint8Array, count: number, exact = true): Uint8Array {
    try {
      return decodeStandalone(bytes, this.#type, count, exact);
    } catch (e) {
      if (e instanceof PcoError) {
        throw this.#error(`cannot decode ${bytes.length} bytes: ${e.message}`, e);
      }
      throw e;
    }
  }
}

/**
 * zarr-python 3's `numcodecs.pcodec` as an array -> bytes codec: the chunk
 * in C order as a Pco standalone stream.
 *
 * @example
 * ```ts
 * import "@zarr/codec-pcodec/register";
 * import { createArray, MemoryStore } from "@zarr/core";
 * const a = await createArray(new MemoryStore(), "t", {
 *   shape: [1000],
 *   chunkShape: [500],
 *   dataType: "int64",
 *   codecs: [{ name: "numcodecs.pcodec", configuration: { level: 8 } }],
 * });
 * ```
 */
export class NumcodecsPcodecCodec implements ArrayToBytesCodec {
  readonly kind = "array_to_bytes";
  readonly name: string;
  readonly #inner: PcodecCodec;
  readonly #path: string;

  constructor(options: PcodecCodecOptions) {
    this.name = options.name ?? "numcodecs.pcodec";
    this.#path = options.path ?? "";
    this.#inner = new PcodecCodec({ ...options, name: this.name });
  }

  get config(): PcodecConfig {
    return this.#inner.config;
  }

  toJSON(): JsonObject {
    return this.#inner.toJSON();
  }

  validate(decoded: ChunkSpec): void {
    pcoTypeOf(decoded.dataType.name, this.name, this.#path);
  }

  maxEncodedSize(decoded: ChunkSpec): number {
    return this.#inner.maxEncodedSize(elementCount(decoded) * decoded.dataType.itemSize!);
  }

  encode(chunk: NDArray, decoded: ChunkSpec, options?: CodecOptions): Uint8Array {
    const bytes = decoded.dataType.toBytes!(chunk.data, true);
    return this.#inner.encode(bytes, options);
  }

  decode(bytes: Uint8Array, decoded: ChunkSpec, options?: CodecOptions): NDArray {
    throwIfAborted(options?.signal, this.#path);
    const n = elementCount(decoded);
    const out = this.#inner.decodeNumbers(bytes, n);
    return {
      data: decoded.dataType.fromBytes!(out, n, true),
      shape: decoded.shape,
      stride: cStrides(decoded.shape),
      dataType: decoded.dataType,
    };
  }
}

function elementCount(spec: ChunkSpec): number {
  let n = 1;
  for (const d of spec.shape) n *= d;
  return n;
}

function cStrides(shape: readonly number[]): number[] {
  const stride = new Array<number>(shape.length);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    stride[i] = s;
    s *= shape[i];
  }
  return stride;
}

function pcoTypeOf(dataType: string, name: string, path: string): PcoNumberType {
  const type = SUPPORTED_DATA_TYPES.includes(dataType) ? numberTypeOfDataType(dataType) : undefined;
  if (!type) {
    throw new CodecError(
      `${name} codec at "${path}": pcodec supports ${SUPPORTED_DATA_TYPES.join(", ")}, not ${dataType}`,
      { path },
    );
  }
  return type;
}

/**
 * v2 `pcodec`: numcodecs' `PCodec` as a compressor (`.zarray`:
 * `"compressor": {"id": "pcodec", "level": 8, ...}`).
 *
 * @example
 * ```ts
 * import { registerCodec } from "@zarr/core";
 * import { pcodecCodec } from "@zarr/codec-pcodec";
 * registerCodec("pcodec", pcodecCodec); // what "@zarr/codec-pcodec/register" does
 * ```
 */
export const pcodecCodec: CodecFactory = {
  kind: "bytes_to_bytes",
  fromConfig(configuration, context) {
    const config = parsePcodecConfig(configuration, "pcodec", context.path, context.format === 2);
    return new PcodecCodec({
      ...config,
      dataType: context.spec.dataType.name,
      name: "pcodec",
      path: context.path,
    });
  },
};

/**
 * v3 `numcodecs.pcodec`: zarr-python 3's array -> bytes wrapper of numcodecs' `PCodec`.
 *
 * @example
 * ```ts
 * import { registerCodec } from "@zarr/core";
 * import { numcodecsPcodecCodec } from "@zarr/codec-pcodec";
 * registerCodec("numcodecs.pcodec", numcodecsPcodecCodec);
 * ```
 */
export const numcodecsPcodecCodec: CodecFactory = {
  kind: "array_to_bytes",
  fromConfig(configuration, context) {
    const config = parsePcodecConfig(configuration, "numcodecs.pcodec", context.path, true);
    return new NumcodecsPcodecCodec({
      ...config,
      dataType: context.spec.dataType.name,
      name: "numcodecs.pcodec",
      path: context.path,
    });
  },
};

/**
 * The codec pipeline (v3 core: "Codecs"): zero or more array -> array codecs,
 * exactly one array -> bytes codec, zero or more bytes -> bytes codecs, with the
 * representation propagated from each codec to the next.
 *
 * @module
 */

import type { JsonObject, JsonValue } from "../dtypes/types.js";
import { CodecError, MetadataError, throwIfAborted, untilAborted } from "../errors.js";
import { codecRegistry } from "../registry/index.js";
import { loadCodec } from "../util/load.js";
import { bytesCodec } from "./array-bytes/bytes.js";
import {
  type DecodeLimits,
  defaultMaxEncodedSize,
  getDecodeLimits,
  resolveDecodeLimits,
  variableChunkBound,
} from "./limits.js";
import type {
  ArrayToArrayCodec,
  ArrayToBytesCodec,
  ByteGetter,
  BytesToBytesCodec,
  ChunkRegion,
  ChunkSpec,
  Codec,
  CodecContext,
  CodecFactory,
  CodecOptions,
  NDArray,
} from "./types.js";

/**
 * Codecs that core provides without registration. `bytes` is used by almost
 * every array and is bundled with the pipeline; the others are loaded the first
 * time metadata names them, so an application that never meets a sharded,
 * transposed, checksummed or variable-length array does not ship their code.
 */
function builtinCodec(
  name: string,
  path: string,
): CodecFactory | Promise<CodecFactory> | undefined {
  switch (name) {
    case "bytes":
      return bytesCodec;
    case "transpose":
      return loadCodec(name, path, () => import("./array-array/transpose.js")).then(
        (m) => m.transposeCodec,
      );
    case "crc32c":
      return loadCodec(name, path, () => import("./bytes-bytes/crc32c.js")).then(
        (m) => m.crc32cCodec,
      );
    case "sharding_indexed":
      return loadCodec(name, path, () => import("../sharding/codec.js")).then(
        (m) => m.shardingCodec,
      );
    case "vlen-utf8":
      return loadCodec(name, path, () => import("./array-bytes/vlen.js")).then(
        (m) => m.vlenUtf8Codec,
      );
    case "vlen-bytes":
      return loadCodec(name, path, () => import("./array-bytes/vlen.js")).then(
        (m) => m.vlenBytesCodec,
      );
    default:
      return undefined;
  }
}

/**
 * Finds the factory for `name`: registered codecs first (so users can override),
 * then built-ins. A lazy registration that fails to load, or loads something
 * that is not a codec factory, is a `CodecError`; `signal` stops the wait for a
 * loader (an `AbortError`).
 */
export async function codecFactory(
  name: string,
  path: string,
  signal?: AbortSignal,
): Promise<CodecFactory> {
  const found = codecRegistry.has(name)
    ? codecRegistry.get(name, path)
    : (builtinCodec(name, path) ?? codecRegistry.get(name, path));
  const factory = await untilAborted(Promise.resolve(found), signal, path);
  if (
    typeof factory !== "object" ||
    factory === null ||
    typeof factory.fromConfig !== "function" ||
    !CODEC_KINDS.includes(factory.kind)
  ) {
    throw new CodecError(
      `${path}: codec "${name}" is registered as something that is not a codec factory (an object with kind and fromConfig)`,
      { path },
    );
  }
  return factory;
}

const CODEC_KINDS: readonly string[] = ["array_to_array", "array_to_bytes", "bytes_to_bytes"];

/** Throws `CodecError` unless `codec`, made by the factory of `name`, has what a codec of its kind needs. */
function checkCodec(codec: Codec, name: string, path: string): void {
  const ok =
    typeof codec === "object" &&
    codec !== null &&
    CODEC_KINDS.includes(codec.kind) &&
    typeof codec.encode === "function" &&
    typeof codec.decode === "function" &&
    typeof codec.toJSON === "function" &&
    (codec.kind !== "array_to_array" || typeof codec.encodedSpec === "function") &&
    (codec.kind !== "array_to_bytes" || typeof codec.validate === "function");
  if (!ok) {
    throw new CodecError(
      `${path}: the factory of codec "${name}" returned something that is not a codec (kind, encode, decode, toJSON${codec?.kind === "array_to_array" ? ", encodedSpec" : codec?.kind === "array_to_bytes" ? ", validate" : ""})`,
      { path },
    );
  }
}

/** A `{name, configuration}` codec entry from metadata. */
export interface CodecJson {
  name: string;
  configuration?: JsonObject;
}

/** Normalizes one codec entry (`"name"` or `{name, configuration?}`), naming the field on error. */
export function parseCodecJson(entry: JsonValue, field: string, path: string): CodecJson {
  if (typeof entry === "string") return { name: entry };
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
    throw new MetadataError(`${path}: ${field} must be an object with a "name"`, { path });
  }
  const { name, configuration } = entry as JsonObject;
  if (typeof name !== "string") {
    throw new MetadataError(`${path}: ${field}.name must be a string`, { path });
  }
  if (
    configuration !== undefined &&
    (configuration === null || typeof configuration !== "object" || Array.isArray(configuration))
  ) {
    throw new MetadataError(`${path}: ${field}.configuration must be an object`, { path });
  }
  return configuration === undefined
    ? { name }
    : { name, configuration: configuration as JsonObject };
}

/** An encoding pipeline for one array's chunks. */
export class CodecPipeline {
  /** Decoded representation seen by each array -> array codec, then by the array -> bytes codec. */
  readonly #specs: ChunkSpec[];
  /** Byte sizes entering each bytes -> bytes codec when fixed (index 0: after array -> bytes). */
  readonly #sizes: (number | undefined)[];
  /** Every size in {@link #sizes} is known: no decode needs the limits. */
  readonly #exact: boolean;
  /** {@link #boundsFor} of the last limits asked for (usually the process-wide ones). */
  #bounds: { limits: DecodeLimits; bounds: number[] } | undefined;

  private constructor(
    readonly spec: ChunkSpec,
    readonly arrayToArray: readonly ArrayToArrayCodec[],
    readonly arrayToBytes: ArrayToBytesCodec,
    readonly bytesToBytes: readonly BytesToBytesCodec[],
    specs: ChunkSpec[],
    readonly path: string,
  ) {
    this.#specs = specs;
    const last = specs[specs.length - 1];
    const sizes: (number | undefined)[] = [arrayToBytes.encodedSize?.(last)];
    for (const c of bytesToBytes) {
      const prev = sizes[sizes.length - 1];
      sizes.push(prev === undefined ? undefined : c.encodedSize?.(prev));
    }
    this.#sizes = sizes;
    this.#exact = sizes.every((n) => n !== undefined);
  }

  /**
   * Upper bounds, under `limits`, on the bytes entering each bytes -> bytes
   * codec (index `i`: the decoded size of codec `i`), and last, on a stored
   * chunk. Exact where the size is fixed; otherwise the array -> bytes
   * codec's bound, grown through each codec's worst-case encoded size.
   */
  #boundsFor(limits: DecodeLimits): number[] {
    const cached = this.#bounds;
    if (cached !== undefined && cached.limits === limits) return cached.bounds;
    const spec = this.#specs[this.#specs.length - 1];
    let first = this.#sizes[0] ?? arrayToBytesBound(this.arrayToBytes, spec, limits);
    // A chunk (or shard) of variable-size data holds at most maxChunkBytes of
    // encoded elements, whatever its codecs could produce in theory (a shard's
    // bound sums its inner chunks' bounds).
    if (this.spec.dataType.itemSize === null) first = Math.min(first, limits.maxChunkBytes);
    const bounds = [first];
    for (let i = 0; i < this.bytesToBytes.length; i++) {
      const codec = this.bytesToBytes[i];
      const exact = this.#sizes[i + 1];
      const grown = codec.maxEncodedSize?.(bounds[i]) ?? defaultMaxEncodedSize(bounds[i]);
      bounds.push(exact ?? Math.min(Number.MAX_SAFE_INTEGER, grown));
    }
    this.#bounds = { limits, bounds };
    return bounds;
  }

  /**
   * The most bytes a stored chunk of this pipeline can have under `limits`
   * (default: the process-wide {@link DecodeLimits}): exact for fixed-size
   * encodings without compression, a worst-case bound otherwise. Reads pass
   * it to the store as `maxBytes`.
   */
  maxEncodedSize(limits: DecodeLimits = getDecodeLimits()): number {
    const bounds = this.#boundsFor(limits);
    return bounds[bounds.length - 1];
  }

  /**
   * What decoding one chunk may hold under `limits` beyond the chunk's own
   * size, to reserve from the in-flight budget (`reserveDecodeBytes`): the
   * bound of a variable-size chunk's encoded elements (at most
   * `maxChunkBytes`); 0 for fixed-size data, whose decodes are exact.
   */
  decodeReservation(limits: DecodeLimits = getDecodeLimits()): number {
    return this.spec.dataType.itemSize === null ? this.#boundsFor(limits)[0] : 0;
  }

  /**
   * Builds a pipeline from metadata codec entries for chunks of `spec`.
   * Throws `MetadataError` for a malformed list, `NotRegisteredError` for
   * unknown codecs, `CodecError` for codecs that fail to load, and
   * `AbortError` when `signal` aborts while a codec loads.
   */
  static async create(
    entries: readonly JsonValue[],
    spec: ChunkSpec,
    path: string,
    format: 2 | 3 = 3,
    signal?: AbortSignal,
  ): Promise<CodecPipeline> {
    if (!Array.isArray(entries) || entries.length === 0) {
      throw new MetadataError(
        `${path}: codecs must be a non-empty list (an array -> bytes codec is required)`,
        {
          path,
        },
      );
    }
    const pipeline = (inner: readonly JsonValue[], innerSpec: ChunkSpec, innerPath: string) =>
      CodecPipeline.create(inner, innerSpec, innerPath, format, signal);
    const a2a: ArrayToArrayCodec[] = [];
    const b2b: BytesToBytesCodec[] = [];
    let a2b: ArrayToBytesCodec | undefined;
    const specs: ChunkSpec[] = [spec];
    let current = spec;
    for (let i = 0; i < entries.length; i++) {
      const field = `codecs[${i}]`;
      const json = parseCodecJson(entries[i], field, path);
      const factory = await codecFactory(json.name, path, signal);
      const context: CodecContext = {
        spec: current,
        path: `${path}: ${field} (${json.name})`,
        format,
        pipeline,
      };
      const codec = await factory.fromConfig(json.configuration, context);
      checkCodec(codec, json.name, path);
      if (codec.kind === "array_to_array") {
        if (a2b) {
          throw new MetadataError(
            `${path}: ${field}: array -> array codec "${json.name}" after the array -> bytes codec`,
            { path },
          );
        }
        a2a.push(codec);
        current = codec.encodedSpec(current);
        specs.push(current);
      } else if (codec.kind === "array_to_bytes") {
        if (a2b) {
          throw new MetadataError(
            `${path}: ${field}: a second array -> bytes codec "${json.name}" (only one is allowed)`,
            { path },
          );
        }
        codec.validate(current);
        a2b = codec;
      } else {
        if (!a2b) {
          throw new MetadataError(
            `${path}: ${field}: bytes -> bytes codec "${json.name}" before the array -> bytes codec`,
            { path },
          );
        }
        b2b.push(codec);
      }
    }
    if (!a2b) {
      throw new MetadataError(`${path}: codecs has no array -> bytes codec (e.g. "bytes")`, {
        path,
      });
    }
    return new CodecPipeline(spec, a2a, a2b, b2b, specs, path);
  }

  /** Every codec in order. */
  get codecs(): Codec[] {
    return [...this.arrayToArray, this.arrayToBytes, ...this.bytesToBytes];
  }

  /** The metadata form of the codec list. */
  toJSON(): JsonObject[] {
    return this.codecs.map((c) => c.toJSON());
  }

  /** Encoded size of a chunk when every codec has a fixed size (e.g. bytes + crc32c). */
  get encodedSize(): number | undefined {
    return this.#sizes[this.#sizes.length - 1];
  }

  /** Encodes a C-order chunk of `spec.shape`. */
  async encode(chunk: NDArray, options?: CodecOptions): Promise<Uint8Array> {
    let array = chunk;
    for (let i = 0; i < this.arrayToArray.length; i++) {
      throwIfAborted(options?.signal, this.path);
      array = await this.arrayToArray[i].encode(array, this.#specs[i], options);
    }
    let bytes = await this.arrayToBytes.encode(array, this.#specs[this.#specs.length - 1], options);
    for (const c of this.bytesToBytes) {
      throwIfAborted(options?.signal, this.path);
      bytes = await c.encode(bytes, options);
    }
    return bytes;
  }

  /** Decodes a stored chunk into a C-order array of `spec.shape`. */
  async decode(encoded: Uint8Array, options?: CodecOptions): Promise<NDArray> {
    let bytes = encoded;
    for (let i = this.bytesToBytes.length - 1; i >= 0; i--) {
      throwIfAborted(options?.signal, this.path);
      bytes = await this.#decodeStage(i, bytes, options);
    }
    return this.#decodeArray(bytes, options);
  }

  /**
   * The byte size {@link decodeInto} needs for its target, or `undefined` when
   * this pipeline cannot decode into caller memory (no bytes -> bytes codec
   * with `decodeInto`, or a variable-size chunk encoding).
   */
  get decodeIntoSize(): number | undefined {
    const first = this.bytesToBytes[0];
    return first?.decodeInto === undefined ? undefined : this.#sizes[0];
  }

  /**
   * Like {@link decode}, but the innermost bytes -> bytes codec writes its
   * output into `target` (exactly {@link decodeIntoSize} bytes) instead of a
   * fresh buffer. The result may share memory with `target` (with the `bytes`
   * codec in little-endian order it is a view of it), so `target` must not be
   * reused while the result is in use. Throws `CodecError` when the pipeline
   * cannot decode into memory or `target` has the wrong size.
   */
  decodeInto(encoded: Uint8Array, target: Uint8Array, options?: CodecOptions): Promise<NDArray> {
    return this.#decodeIntoTarget(encoded, target, undefined, options);
  }

  /**
   * Whether {@link decodeRangeInto} can decode part of a chunk: the decoded
   * bytes are the elements in C order (no array -> array codec, the `bytes`
   * codec) and the innermost bytes -> bytes codec decodes byte ranges.
   */
  get supportsRangeDecode(): boolean {
    return (
      this.decodeIntoSize !== undefined &&
      this.arrayToArray.length === 0 &&
      this.arrayToBytes.name === "bytes" &&
      this.bytesToBytes[0].decodeRangeInto !== undefined
    );
  }

  /**
   * Whether a byte range of a stored chunk is its elements in that range: no
   * compression or other bytes -> bytes codec, no array -> array codec, the
   * `bytes` codec, a fixed size. A small selection can then read just the
   * bytes it needs from the store.
   */
  get supportsRangeRead(): boolean {
    return (
      this.bytesToBytes.length === 0 &&
      this.arrayToArray.length === 0 &&
      this.arrayToBytes.name === "bytes" &&
      this.encodedSize !== undefined
    );
  }

  /**
   * Whether a stored chunk is exactly the memory of its decoded array:
   * {@link supportsRangeRead} holds and the `bytes` codec says so (host byte
   * order, a type whose memory is its stored bytes). Such chunks are read from
   * the store straight into their places in an output (see `ReadableStore.getInto`).
   */
  get storedAsMemory(): boolean {
    return this.supportsRangeRead && this.decodesAsMemory;
  }

  /**
   * Whether the decoded array is a view of the innermost codec's decoded
   * bytes, unchanged: no array -> array codec, and the `bytes` codec says a
   * stored chunk is its memory (see {@link storedAsMemory}). Turning the bytes
   * into the array then reads none of them, so bytes outside a decoded range
   * are never looked at.
   */
  get decodesAsMemory(): boolean {
    return (
      this.arrayToArray.length === 0 &&
      this.arrayToBytes.storesMemory?.(this.#specs[this.#specs.length - 1]) === true
    );
  }

  /**
   * Like {@link decodeInto}, but only the innermost bytes [start, end) of
   * `target` are sure to be decoded (the rest keeps whatever it held); the
   * elements whose bytes lie there are right in the result. Falls back to a
   * whole decode when the codecs cannot decode ranges.
   */
  decodeRangeInto(
    encoded: Uint8Array,
    target: Uint8Array,
    start: number,
    end: number,
    options?: CodecOptions,
  ): Promise<NDArray> {
    const range = this.supportsRangeDecode ? ([start, end] as const) : undefined;
    return this.#decodeIntoTarget(encoded, target, range, options);
  }

  /** {@link decodeInto}, or with `range` {@link decodeRangeInto} (then supported). */
  async #decodeIntoTarget(
    encoded: Uint8Array,
    target: Uint8Array,
    range: readonly [number, number] | undefined,
    options?: CodecOptions,
  ): Promise<NDArray> {
    const size = this.decodeIntoSize;
    if (size === undefined || target.length !== size) {
      throw new CodecError(
        `${this.path}: cannot decode into a target of ${target.length} bytes (${size === undefined ? "unsupported by these codecs" : `expected ${size}`})`,
        { path: this.path },
      );
    }
    let bytes = encoded;
    for (let i = this.bytesToBytes.length - 1; i >= 1; i--) {
      throwIfAborted(options?.signal, this.path);
      bytes = await this.#decodeStage(i, bytes, options);
    }
    throwIfAborted(options?.signal, this.path);
    const innermost = this.bytesToBytes[0];
    if (range === undefined) await innermost.decodeInto!(bytes, target, options);
    else await innermost.decodeRangeInto!(bytes, target, range[0], range[1], options);
    return this.#decodeArray(target, options);
  }

  /**
   * Runs bytes -> bytes codec `i` backwards: with its exact output size when
   * fixed, otherwise with a bound (`maxDecodedSize`) derived from the
   * metadata and the decode limits; either is checked on the result too.
   */
  async #decodeStage(i: number, bytes: Uint8Array, options?: CodecOptions): Promise<Uint8Array> {
    const codec = this.bytesToBytes[i];
    const expected = this.#sizes[i];
    if (expected !== undefined) {
      const out = await codec.decode(bytes, expected, options);
      if (out.length !== expected) {
        throw new CodecError(
          `${this.path}: ${codec.name} decoded ${out.length} bytes, expected ${expected}`,
          { path: this.path },
        );
      }
      return out;
    }
    const limits = resolveDecodeLimits(options?.decodeLimits);
    const bound = this.#boundsFor(limits)[i];
    const out = await codec.decode(bytes, undefined, { ...options, maxDecodedSize: bound });
    if (out.length > bound) {
      throw new CodecError(
        `${this.path}: ${codec.name} decoded ${out.length} bytes, more than the ${bound} its chunk can hold (${describeBound(this, limits)})`,
        { path: this.path },
      );
    }
    return out;
  }

  /** The array -> bytes and array -> array stages of decoding. */
  async #decodeArray(bytes: Uint8Array, options?: CodecOptions): Promise<NDArray> {
    let array = await this.arrayToBytes.decode(bytes, this.#specs[this.#specs.length - 1], options);
    for (let i = this.arrayToArray.length - 1; i >= 0; i--) {
      throwIfAborted(options?.signal, this.path);
      array = await this.arrayToArray[i].decode(array, this.#specs[i], options);
    }
    return array;
  }

  /**
   * True when a region of a chunk can be decoded without reading the whole
   * chunk (the array -> bytes codec decodes partially and nothing wraps it).
   */
  get supportsPartialDecode(): boolean {
    return (
      this.arrayToArray.length === 0 &&
      this.bytesToBytes.length === 0 &&
      this.arrayToBytes.decodePartial !== undefined
    );
  }

  /** Decodes `region` of a chunk through `input`; see {@link supportsPartialDecode}. */
  decodePartial(
    input: ByteGetter,
    region: ChunkRegion,
    options?: CodecOptions,
  ): Promise<NDArray | undefined> {
    if (!this.supportsPartialDecode) {
      throw new CodecError(`${this.path}: this codec pipeline cannot decode partially`, {
        path: this.path,
      });
    }
    return this.arrayToBytes.decodePartial!(input, region, this.spec, options);
  }
}

/** The bound of an array -> bytes codec's output (see {@link CodecPipeline.maxEncodedSize}). */
function arrayToBytesBound(
  codec: ArrayToBytesCodec,
  spec: ChunkSpec,
  limits: DecodeLimits,
): number {
  const exact = codec.encodedSize?.(spec);
  if (exact !== undefined) return exact;
  const declared = codec.maxEncodedSize?.(spec, limits);
  if (declared !== undefined) return Math.min(Number.MAX_SAFE_INTEGER, declared);
  let n = 1;
  for (const s of spec.shape) n *= s;
  const item = spec.dataType.itemSize;
  return item === null ? variableChunkBound(n, limits) : defaultMaxEncodedSize(n * item);
}

/** How a bound came about, for error messages: which limits to raise. */
function describeBound(pipeline: CodecPipeline, limits: DecodeLimits): string {
  if (pipeline.spec.dataType.itemSize !== null) return "from its shape and data type";
  return `decode limits: ${limits.maxElementBytes} bytes per element, ${limits.maxChunkBytes} per chunk; raise them with setDecodeLimits() or the decodeLimits option`;
}

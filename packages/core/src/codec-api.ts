/**
 * `@zarr/core/codec`: what a codec author needs. The codec contracts (the three
 * kinds of codec, their factory, context and options), codec registration, the
 * {@link CodecPipeline} and JSON parsing of codec chains, the decode bounds every
 * codec must honour, byte-order and float16 helpers, the decode-into-target
 * helpers and worker context types used by worker pools, helpers for writing
 * codecs ({@link ConfigReader}, {@link BoundedOutput}, {@link ByteSink},
 * {@link boundedDecode}), and {@link codecTestContext} for a codec package's tests.
 *
 * This entry never re-exports a module that core loads lazily (the built-in
 * transpose, crc32c, vlen and sharding codecs live in `@zarr/core/builtin-codecs`),
 * so a codec package that takes values from here adds nothing else to a web app's
 * up-front bundle.
 *
 * @example
 * ```ts
 * import { CodecError } from "@zarr/core";
 * import { type CodecFactory, registerCodec } from "@zarr/core/codec";
 * export const xorCodec: CodecFactory = {
 *   kind: "bytes_to_bytes",
 *   fromConfig(configuration, context) {
 *     const key = configuration?.key ?? 0x5a;
 *     if (typeof key !== "number") throw new CodecError(`xor at "${context.path}": key must be a number`);
 *     const flip = (b: Uint8Array) => b.map((x) => x ^ key);
 *     return { kind: "bytes_to_bytes", encode: async (b) => flip(b), decode: async (b) => flip(b) };
 *   },
 * };
 * registerCodec("xor", xorCodec);
 * ```
 *
 * @module
 */

export {
  BoundedOutput,
  ByteSink,
  boundedDecode,
  ConfigReader,
  DEFAULT_MAX_DECODED_SIZE,
  releaseBuffer,
} from "./codecs/authoring.js";
export {
  type ChunkTarget,
  chunkByteSpan,
  copyChunk,
  DecodeBuffers,
  decodeChunkTo,
} from "./codecs/decode-to.js";
export {
  DEFAULT_DECODE_LIMITS,
  type DecodeLimits,
  getDecodeLimits,
  metadataRead,
} from "./codecs/limits.js";
export { type CodecJson, CodecPipeline, codecFactory, parseCodecJson } from "./codecs/pipeline.js";
export type {
  ArrayToArrayCodec,
  ArrayToBytesCodec,
  ByteGetter,
  BytesToBytesCodec,
  ChunkRegion,
  ChunkSpec,
  CoalesceOptions,
  Codec,
  CodecContext,
  CodecFactory,
  CodecOptions,
  NDArray,
} from "./codecs/types.js";
export {
  assertLittleEndianHost,
  decodeFloat16,
  encodeFloat16,
  float16BitsToFloat32Bits,
  float16BitsToNumber,
  float32BitsToFloat16Bits,
  float64ToFloat16Bits,
  LITTLE_ENDIAN_HOST,
  roundToFloat16,
} from "./dtypes/index.js";
export { throwIfAborted } from "./errors.js";
export type { NamedConfiguration } from "./metadata/index.js";
export { codecRegistry, type Registration, registerCodec } from "./registry/index.js";
export { codecTestContext } from "./testing/codec-context.js";
export type { ChunkCodecContext, ChunkCodecWorkers } from "./workers/types.js";

/**
 * @zarr/core: the Zarr v3 array model, store interface and extension registry.
 *
 * ```ts
 * import { MemoryStore, createArray, openArray, slice } from "@zarr/core";
 * const store = new MemoryStore();
 * const a = await createArray(store, "temps", { shape: [100, 100], dataType: "float32", chunkShape: [10, 10] });
 * await a.set([slice(0, 10), null], 1.5);
 * const { data, shape } = await (await openArray(store, "temps")).get([0, slice(0, 5)]);
 * ```
 *
 * @packageDocumentation
 */

export * from "./chunk-grid/regular.js";
export * from "./chunk-key/encodings.js";
export { transposeCodec } from "./codecs/array-array/transpose.js";
export { bytesCodec } from "./codecs/array-bytes/bytes.js";
export { crc32c, crc32cCodec } from "./codecs/bytes-bytes/crc32c.js";
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
  setDecodeLimits,
} from "./codecs/limits.js";
export { type CodecJson, CodecPipeline, codecFactory, parseCodecJson } from "./codecs/pipeline.js";
export type * from "./codecs/types.js";
export * from "./dtypes/index.js";
export type * from "./dtypes/types.js";
export * from "./errors.js";
export {
  type ArrayParts,
  type ArrayValue,
  type GetOptions,
  gridCoords,
  type ReadOptions,
  type SetOptions,
  ZarrArray,
} from "./hierarchy/array.js";
export {
  type CreateNodeRequest,
  Group,
  type GroupContext,
  type HierarchyNode,
} from "./hierarchy/group.js";
export {
  buildArrayParts,
  type CreateArrayOptions,
  type CreateGroupOptions,
  consolidate,
  createArray,
  createGroup,
  eraseNode,
  exists,
  keepsEveryChunk,
  type NodeFormat,
  nodeFormatRegistry,
  type OpenOptions,
  open,
  openArray,
  openGroup,
  V2_FILL_VALUE_FIELD,
  v3GroupContext,
} from "./hierarchy/node.js";
export { childKey, nodeName, nodePrefix, parentPath } from "./hierarchy/paths.js";
export * from "./indexing/index.js";
export * from "./json.js";
export * from "./metadata/index.js";
export * from "./registry/index.js";
export { ShardIndexCache } from "./sharding/index-cache.js";
export * from "./store/index.js";
export type * from "./store/types.js";
export { DEFAULT_CONCURRENCY, forEachConcurrent, withKeyLock } from "./util/concurrency.js";
export type { ChunkCodecContext, ChunkCodecWorkers } from "./workers/types.js";

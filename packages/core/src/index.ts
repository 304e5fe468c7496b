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
export * from "./errors.js";
export type * from "./store/types.js";
export type * from "./dtypes/types.js";
export type * from "./codecs/types.js";
export * from "./registry/index.js";
export * from "./store/index.js";
export * from "./json.js";
export * from "./dtypes/index.js";
export * from "./metadata/index.js";
export * from "./indexing/index.js";
export * from "./chunk-grid/regular.js";
export * from "./chunk-key/encodings.js";
export { CodecPipeline, codecFactory, parseCodecJson, type CodecJson } from "./codecs/pipeline.js";
export { bytesCodec } from "./codecs/bytes.js";
export { transposeCodec } from "./codecs/transpose.js";
export { crc32c, crc32cCodec } from "./codecs/crc32c.js";
export { ZarrArray, gridCoords, type ArrayParts, type ArrayValue, type GetOptions, type SetOptions } from "./hierarchy/array.js";
export { Group, type GroupContext, type HierarchyNode } from "./hierarchy/group.js";
export {
  open,
  openArray,
  openGroup,
  createArray,
  createGroup,
  eraseNode,
  exists,
  buildArrayParts,
  nodeFormatRegistry,
  v3GroupContext,
  type NodeFormat,
  type OpenOptions,
  type CreateArrayOptions,
  type CreateGroupOptions,
} from "./hierarchy/node.js";
export { childKey, nodePrefix, parentPath, nodeName } from "./hierarchy/paths.js";
export { forEachConcurrent, withKeyLock, DEFAULT_CONCURRENCY } from "./util/concurrency.js";

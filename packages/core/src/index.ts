/**
 * @zarr/core: open, create and read or write Zarr arrays and groups.
 *
 * ```ts
 * import { MemoryStore, createArray, openArray, slice } from "@zarr/core";
 * const store = new MemoryStore();
 * const a = await createArray(store, "temps", { shape: [100, 100], dataType: "float32", chunkShape: [10, 10] });
 * await a.set([slice(0, 10), null], 1.5);
 * const { data, shape } = await (await openArray(store, "temps")).get([0, slice(0, 5)]);
 * ```
 *
 * This entry holds what applications call. Codecs and stores are registered
 * here too, eagerly or lazily:
 *
 * ```ts
 * import { registerCodec } from "@zarr/core";
 * registerCodec("zstd", { load: () => import("@zarr/codec-zstd").then((m) => m.zstdCodec) });
 * ```
 *
 * Other entries, by audience: `@zarr/core/store` (store authors: store
 * interfaces, helpers and the conformance suite), `@zarr/core/codec` (codec
 * authors: codec contracts and helpers), `@zarr/core/builtin-codecs` (core's own
 * codecs and the `ShardIndexCache`) and `@zarr/core/internal` (for this
 * repository's packages, with no semver promise).
 *
 * This entry must not re-export a module that core loads with dynamic `import()`
 * (built-in transpose, crc32c, vlen and sharding codecs, ...): a bundler would
 * then load it up front. `tools/packaging/api/` snapshots what it exports.
 *
 * @packageDocumentation
 */

export { ZarrArray } from "./array/array.js";
export type { ArrayValue, GetOptions, ReadOptions, SetOptions } from "./array/types.js";
export { ChunkCache, type ChunkCacheStats } from "./cache/chunk-cache.js";
export {
  DEFAULT_DECODE_LIMITS,
  type DecodeLimits,
  getDecodeLimits,
  setDecodeLimits,
} from "./codecs/limits.js";
export type { NDArray } from "./codecs/types.js";
export type {
  BuiltinDataTypeName,
  DataArrayOf,
  DataTypeMap,
  DataTypeName,
  DataTypeSpec,
  RawDataTypeName,
  ScalarOf,
} from "./dtypes/type-map.js";
export type {
  DataArray,
  DataType,
  DataTypeKind,
  FillValue,
  JsonObject,
  JsonValue,
  Scalar,
  TypedArray,
} from "./dtypes/types.js";
export {
  AbortError,
  CodecError,
  ContainsNodeError,
  IndexError,
  InvalidKeyError,
  MetadataError,
  NodeNotFoundError,
  NotRegisteredError,
  StoreCapabilityError,
  StoreError,
  UnsupportedError,
  ValueError,
  ValueTooLargeError,
  ZarrError,
  type ZarrErrorOptions,
} from "./errors.js";
export {
  type CreateArrayOptions,
  type CreateGroupOptions,
  consolidate,
  createArray,
  createGroup,
  eraseNode,
} from "./hierarchy/create.js";
export { Group, type HierarchyNode } from "./hierarchy/group.js";
export {
  exists,
  type OpenArrayOptions,
  type OpenOptions,
  open,
  openArray,
  openGroup,
} from "./hierarchy/open.js";
export {
  type DimSelection,
  ELLIPSIS,
  type Selection,
  Slice,
  slice,
} from "./indexing/index.js";
export {
  type Registration,
  registerCodec,
  registerDataType,
  registerStore,
} from "./registry/index.js";
export {
  CountingStore,
  InvalidRangeError,
  MemoryStore,
  openStore,
  type StoreCounts,
} from "./store/index.js";
export type { AnyStore, Store, StoreOptions } from "./store/types.js";

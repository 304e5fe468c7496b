/**
 * `@zarr/core/internal`: internals that this repository's own packages
 * (`@zarr/v2-compat`, `@zarr/cli`, `@zarr/workers`, the store packages) build on:
 * metadata parsing and serialization, data type objects, node formats and
 * hierarchy plumbing, selection normalization and strided copies, exact JSON,
 * and the registries themselves.
 *
 * **No semver promise.** Anything here may change or disappear in any release,
 * including a patch release. Third-party packages should use `@zarr/core`,
 * `@zarr/core/store` and `@zarr/core/codec`; ask for what is missing there.
 *
 * Like `@zarr/core`, this entry never re-exports a module that core loads lazily.
 *
 * @module
 */

export type { ArrayParts } from "./array/types.js";
export * from "./chunk-grid/regular.js";
export * from "./chunk-key/encodings.js";
export {
  allocateValues,
  BoolDataType,
  BytesDataType,
  bool,
  bytes,
  ComplexDataType,
  complex64,
  complex128,
  FixedSizeDataType,
  FloatDataType,
  float16,
  float32,
  float64,
  getBuiltinDataType,
  IntegerDataType,
  int8,
  int16,
  int32,
  int64,
  knownDataTypeNames,
  MAX_RAW_BITS,
  MAX_VALUE_ARRAY_LENGTH,
  RawDataType,
  resolveDataType,
  StringDataType,
  showJson,
  string,
  type TypedArrayConstructor,
  uint8,
  uint16,
  uint32,
  uint64,
} from "./dtypes/index.js";
export type { CreateNodeRequest, GroupContext } from "./hierarchy/group.js";
export { v3GroupContext } from "./hierarchy/group-contexts.js";
export {
  buildArrayParts,
  keepsEveryChunk,
  type NodeFormat,
  V2_FILL_VALUE_FIELD,
} from "./hierarchy/open.js";
export { childKey, nodeName, nodePrefix, parentPath } from "./hierarchy/paths.js";
export {
  type Axis,
  axisCount,
  type ChunkProjection,
  copyStrided,
  cStrides,
  fillStrided,
  type NormalizedDim,
  type NormalizedSelection,
  normalizeSelection,
  parseSelection,
  projectChunks,
  resolveAxes,
} from "./indexing/index.js";
export * from "./json.js";
export {
  type ArrayMetadataV3,
  checkFormatAndType,
  chunkPrefix,
  encodeMetadata,
  type GroupMetadataV3,
  metadataKey,
  type NodeMetadataV3,
  nodeNameProblem,
  normalizePath,
  type ParsedArrayMetadataV3,
  parseArrayMetadataV3,
  parseGroupMetadataV3,
  parseNodeMetadataV3,
  serializeArrayMetadataV3,
  serializeGroupMetadataV3,
  validateNodeName,
} from "./metadata/index.js";
export {
  chunkGridRegistry,
  chunkKeyEncodingRegistry,
  type DataTypeResolver,
  dataTypeRegistry,
  nodeFormatRegistry,
  Registry,
} from "./registry/index.js";
export { DEFAULT_CONCURRENCY, forEachConcurrent, withKeyLock } from "./util/concurrency.js";
export { gridCoords } from "./util/grid.js";
export { loadPackageAddon, turnedOff } from "./util/native-addon.js";

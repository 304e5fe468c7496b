/**
 * @zarr/v2-compat: Zarr v2 and v1 for @zarr/core.
 *
 * ```ts
 * import "@zarr/v2-compat/register"; // v2/v1 nodes open through core's `open`
 * import "@zarr/codec-blosc/register";
 * import { MemoryStore, openArray } from "@zarr/core";
 * import { createArrayV2, consolidate, convertV2ToV3 } from "@zarr/v2-compat";
 * const store = new MemoryStore();
 * const a = await createArrayV2(store, "g/temps", { shape: [100], chunks: [10], dtype: "<f8", compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 } });
 * await a.set(null, 1.5);
 * await consolidate(store);
 * const b = await openArray(store, "g/temps"); // reads .zmetadata
 * ```
 *
 * @packageDocumentation
 */
export * from "./codecs/index.js";
export {
  type ConvertOptions,
  type ConvertResult,
  convertV2ToV3,
  convertV3ToV2,
  v2DtypeOf,
  v3CodecsOfV2,
  zarrayOfV3,
} from "./convert.js";
export * from "./dtypes/index.js";
export { decodeBase64, encodeBase64 } from "./util/base64.js";
export { writeV2Json } from "./util/json.js";
export { type CreateArrayV1Options, createArrayV1 } from "./v1/create.js";
export { openV1, v1NodeFormat } from "./v1/format.js";
export { v1Compression, v1Compressor, v1MetaJson, validateV1Meta } from "./v1/meta.js";
export { consolidate } from "./v2/consolidate.js";
export { parseConsolidated, ZMETADATA } from "./v2/consolidated-cache.js";
export {
  type CreateArrayV2Options,
  type CreateGroupV2Options,
  createArrayV2,
  createGroupV2,
  zarrayFor,
} from "./v2/create.js";
export { parseV2FillValue, v2FillValueJson } from "./v2/fill-value.js";
export {
  type ArrayDocs,
  arrayFromZArray,
  openV2,
  readMetadataDoc,
  v2GroupContext,
  v2NodeFormat,
} from "./v2/format.js";
export { normalizeV2Path } from "./v2/paths.js";
export { v3OptionsToV2 } from "./v2/v3-options.js";
export { type V3Form, v3Form, validateZArray, type ZArray } from "./v2/zarray.js";

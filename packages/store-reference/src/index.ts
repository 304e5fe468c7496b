/**
 * @zarr/store-reference: a read-only Zarr store over kerchunk / VirtualiZarr
 * references (JSON version 0 and 1, Parquet reference directories), reading
 * chunks from their target files through the store registry.
 *
 * @example
 * ```ts
 * import "@zarr/store-fs/register";
 * import "@zarr/store-reference/register";
 * import "@zarr/v2-compat/register";
 * import { openArray, openStore } from "@zarr/core";
 * const store = await openStore("reference:data/combined.json");
 * const air = await openArray(store, "air");
 * const { data } = await air.get([0, null, null]);
 * ```
 *
 * @packageDocumentation
 */

export { type ExactRange, type MergedRead, mergeRanges } from "./coalesce.js";
export { type JsonReferenceOptions, parseJsonReferences } from "./json.js";
export { parseReferenceUrl, type ReferenceUrl, referenceStoreOpener } from "./opener.js";
export type { ParquetReferenceOptions, ReadFile } from "./parquet.js";
export { type Reference, resolveTargetUrl } from "./reference.js";
export { type ReferenceSource, ReferenceStore, type ReferenceStoreOptions } from "./store.js";
export {
  createTargetResolver,
  isLocalLocation,
  splitTargetUrl,
  type TargetLocation,
  TargetNotFoundError,
  type TargetResolver,
  type TargetResolverOptions,
} from "./targets.js";
export {
  renderTemplate,
  TemplateError,
  type TemplateScope,
  type TemplateValue,
} from "./template.js";

/**
 * @zarr/store-reference: a read-only Zarr store over kerchunk / VirtualiZarr
 * references (JSON version 0 and 1, Parquet reference directories).
 *
 * @packageDocumentation
 */

export { type ExactRange, type MergedRead, mergeRanges } from "./coalesce.js";
export {
  createTargetResolver,
  splitTargetUrl,
  type TargetLocation,
  type TargetResolver,
  type TargetResolverOptions,
} from "./targets.js";

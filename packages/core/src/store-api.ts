/**
 * `@zarr/core/store`: what a store author needs. The store interfaces, the
 * wrappers and helpers core applies to every store ({@link resolveStore}, key,
 * prefix and byte-range validation), bounded concurrency for batched requests,
 * store registration by URL scheme, and the store conformance suite that every
 * store package runs against itself.
 *
 * Users who only open and read data need none of this: `@zarr/core` exports
 * {@link MemoryStore}, {@link CountingStore}, {@link openStore} and the
 * `AnyStore`/`Store` types.
 *
 * @example
 * ```ts
 * import { type ByteRange, type ReadableStore, rangeBounds, registerStore,
 *   storeConformanceCases, validateKey } from "@zarr/core/store";
 * for (const c of storeConformanceCases({ create: async (initial) => new MyStore(initial) })) {
 *   it(c.name, c.run);
 * }
 * ```
 *
 * @module
 */

export { throwIfAborted, untilAborted } from "./errors.js";
export { registerStore, type StoreOpener, storeRegistry } from "./registry/index.js";
export {
  applyWrites,
  CountingStore,
  groupWrites,
  InvalidRangeError,
  integerOption,
  isResolvedStore,
  isSuffixRange,
  isValidKey,
  MemoryStore,
  mapConcurrent,
  maxRangeLength,
  normalizeStorePrefix,
  openStore,
  parseStoreUrl,
  rangeBounds,
  resolveStore,
  STORE_CONCURRENCY,
  type StoreCounts,
  type StoreUrl,
  sliceRange,
  validateKey,
  validatePrefix,
  validateRange,
  validateValue,
} from "./store/index.js";
export type {
  AnyStore,
  ByteRange,
  DirListing,
  KeyRange,
  KeyWrite,
  ListableStore,
  ReadableStore,
  Store,
  StoreOptions,
  WritableStore,
} from "./store/types.js";
export { ConformanceFailure } from "./testing/assert.js";
export {
  type ConformanceCase,
  type StoreConformanceOptions,
  storeConformanceCases,
} from "./testing/store-conformance.js";

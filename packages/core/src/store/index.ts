/**
 * The store layer: key validation, byte ranges, {@link resolveStore} (validation
 * and generic fallbacks) and {@link MemoryStore}.
 *
 * @module
 */

export { mapConcurrent, STORE_CONCURRENCY } from "./concurrency.js";
export { CountingStore, type StoreCounts } from "./counting.js";
export { isValidKey, validateKey, validatePrefix } from "./keys.js";
export { MemoryStore } from "./memory.js";
export { openStore, parseStoreUrl, type StoreUrl } from "./open.js";
export { integerOption, normalizeStorePrefix } from "./options.js";
export { applyWrites, groupWrites, validateValue } from "./patch.js";
export {
  InvalidRangeError,
  isSuffixRange,
  maxRangeLength,
  rangeBounds,
  sliceRange,
  validateRange,
} from "./range.js";
export { isResolvedStore, resolveStore } from "./resolve.js";
export type * from "./types.js";

/**
 * zarr-store-cache: a byte-bounded LRU read cache around any @zarr/core store,
 * written as a third-party package against core's public API.
 *
 * ```ts
 * import { openArray } from "@zarr/core";
 * import { FileSystemStore } from "@zarr/store-fs";
 * import { CachingStore } from "zarr-store-cache";
 * const store = new CachingStore(new FileSystemStore("data.zarr"), { maxBytes: 256 << 20 });
 * const a = await openArray(store, "temperature");
 * ```
 *
 * @packageDocumentation
 */
export { ByteLru, ENTRY_OVERHEAD } from "./lru.js";
export { cacheStoreOpener } from "./opener.js";
export { type CacheStats, CachingStore, type CachingStoreOptions } from "./store.js";

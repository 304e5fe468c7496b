/**
 * The `cache:` URL opener: `cache:<url>` opens `<url>` with the opener
 * registered for its scheme and wraps the store in a {@link CachingStore}.
 *
 * @module
 */

import { type AnyStore, openStore, StoreError } from "@zarr/core";
import type { StoreOpener } from "@zarr/core/store";
import { CachingStore, type CachingStoreOptions } from "./store.js";

/**
 * Opens `cache:https://host/data.zarr` (or any other registered URL or a path
 * after `cache:`). The `cache` option holds {@link CachingStoreOptions}; every
 * other option goes to the inner store's opener unchanged.
 */
export const cacheStoreOpener: StoreOpener = {
  async open(url: string, options: Record<string, unknown> = {}): Promise<AnyStore> {
    const inner = url.replace(/^cache:/i, "");
    if (inner.length === 0 || inner === url) {
      throw new StoreError(
        `cannot open ${JSON.stringify(url)}: expected cache:<url of the store to cache>`,
        { path: url },
      );
    }
    const { cache, ...rest } = options;
    if (cache !== undefined && (typeof cache !== "object" || cache === null)) {
      throw new StoreError(`option "cache" must be an object of CachingStoreOptions`, {
        path: url,
      });
    }
    return new CachingStore(await openStore(inner, rest), cache as CachingStoreOptions);
  },
};

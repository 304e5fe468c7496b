/**
 * The `file:` URL opener registered by `@zarr/store-fs/register`.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { type AnyStore, StoreError } from "@zarr/core";
import type { StoreOpener } from "@zarr/core/store";
import { FileSystemStore } from "./store.js";

/**
 * Opens `file:` URLs (`file:///data/example.zarr`) as {@link FileSystemStore}s.
 * A string without the `file:` scheme is taken as a path. Options:
 * `{ durable?: boolean }`.
 */
export const fileStoreOpener: StoreOpener = {
  async open(url: string, options: Record<string, unknown> = {}): Promise<AnyStore> {
    let path: string;
    try {
      path = /^file:/i.test(url) ? fileURLToPath(url) : url;
    } catch (cause) {
      throw new StoreError(
        `cannot open ${JSON.stringify(url)} as a local directory: ${(cause as Error).message}`,
        {
          path: url,
          cause,
        },
      );
    }
    const durable = options.durable;
    if (durable !== undefined && typeof durable !== "boolean") {
      throw new StoreError(`option "durable" must be a boolean, got ${JSON.stringify(durable)}`, {
        path: url,
      });
    }
    return new FileSystemStore(path, { durable });
  },
};

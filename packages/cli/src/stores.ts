/**
 * Resolving the `<store>` argument of every command to a store.
 *
 * @module
 */
import type { AnyStore } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { UsageError } from "./usage.js";

/** Opens the store named on the command line (a local directory for now). */
export async function openStoreArg(arg: string): Promise<AnyStore> {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(arg) && !arg.startsWith("file://")) {
    throw new UsageError(`store URLs other than local paths are not supported yet: ${arg}`);
  }
  const path = arg.startsWith("file://") ? new URL(arg).pathname : arg;
  return new FileSystemStore(path);
}

/**
 * The `gs:` (and `gcs:`) URL opener registered by `@zarr/store-gcs/register`.
 *
 * @module
 */

import type { AnyStore } from "@zarr/core";
import type { StoreOpener } from "@zarr/core/store";
import { OpenerOptions, parseBucketUrl } from "@zarr/remote-store";
import type { GcsStore, GcsStoreOptions } from "./store.js";

/**
 * Opens `gs://bucket/prefix` URLs as {@link GcsStore}s. Options (all
 * optional): `apiEndpoint` (alias `endpoint`), `projectId`, `keyFilename`,
 * `timeout`, `idleTimeout`, `maxBodyBytes`.
 * `STORAGE_EMULATOR_HOST` is honoured by the client. Percent-escapes in the
 * prefix are decoded.
 */
export const gcsStoreOpener: StoreOpener = {
  async open(url: string, options: Record<string, unknown> = {}): Promise<AnyStore> {
    const { bucket, prefix } = parseGcsUrl(url);
    const read = new OpenerOptions(url, options);
    const config: GcsStoreOptions = { bucket, prefix };
    const apiEndpoint = read.string("apiEndpoint") ?? read.string("endpoint");
    if (apiEndpoint !== undefined) config.apiEndpoint = apiEndpoint;
    for (const name of ["projectId", "keyFilename"] as const) {
      const value = read.string(name);
      if (value !== undefined) config[name] = value;
    }
    for (const name of ["timeout", "idleTimeout", "maxBodyBytes"] as const) {
      const value = read.integer(name, 0);
      if (value !== undefined) config[name] = value;
    }
    // The Google client loads with the store, when a gs: URL is opened, not
    // with the opener's registration.
    const { GcsStore: Store } = await import("./store.js");
    return new Store(config);
  },
};

/** Splits `gs://bucket/some/prefix` (or `gcs://`) into bucket and (decoded) prefix. */
export function parseGcsUrl(url: string): { bucket: string; prefix: string } {
  return parseBucketUrl(url, {
    schemes: ["gs", "gcs"],
    what: "a Google Cloud Storage URL",
    expected: "gs://bucket/prefix",
  });
}

/**
 * The `gs:` (and `gcs:`) URL opener registered by `@zarr/store-gcs/register`.
 *
 * @module
 */

import { type AnyStore, StoreError, type StoreOpener } from "@zarr/core";
import { GcsStore, type GcsStoreOptions } from "./store.js";

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
    const config: GcsStoreOptions = { bucket, prefix };
    const endpoint = options.apiEndpoint ?? options.endpoint;
    const strings: [keyof GcsStoreOptions, unknown, string][] = [
      ["apiEndpoint", endpoint, options.apiEndpoint === undefined ? "endpoint" : "apiEndpoint"],
      ["projectId", options.projectId, "projectId"],
      ["keyFilename", options.keyFilename, "keyFilename"],
    ];
    for (const [field, value, name] of strings) {
      if (value === undefined) continue;
      if (typeof value !== "string" || value === "") {
        throw new StoreError(
          `option "${name}" of ${JSON.stringify(url)} must be a non-empty string, got ${JSON.stringify(value)}`,
          { path: url },
        );
      }
      (config as unknown as Record<string, string>)[field] = value;
    }
    for (const name of ["timeout", "idleTimeout", "maxBodyBytes"] as const) {
      const value = options[name];
      if (value === undefined) continue;
      if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
        throw new StoreError(
          `option "${name}" of ${JSON.stringify(url)} must be a non-negative integer, got ${JSON.stringify(value)}`,
          { path: url },
        );
      }
      config[name] = value;
    }
    return new GcsStore(config);
  },
};

/** Splits `gs://bucket/some/prefix` (or `gcs://`) into bucket and (decoded) prefix. */
export function parseGcsUrl(url: string): { bucket: string; prefix: string } {
  const match = /^(?:gs|gcs):\/\/([^/?#]+)(\/[^?#]*)?$/i.exec(url);
  if (!match) {
    throw new StoreError(
      `not a Google Cloud Storage URL: ${JSON.stringify(url)} (expected gs://bucket/prefix)`,
      { path: url },
    );
  }
  let prefix: string;
  try {
    prefix = decodeURIComponent(match[2] ?? "");
  } catch (cause) {
    throw new StoreError(`malformed percent-escape in ${JSON.stringify(url)}`, {
      path: url,
      cause,
    });
  }
  return { bucket: match[1], prefix };
}

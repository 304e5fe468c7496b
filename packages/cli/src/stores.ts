/**
 * Resolving the `<store>` argument of every command to a store, through
 * `openStore` and the store packages the CLI registers: local directories
 * (plain paths, `file:`), `http:`/`https:`, and zip archives (`zip:` URLs and
 * paths with a `.zip` segment, e.g. `data.zip` or `data.zip/data.zarr`).
 *
 * @module
 */
import "@zarr/store-fs/register";
import "@zarr/store-http/register";
import "@zarr/store-zip/register";
import { type AnyStore, openStore } from "@zarr/core";
import { UsageError } from "./usage.js";

/**
 * Store options from the environment, passed to every store opener (each
 * takes what it knows): `ZARR_HTTP_HEADERS` (a JSON object of header names
 * and values, e.g. `{"Authorization": "Bearer ..."}`) for HTTP(S). Cloud
 * stores read their usual credentials themselves (AWS_*, GOOGLE_APPLICATION_CREDENTIALS).
 */
export function storeOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  const headers = env.ZARR_HTTP_HEADERS;
  if (headers) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(headers);
    } catch {
      throw new UsageError("ZARR_HTTP_HEADERS must be a JSON object of header names and values");
    }
    if (
      typeof parsed !== "object" ||
      parsed === null ||
      Array.isArray(parsed) ||
      !Object.values(parsed).every((v) => typeof v === "string")
    ) {
      throw new UsageError("ZARR_HTTP_HEADERS must be a JSON object of header names and values");
    }
    options.headers = parsed;
  }
  return options;
}

/**
 * Opens the store named on the command line: a path, a URL of a registered
 * scheme, or a zip archive (see `openStore` in @zarr/core). `options` (e.g.
 * from command-line flags) override those from the environment.
 */
export async function openStoreArg(
  arg: string,
  options: Record<string, unknown> = {},
): Promise<AnyStore> {
  return openStore(arg, { ...storeOptionsFromEnv(), ...options });
}

/**
 * Resolving the `<store>` argument of every command to a store, through
 * `openStore` and the store packages the CLI registers: local directories
 * (plain paths, `file:`), `http:`/`https:`, zip archives (`zip:` URLs and
 * paths with a `.zip` segment), `s3:` and `gs:`/`gcs:`.
 *
 * @module
 */
import "@zarr/store-fs/register";
import "@zarr/store-http/register";
import "@zarr/store-zip/register";
import "@zarr/store-s3/register";
import "@zarr/store-gcs/register";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type AnyStore, openStore } from "@zarr/core";
import { parseStoreUrl } from "@zarr/core/store";
import type { StoreFlags } from "./flags.js";
import { UsageError } from "./usage.js";

export { STORE_FLAGS, STORE_HELP, type StoreFlags } from "./flags.js";

function httpHeaders(env: NodeJS.ProcessEnv): Record<string, string> | undefined {
  const headers = env.ZARR_HTTP_HEADERS;
  if (!headers) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(headers);
  } catch {
    parsed = undefined;
  }
  if (
    typeof parsed !== "object" ||
    parsed === null ||
    Array.isArray(parsed) ||
    !Object.values(parsed).every((v) => typeof v === "string")
  ) {
    throw new UsageError("ZARR_HTTP_HEADERS must be a JSON object of header names and values");
  }
  return parsed as Record<string, string>;
}

/**
 * The opener options for `url`: flags first, then the environment. Only the
 * options of the URL's scheme are passed (openers reject malformed values).
 */
export function storeOptions(
  url: string,
  flags: StoreFlags = {},
  env: NodeJS.ProcessEnv = process.env,
): Record<string, unknown> {
  const { scheme, url: inner } = parseStoreUrl(url);
  // A zip archive on a remote store takes the options of the archive's scheme.
  const archiveScheme =
    scheme === "zip"
      ? (/^zip:([a-z][a-z0-9+.-]*):/i.exec(inner)?.[1]?.toLowerCase() ?? "file")
      : scheme;
  const options: Record<string, unknown> = {};
  const set = (name: string, value: unknown) => {
    if (value !== undefined && value !== "") options[name] = value;
  };
  if (archiveScheme === "http" || archiveScheme === "https") set("headers", httpHeaders(env));
  if (archiveScheme === "s3") {
    set("endpoint", flags["s3-endpoint"] ?? env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL);
    set("region", flags["s3-region"] ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION);
    if (flags["s3-path-style"]) options.forcePathStyle = true;
    if (flags["s3-legacy-checksums"]) options.legacyChecksums = true;
  }
  if (archiveScheme === "gs" || archiveScheme === "gcs") {
    // STORAGE_EMULATOR_HOST is read by the Google client itself.
    set("apiEndpoint", flags["gcs-endpoint"]);
    set("projectId", flags["gcs-project"] ?? env.GOOGLE_CLOUD_PROJECT);
    set("keyFilename", flags["gcs-key-file"] ?? env.GOOGLE_APPLICATION_CREDENTIALS);
  }
  return options;
}

/** Stores opened by {@link openStoreArg} that hold resources (file handles). */
const opened = new Set<{ close(): Promise<void> }>();

/**
 * Opens the store named on the command line (see `openStore` in @zarr/core).
 * A local path that does not exist is an error saying so (a store on it
 * would read as empty: "no array or group at /"), unless `create` says the
 * command makes it.
 */
export async function openStoreArg(
  arg: string,
  flags: StoreFlags = {},
  { create = false }: { create?: boolean } = {},
): Promise<AnyStore> {
  if (!create) requireLocalPath(arg);
  const store = await openStore(arg, storeOptions(arg, flags));
  const closable = store as Partial<{ close(): Promise<void> }>;
  if (typeof closable.close === "function") opened.add(closable as { close(): Promise<void> });
  return store;
}

/** Closes every store opened by {@link openStoreArg} (at the end of a command). */
export async function closeOpenedStores(): Promise<void> {
  const stores = [...opened];
  opened.clear();
  await Promise.allSettled(stores.map((s) => s.close()));
}

/** A path given for a local store (a plain path or a `file:` URL), or `undefined` for other URLs. */
function localPath(arg: string): string | undefined {
  const { scheme } = parseStoreUrl(arg);
  if (scheme !== "file") return undefined;
  return /^file:/i.test(arg) ? fileURLToPath(arg) : arg;
}

/** Throws when `arg` names a local path that does not exist. */
function requireLocalPath(arg: string): void {
  const path = localPath(arg);
  if (path !== undefined && !existsSync(path)) {
    throw new Error(`${JSON.stringify(arg)} does not exist (no such file or directory)`);
  }
}

/**
 * Resolving the `<store>` argument of every command to a store, through
 * `openStore` and the store packages the CLI registers: local directories
 * (plain paths, `file:`), `http:`/`https:`, zip archives (`zip:` URLs and
 * paths with a `.zip` segment), `s3:`, `gs:`/`gcs:`, kerchunk references
 * (`reference:`, `reference+json:`, `reference+parquet:`) and Icechunk
 * repositories (`icechunk:`).
 *
 * @module
 */
import "@zarr/store-fs/register";
import "@zarr/store-http/register";
import "@zarr/store-zip/register";
import "@zarr/store-s3/register";
import "@zarr/store-gcs/register";
import "@zarr/store-reference/register";
import "@zarr/store-icechunk/register";
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
 * URL schemes whose body is another store's location (`zip:s3://b/a.zip`,
 * `icechunk:gs://b/repo`, `reference:https://h/refs.json`): their options are
 * that location's.
 */
const WRAPPER = /^(zip|icechunk|reference(?:\+json|\+parquet)?):/i;

/** The scheme of the store that finally holds `url`'s bytes (wrappers peeled off). */
function locationScheme(url: string): string {
  // parseStoreUrl spells implied forms out (`a.zip/x` is `zip:a.zip!/x`).
  let { scheme, url: inner } = parseStoreUrl(url);
  for (let match = WRAPPER.exec(inner); match; match = WRAPPER.exec(inner)) {
    inner = inner.slice(match[0].length);
    scheme = parseStoreUrl(inner).scheme;
  }
  return scheme;
}

/** The options flags and the environment give stores of one scheme. */
function schemeOptions(
  scheme: string,
  flags: StoreFlags,
  env: NodeJS.ProcessEnv,
): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  const set = (name: string, value: unknown) => {
    if (value !== undefined && value !== "") options[name] = value;
  };
  if (scheme === "http" || scheme === "https") set("headers", httpHeaders(env));
  if (scheme === "s3") {
    set("endpoint", flags["s3-endpoint"] ?? env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL);
    set("region", flags["s3-region"] ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION);
    if (flags["s3-path-style"]) options.forcePathStyle = true;
    if (flags["s3-legacy-checksums"]) options.legacyChecksums = true;
  }
  if (scheme === "gs" || scheme === "gcs") {
    // STORAGE_EMULATOR_HOST is read by the Google client itself.
    set("apiEndpoint", flags["gcs-endpoint"]);
    set("projectId", flags["gcs-project"] ?? env.GOOGLE_CLOUD_PROJECT);
    set("keyFilename", flags["gcs-key-file"] ?? env.GOOGLE_APPLICATION_CREDENTIALS);
  }
  return options;
}

/** Schemes that chunk references may point at, each with its own options. */
const TARGET_SCHEMES = ["file", "http", "https", "s3", "gs", "gcs"];

/**
 * The opener options for `url`: flags first, then the environment. Only the
 * options of the URL's scheme are passed (openers reject malformed values);
 * a wrapped location (`zip:`, `icechunk:`, `reference:`) takes its own
 * scheme's. Stores that follow chunk references to other locations
 * (`reference:`, `icechunk:` virtual chunks) get each target scheme's options,
 * and read local files only with `--allow-local-targets`.
 */
export function storeOptions(
  url: string,
  flags: StoreFlags = {},
  env: NodeJS.ProcessEnv = process.env,
): Record<string, unknown> {
  const { scheme } = parseStoreUrl(url);
  const options = schemeOptions(locationScheme(url), flags, env);
  if (scheme === "icechunk" || scheme.startsWith("reference")) {
    const byScheme = Object.fromEntries(
      TARGET_SCHEMES.map((s) => [s, schemeOptions(s, flags, env)]),
    );
    if (scheme === "icechunk") {
      options.virtualStoreOptions = (target: string) => byScheme[locationScheme(target)] ?? {};
      if (flags["allow-local-targets"]) options.allowLocalFiles = true;
    } else {
      options.protocolOptions = byScheme;
      if (flags["allow-local-targets"]) options.allowLocalTargets = true;
    }
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

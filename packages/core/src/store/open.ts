/**
 * {@link openStore}: opening a store from a URL or path through the store
 * registry (`registerStore(scheme, opener)`), so that applications and the CLI
 * accept every store a user installed without knowing about it.
 *
 * @module
 */

import { StoreError } from "../errors.js";
import { storeRegistry } from "../registry/index.js";
import type { AnyStore } from "./types.js";

/** A URL scheme (two characters or more, so that `C:\data` stays a Windows path). */
const SCHEME = /^([a-z][a-z0-9+.-]+):/i;

/**
 * The first path segment ending in `.zip` (case-insensitive), followed by the
 * end of the path or a separator: group 1 is the archive, group 2 the path inside.
 */
const ZIP_SEGMENT = /^(.*?\.zip)(?:[\\/]+(.*))?$/is;

/** How {@link openStore} reads a URL: the registry scheme and the URL handed to its opener. */
export interface StoreUrl {
  /** The scheme whose opener is used (`"file"` for plain paths). */
  scheme: string;
  /** The URL given to the opener (rewritten to the `zip:` form for paths through a `.zip` file). */
  url: string;
}

/**
 * Decides which registered opener handles `url` (see {@link openStore} for the
 * rules). Pure string handling, no I/O.
 */
export function parseStoreUrl(url: string): StoreUrl {
  if (typeof url !== "string" || url.length === 0) {
    throw new StoreError(`store URL must be a non-empty string, got ${JSON.stringify(url)}`);
  }
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme === "zip") return { scheme, url };
  // A path through a .zip file: everything up to the first `.zip` segment is
  // the archive, the rest a folder inside it. The authority (host, bucket) is
  // never an archive (`.zip` is a top-level domain); query and fragment stay
  // with the archive.
  const end = scheme === undefined ? url.length : firstIndexOf(url, "?#");
  const start = scheme === undefined ? 0 : pathStart(url, scheme);
  const zip = ZIP_SEGMENT.exec(url.slice(start, end));
  if (zip) {
    const archive = url.slice(0, start) + zip[1] + url.slice(end);
    const inner = (zip[2] ?? "").replace(/[\\/]+$/, "");
    return { scheme: "zip", url: `zip:${archive}${inner ? `!/${inner}` : ""}` };
  }
  return { scheme: scheme ?? "file", url };
}

/** Where the path of `url` starts: after `scheme:` and, if present, `//authority`. */
function pathStart(url: string, scheme: string): number {
  const afterScheme = scheme.length + 1;
  if (!url.startsWith("//", afterScheme)) return afterScheme;
  const slash = url.indexOf("/", afterScheme + 2);
  return slash < 0 ? url.length : slash;
}

function firstIndexOf(s: string, chars: string): number {
  for (let i = 0; i < s.length; i++) if (chars.includes(s[i])) return i;
  return s.length;
}

/**
 * Opens the store at `url` with the opener registered for its scheme:
 *
 * - a plain path (no scheme; Windows drive paths included) or `file:` URL: the
 *   `file` opener (`@zarr/store-fs`);
 * - `http:`/`https:` (`@zarr/store-http`), `s3:` (`@zarr/store-s3`), `gs:`/`gcs:`
 *   (`@zarr/store-gcs`), or any scheme a package registered;
 * - `zip:ARCHIVE` or `zip:ARCHIVE!/FOLDER` (`@zarr/store-zip`), where ARCHIVE is
 *   a path or a URL of any registered scheme and FOLDER a folder inside the
 *   archive that becomes the store's root;
 * - a path or URL with a segment ending in `.zip` (`data/archive.zip`,
 *   `https://host/a.zip/data.zarr`): the first such segment is the archive and
 *   the rest the folder inside it, i.e. `zip:ARCHIVE!/FOLDER`.
 *
 * `options` go to the opener unchanged (credentials, headers, ...; each store
 * package documents its own). The result is the store itself, rooted at what
 * the URL names. An unregistered scheme rejects with a `NotRegisteredError`
 * that names the package to install.
 *
 * @param url - A path, a URL string or a `URL`, as listed above.
 * @param options - Options for the store's opener, passed unchanged. Default: `{}`.
 * @returns The opened store.
 * @throws {@link NotRegisteredError} when no opener is registered for the
 *   scheme; {@link StoreError} when `url` is empty or not a string; whatever
 *   the opener throws (e.g. a missing file, a bad option).
 *
 * @example
 * ```ts
 * import "@zarr/store-fs/register";
 * import "@zarr/store-zip/register";
 * import { openArray, openStore } from "@zarr/core";
 * const store = await openStore("fixtures/data.zip/data.zarr");
 * const array = await openArray(store, "temperature");
 * ```
 */
export async function openStore(
  url: string | URL,
  options: Record<string, unknown> = {},
): Promise<AnyStore> {
  const parsed = parseStoreUrl(url instanceof URL ? url.href : url);
  const opener = await storeRegistry.get(parsed.scheme, parsed.url);
  return opener.open(parsed.url, options);
}

/**
 * The `zip:` URL opener registered by `@zarr/store-zip/register`.
 *
 * URL syntax: `zip:ARCHIVE` or `zip:ARCHIVE!/FOLDER`. ARCHIVE is a local path,
 * a `file:` URL, or a URL of any registered store scheme (`https:`, `s3:`,
 * ...); FOLDER is a folder inside the archive that becomes the store's root.
 * `openStore` also maps paths with a `.zip` segment (`data.zip/data.zarr`) to
 * this form.
 *
 * @module
 */

import { type AnyStore, openStore, StoreError } from "@zarr/core";
import type { StoreOpener } from "@zarr/core/store";
import { fileSource, localPath } from "#local-file";
import { type RangeSource, storeSource } from "./source.js";
import { ZipStore } from "./store.js";

/** The parts of a `zip:` URL. */
export interface ZipUrl {
  /** The archive: a path or URL. */
  archive: string;
  /** The folder inside the archive (`""` for its top level). */
  root: string;
}

/** Splits `zip:ARCHIVE!/FOLDER` (the first `!/` ends the archive). */
export function parseZipUrl(url: string): ZipUrl {
  const body = url.replace(/^zip:/i, "");
  const bang = body.indexOf("!/");
  let archive = bang < 0 ? body : body.slice(0, bang);
  const root = bang < 0 ? "" : body.slice(bang + 2).replace(/^\/+|\/+$/g, "");
  if (bang < 0 && archive.endsWith("!")) archive = archive.slice(0, -1);
  if (archive === "") {
    throw new StoreError(
      `zip URL ${JSON.stringify(url)} names no archive (expected zip:ARCHIVE!/FOLDER)`,
      {
        path: url,
      },
    );
  }
  return { archive, root };
}

const SCHEME = /^([a-z][a-z0-9+.-]+):/i;

/**
 * A {@link RangeSource} for an archive path or URL: local paths and `file:`
 * URLs are read directly (Node.js only); other URLs through the store
 * registered for their scheme (the archive's parent as the store, its name as
 * the key), with `options` passed to that store's opener.
 */
export async function archiveSource(
  archive: string,
  options: Record<string, unknown> = {},
): Promise<RangeSource> {
  const scheme = SCHEME.exec(archive)?.[1]?.toLowerCase();
  if (scheme === undefined || scheme === "file") return fileSource(localPath(archive));
  const end = firstIndexOf(archive, "?#");
  const slash = archive.lastIndexOf("/", end - 1);
  const name = archive.slice(slash + 1, end);
  if (slash < 0 || name === "") {
    throw new StoreError(
      `zip archive URL ${JSON.stringify(archive)} does not end with a file name`,
      {
        path: archive,
      },
    );
  }
  let key: string;
  try {
    key = decodeURIComponent(name);
  } catch (cause) {
    throw new StoreError(`zip archive URL ${JSON.stringify(archive)} has a malformed escape`, {
      path: archive,
      cause,
    });
  }
  const parent = await openStore(archive.slice(0, slash + 1) + archive.slice(end), options);
  return storeSource(parent, key, archive);
}

function firstIndexOf(s: string, chars: string): number {
  for (let i = 0; i < s.length; i++) if (chars.includes(s[i])) return i;
  return s.length;
}

/**
 * Opens `zip:` URLs as read-only {@link ZipStore}s. `options` are passed to
 * the opener of the archive's own scheme (credentials, headers); `signal`
 * (an `AbortSignal`) cancels reading the central directory.
 */
export const zipStoreOpener: StoreOpener = {
  async open(url: string, options: Record<string, unknown> = {}): Promise<AnyStore> {
    const { archive, root } = parseZipUrl(url);
    const source = await archiveSource(archive, options);
    const signal = options.signal instanceof AbortSignal ? options.signal : undefined;
    try {
      return await ZipStore.open(source, { root, signal });
    } catch (e) {
      await source.close?.();
      throw e;
    }
  },
};

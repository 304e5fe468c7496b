/**
 * The `reference:` URL openers registered by `@zarr/store-reference/register`.
 *
 * URL syntax (LOCATION is a local path, a `file:` URL, or a URL of any
 * registered store scheme: `https:`, `s3:`, `gs:`, ...):
 *
 * - `reference+json:LOCATION` — a kerchunk JSON reference file (version 0 or 1);
 * - `reference+parquet:LOCATION` — a Parquet reference directory (with `.zmetadata`);
 * - `reference:LOCATION` — JSON when LOCATION's path ends in `.json`
 *   (case-insensitive), otherwise a Parquet reference directory.
 *
 * @module
 */

import { type AnyStore, StoreError } from "@zarr/core";
import type { StoreOpener } from "@zarr/core/store";
import { parentOf } from "./reference.js";
import { ReferenceStore, type ReferenceStoreOptions } from "./store.js";
import { createTargetResolver, isLocalLocation } from "./targets.js";

/** The format and location of a `reference:` URL. */
export interface ReferenceUrl {
  format: "json" | "parquet";
  location: string;
}

const PREFIX = /^reference(?:\+(json|parquet))?:/i;
const SCHEME = /^([a-z][a-z0-9+.-]+):/i;

/**
 * Splits a `reference:`, `reference+json:` or `reference+parquet:` URL.
 *
 * @example
 * ```ts
 * parseReferenceUrl("reference:s3://bucket/combined.json");
 * // { format: "json", location: "s3://bucket/combined.json" }
 * ```
 */
export function parseReferenceUrl(url: string): ReferenceUrl {
  const match = PREFIX.exec(url);
  const location = match ? url.slice(match[0].length) : "";
  if (!match || location === "") {
    throw new StoreError(
      `reference URL ${JSON.stringify(url)} names no reference file (expected reference:LOCATION, reference+json:LOCATION or reference+parquet:LOCATION)`,
      { path: url },
    );
  }
  const explicit = match[1]?.toLowerCase() as "json" | "parquet" | undefined;
  const path = location.replace(/[?#].*$/, "").replace(/\/+$/, "");
  return { format: explicit ?? (/\.json$/i.test(path) ? "json" : "parquet"), location };
}

/** The scheme whose store opens `url` (`"file"` for paths). */
function schemeOf(url: string): string {
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  return scheme === undefined || /^[a-z]$/i.test(scheme) ? "file" : scheme;
}

/** Options the `reference` openers take (besides the reference file's own store options). */
const OWN_OPTIONS = new Set([
  "target",
  "base",
  "maxGap",
  "maxRequestSize",
  "protocolOptions",
  "cachedRecords",
  "maxListedRecords",
  "maxGenerated",
  "allowLocalTargets",
  "signal",
]);

/**
 * Opens `reference:` URLs (see the module documentation) as read-only
 * {@link ReferenceStore}s. Options:
 *
 * - `allowLocalTargets`: let a reference file that is not itself local (on
 *   `https:`, `s3:`, ...) point at local files (paths, `file:` URLs); refused
 *   by default, so a hostile reference file cannot make an application read
 *   (or `zarr serve` publish) the machine's files;
 * - `target`, `base`, `maxGap`, `maxRequestSize`, `cachedRecords`, `maxListedRecords`, `maxGenerated`:
 *   as in {@link ReferenceStoreOptions};
 * - `protocolOptions`: `{ [scheme]: options }` for every store opened on that
 *   scheme (`s3`, `gs`, `https`, `file`, ...), the reference file's and the targets';
 * - any other option: for stores on the reference file's own scheme (the
 *   reference file and targets beside it), unless `protocolOptions` names that scheme.
 */
export const referenceStoreOpener: StoreOpener = {
  async open(url: string, options: Record<string, unknown> = {}): Promise<AnyStore> {
    const { format, location } = parseReferenceUrl(url);
    const own: Record<string, unknown> = {};
    const inherited: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(options)) (OWN_OPTIONS.has(k) ? own : inherited)[k] = v;
    const perScheme = (own.protocolOptions ?? {}) as Record<string, Record<string, unknown>>;
    if (typeof perScheme !== "object" || perScheme === null) {
      throw new StoreError(
        "reference store option protocolOptions must be an object of options by scheme",
        {
          path: url,
        },
      );
    }
    for (const name of ["target", "base"]) {
      if (own[name] !== undefined && typeof own[name] !== "string") {
        throw new StoreError(`reference store option ${name} must be a string`, { path: url });
      }
    }
    const homeScheme = schemeOf(location);
    const storeOptions = (parent: string): Record<string, unknown> => {
      const scheme = schemeOf(parent);
      return perScheme[scheme] ?? (scheme === homeScheme ? inherited : {});
    };
    // A reference file from elsewhere (https:, s3:, ...) reads no local file unless allowed.
    const localFiles = isLocalLocation(location) || own.allowLocalTargets === true;
    const targets = createTargetResolver({
      storeOptions,
      maxGap: own.maxGap as number | undefined,
      maxRequestSize: own.maxRequestSize as number | undefined,
      localFiles,
    });
    const storeOpts: ReferenceStoreOptions & Record<string, unknown> = {
      ...own,
      base: (own.base as string | undefined) ?? parentOf(location),
      targets,
      closeTargets: true,
    };
    try {
      if (format === "parquet") return await ReferenceStore.fromParquet(location, storeOpts);
      const bytes = await targets.read(location, undefined, own.signal as AbortSignal | undefined);
      let doc: unknown;
      try {
        doc = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
      } catch (cause) {
        throw new StoreError(`reference file ${JSON.stringify(location)} is not UTF-8 JSON`, {
          path: location,
          cause,
        });
      }
      return ReferenceStore.fromJson(doc, storeOpts);
    } catch (e) {
      await targets.close();
      throw e;
    }
  },
};

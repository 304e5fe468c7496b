/**
 * The `icechunk:` URL opener registered by `@zarr/store-icechunk/register`.
 *
 * URL syntax: `icechunk:REPO[?branch=NAME|tag=NAME|snapshot=ID]`. REPO is
 * the repository's location: a local path, a `file:` URL or a URL of any
 * registered store scheme (`s3://bucket/repo`, `gs://...`, `https://...`).
 * At most one of `branch`, `tag` and `snapshot` (a 20-character snapshot id)
 * may be given; without one the store reads branch `main`. Other query
 * parameters stay with REPO's URL. Names are percent-decoded
 * (`tag=it%20works!`).
 *
 * @module
 */

import { type AnyStore, openStore, StoreError } from "@zarr/core";
import type { StoreOpener } from "@zarr/core/store";
import type { VersionSelector } from "./repository.js";
import { IcechunkStore, type IcechunkStoreOptions } from "./store.js";

/** The parts of an `icechunk:` URL. */
export interface IcechunkUrl {
  /** The repository's location (a path or a store URL). */
  repository: string;
  /** The version to read. */
  version: VersionSelector;
}

const VERSION_KEYS = ["branch", "tag", "snapshot"] as const;

/**
 * Splits `icechunk:REPO?branch=main` into the repository URL and the version.
 *
 * @example
 * ```ts
 * parseIcechunkUrl("icechunk:s3://bucket/repo?tag=v1");
 * // { repository: "s3://bucket/repo", version: { tag: "v1" } }
 * ```
 */
export function parseIcechunkUrl(url: string): IcechunkUrl {
  const body = url.replace(/^icechunk:/i, "");
  const q = body.indexOf("?");
  const base = q < 0 ? body : body.slice(0, q);
  const params = new URLSearchParams(q < 0 ? "" : body.slice(q + 1));
  const chosen = VERSION_KEYS.filter((k) => params.has(k));
  const fail = (why: string) =>
    new StoreError(`icechunk URL ${JSON.stringify(url)}: ${why}`, { path: url });
  if (base === "") throw fail("names no repository (expected icechunk:PATH-OR-URL?branch=main)");
  if (chosen.length > 1)
    throw fail(`give one of branch, tag and snapshot, not ${chosen.join(" and ")}`);
  for (const k of chosen) {
    if (params.getAll(k).length > 1) throw fail(`${k} is given more than once`);
  }
  let version: VersionSelector = { branch: "main" };
  if (chosen.length === 1) {
    const k = chosen[0];
    const value = params.get(k) ?? "";
    if (value === "") throw fail(`${k} is empty`);
    version =
      k === "branch" ? { branch: value } : k === "tag" ? { tag: value } : { snapshot: value };
    params.delete(k);
  }
  const rest = params.toString();
  return { repository: rest === "" ? base : `${base}?${rest}`, version };
}

/**
 * Opens `icechunk:` URLs as read-only {@link IcechunkStore}s. `options` are
 * passed to the opener of the repository's own scheme (credentials, headers)
 * and to the stores opened for virtual chunks; `signal` cancels opening;
 * `allowLocalFiles: true` honours the repository's `file:` virtual chunk
 * containers (see {@link IcechunkStoreOptions.allowLocalFiles}). Closing the
 * store closes the repository's store too.
 *
 * @example
 * ```ts
 * import { registerStore } from "@zarr/core";
 * import { icechunkStoreOpener } from "@zarr/store-icechunk";
 * registerStore("icechunk", icechunkStoreOpener); // what "@zarr/store-icechunk/register" does
 * ```
 */
export const icechunkStoreOpener: StoreOpener = {
  async open(url: string, options: Record<string, unknown> = {}): Promise<AnyStore> {
    const { repository, version } = parseIcechunkUrl(url);
    const repo = await openStore(repository, options);
    const signal = options.signal instanceof AbortSignal ? options.signal : undefined;
    try {
      return await IcechunkStore.open(repo, {
        version,
        signal,
        virtualStoreOptions: () => ({ ...options, signal: undefined }),
        allowLocalFiles: options.allowLocalFiles === true,
        closeRepository: true,
      });
    } catch (e) {
      await repo.close?.();
      throw e;
    }
  },
};

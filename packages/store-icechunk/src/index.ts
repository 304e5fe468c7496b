/**
 * @zarr/store-icechunk: read-only access to Icechunk repositories (spec
 * versions 1 and 2/2.1: Icechunk 1.x and 2.x): branches, tags and snapshots,
 * every node's `zarr.json`, native, inline and virtual chunks.
 *
 * Import `@zarr/store-icechunk/register` for `icechunk:` URLs in `openStore`.
 *
 * @packageDocumentation
 */
export type { VirtualChunkContainer } from "./config.js";
export { IcechunkFormatError } from "./errors.js";
export { SUPPORTED_SPEC_VERSIONS } from "./file.js";
export { type IcechunkUrl, icechunkStoreOpener, parseIcechunkUrl } from "./opener.js";
export { listRefs, type RepositoryRefs, type VersionSelector } from "./repository.js";
export {
  DEFAULT_MAX_METADATA_BYTES,
  IcechunkStore,
  type IcechunkStoreInfo,
  type IcechunkStoreOptions,
} from "./store.js";

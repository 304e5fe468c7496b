/**
 * Consolidated metadata (`.zmetadata`, zarr-python's `consolidate_metadata`):
 * one document holding every `.zarray`, `.zgroup` and `.zattrs` of a hierarchy,
 * so that opening nodes needs one read. Read once per store and kept until this
 * package writes metadata to that store (which drops it).
 *
 * @module
 */
import { type JsonObject, type JsonValue, MetadataError, type Store } from "@zarr/core";
import { metadataRead } from "@zarr/core/codec";
import { isValidKey } from "@zarr/core/store";
import { readJsonObject } from "../util/json.js";

/** The consolidated metadata document key. */
export const ZMETADATA = ".zmetadata";

const cache = new WeakMap<object, Promise<Map<string, JsonValue> | null>>();

/** Parses a `.zmetadata` document into key -> document. */
export function parseConsolidated(bytes: Uint8Array, key = ZMETADATA): Map<string, JsonValue> {
  const doc = readJsonObject(bytes, key);
  if (doc.zarr_consolidated_format !== 1) {
    throw new MetadataError(
      `${key}: zarr_consolidated_format must be 1, got ${String(doc.zarr_consolidated_format)}`,
      { path: key },
    );
  }
  const meta = doc.metadata;
  if (meta === null || typeof meta !== "object" || Array.isArray(meta)) {
    throw new MetadataError(`${key}: metadata must be an object`, { path: key });
  }
  const entries = Object.entries(meta as JsonObject);
  for (const [name] of entries) {
    // Node names starting with "__" are reserved (v3 core), and core opens no such node.
    const nodes = name.split("/").slice(0, -1);
    if (!isValidKey(name) || nodes.some((n) => n.startsWith("__"))) {
      throw new MetadataError(
        `${key}: metadata has an entry ${JSON.stringify(name)} that is not a key below the group`,
        { path: key },
      );
    }
  }
  return new Map(entries);
}

/** The root `.zmetadata` of `store`, or `null` when there is none. */
export function consolidatedOf(
  store: Store,
  signal?: AbortSignal,
): Promise<Map<string, JsonValue> | null> {
  const id = store.inner ?? store;
  let hit = cache.get(id);
  if (!hit) {
    hit = store
      .get(ZMETADATA, undefined, metadataRead({ signal }))
      .then((b) => (b === undefined ? null : parseConsolidated(b)));
    cache.set(id, hit);
    hit.catch(() => cache.delete(id));
  }
  return hit;
}

/** Forgets the cached `.zmetadata` of `store` (after writing metadata to it). */
export function dropConsolidated(store: Store): void {
  cache.delete(store.inner ?? store);
}

/**
 * Writing consolidated metadata (`.zmetadata`, as zarr-python's
 * `consolidate_metadata`): every `.zarray`, `.zgroup` and `.zattrs` below a
 * path, keyed by store key relative to it.
 *
 * @module
 */
import type { AnyStore, JsonObject, Store } from "@zarr/core";
import { metadataRead } from "@zarr/core/codec";
import { parseJson } from "@zarr/core/internal";
import { resolveStore } from "@zarr/core/store";
import { writeV2Json } from "../util/json.js";
import { dropConsolidated, ZMETADATA } from "./consolidated-cache.js";
import { normalizeV2Path } from "./paths.js";

const DOCS = new Set([".zarray", ".zgroup", ".zattrs"]);

/**
 * Writes `<path>/.zmetadata` holding every v2 metadata document below `path`
 * (requires a listable store). Returns the document.
 */
export async function consolidate(
  store: AnyStore | Store,
  path = "",
  options: { signal?: AbortSignal } = {},
): Promise<JsonObject> {
  const s = resolveStore(store);
  const p = normalizeV2Path(path);
  const prefix = p === "" ? "" : `${p}/`;
  const keys: string[] = [];
  for await (const key of s.listPrefix(prefix, options)) {
    const name = key.slice(key.lastIndexOf("/") + 1);
    if (DOCS.has(name)) keys.push(key);
  }
  keys.sort();
  const metadata: JsonObject = {};
  for (const key of keys) {
    const bytes = await s.get(key, undefined, metadataRead(options));
    if (bytes !== undefined) metadata[key.slice(prefix.length)] = parseJson(bytes, key);
  }
  const doc: JsonObject = { metadata, zarr_consolidated_format: 1 };
  dropConsolidated(s);
  await s.set(`${prefix}${ZMETADATA}`, writeV2Json(doc), options);
  return doc;
}

/**
 * v3 consolidated metadata (../shared/notes/v3-extensions.md): a group's
 * `zarr.json` may hold `consolidated_metadata: {kind: "inline", must_understand:
 * false, metadata: {"<relative path>": <node document>, ...}}` so that a whole
 * hierarchy opens with one read and no listing.
 *
 * A hierarchy opened through a consolidated group keeps the consolidated copy
 * true for the writes made through it (attributes, resize, new children); writes
 * made around it (e.g. `createArray(store, path)`) make it stale until
 * {@link consolidate} runs again.
 *
 * @module
 */

import { metadataRead } from "../codecs/limits.js";
import type { JsonObject, JsonValue } from "../dtypes/types.js";
import { MetadataError } from "../errors.js";
import {
  encodeMetadata,
  type GroupMetadataV3,
  serializeArrayMetadataV3,
  serializeGroupMetadataV3,
} from "../metadata/index.js";
import { readNodeMetadataV3 } from "../metadata/read-node.js";
import { isValidKey } from "../store/keys.js";
import type { Store } from "../store/types.js";
import { withKeyLock } from "../util/concurrency.js";
import { childKey } from "./paths.js";

/** The consolidated view of a hierarchy below one group. */
export interface ConsolidatedView {
  /** Path of the group whose document holds the consolidated metadata. */
  readonly rootPath: string;
  /** Node documents by path relative to `rootPath`. */
  readonly entries: Map<string, JsonObject>;
  /**
   * Names of the direct children of each path (`""`: the root) that has any,
   * entries and the implicit parents of deeper entries alike, so that listing
   * a group costs its children, not the whole view.
   */
  readonly children: Map<string, Set<string>>;
  /** The root group's metadata (its consolidated copy is rewritten on updates). */
  rootMeta: GroupMetadataV3;
}

/** Adds `rel` and its ancestors to the children index. */
function indexPath(children: Map<string, Set<string>>, rel: string): void {
  let path = rel;
  while (path !== "") {
    const cut = path.lastIndexOf("/");
    const parent = cut < 0 ? "" : path.slice(0, cut);
    let names = children.get(parent);
    if (names === undefined) {
      names = new Set();
      children.set(parent, names);
    }
    const name = path.slice(cut + 1);
    if (names.has(name)) return; // its ancestors are indexed already
    names.add(name);
    path = parent;
  }
}

/** The children index of `entries`. */
function indexOf(entries: ReadonlyMap<string, JsonObject>): Map<string, Set<string>> {
  const children = new Map<string, Set<string>>();
  for (const key of entries.keys()) indexPath(children, key);
  return children;
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Reads the inline consolidated metadata of a group document, or `undefined`
 * when there is none (absent, null, or a kind this version does not know,
 * which `must_understand: false` allows ignoring).
 */
export function readConsolidated(
  meta: GroupMetadataV3,
  rootPath: string,
  doc: string,
): ConsolidatedView | undefined {
  const cm = meta.consolidated_metadata;
  if (!isObject(cm) || cm.kind !== "inline") return undefined;
  const metadata = cm.metadata;
  if (!isObject(metadata)) {
    throw new MetadataError(`${doc}: consolidated_metadata.metadata must be an object`, {
      path: doc,
    });
  }
  const entries = new Map<string, JsonObject>();
  for (const [rel, node] of Object.entries(metadata)) {
    if (!isObject(node)) {
      throw new MetadataError(
        `${doc}: consolidated_metadata.metadata["${rel}"] must be an object`,
        { path: doc },
      );
    }
    // One leading "/" is read as the group itself; names starting with "__"
    // are reserved (v3 core: node names).
    const path = rel.startsWith("/") ? rel.slice(1) : rel;
    if (!isValidKey(path) || path.split("/").some((name) => name.startsWith("__"))) {
      throw new MetadataError(
        `${doc}: consolidated_metadata.metadata has an entry ${JSON.stringify(rel)} that is not a node path below the group`,
        { path: doc },
      );
    }
    if (entries.has(path)) {
      throw new MetadataError(
        `${doc}: consolidated_metadata.metadata names the node ${JSON.stringify(path)} twice`,
        { path: doc },
      );
    }
    entries.set(path, node);
  }
  return consolidatedView(rootPath, entries, meta);
}

/** A view of `entries` (paths relative to `rootPath`) held by the group document `rootMeta`. */
export function consolidatedView(
  rootPath: string,
  entries: Map<string, JsonObject>,
  rootMeta: GroupMetadataV3,
): ConsolidatedView {
  return { rootPath, entries, children: indexOf(entries), rootMeta };
}

/** `path` relative to `root`, or `undefined` when it is not below it. */
export function relativePath(root: string, path: string): string | undefined {
  if (root === "") return path;
  if (path === root) return "";
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : undefined;
}

/** Names of the direct children of `rel` in the view (implicit parents of deeper entries too), sorted. */
export function consolidatedChildren(view: ConsolidatedView, rel: string): string[] {
  return [...(view.children.get(rel) ?? [])].sort();
}

/** Builds the `consolidated_metadata` member for `entries`. */
export function consolidatedMember(entries: ReadonlyMap<string, JsonObject>): JsonObject {
  const metadata: JsonObject = {};
  for (const key of [...entries.keys()].sort()) metadata[key] = entries.get(key)!;
  return { kind: "inline", must_understand: false, metadata };
}

/**
 * Applies `change` to the entries and rewrites the root group's document. Under
 * the document's lock, the view first takes the document as stored: its
 * attributes, and its consolidated entries (another handle's view may have
 * changed them), so no rewrite puts back what another one replaced.
 */
async function rewrite(store: Store, view: ConsolidatedView, change: () => void): Promise<void> {
  const rootDoc = childKey(view.rootPath, "zarr.json");
  await withKeyLock(store, rootDoc, async () => {
    await refresh(store, view, rootDoc);
    change();
    view.rootMeta = { ...view.rootMeta, consolidated_metadata: consolidatedMember(view.entries) };
    await store.set(rootDoc, encodeMetadata(serializeGroupMetadataV3(view.rootMeta)));
  });
}

/** Replaces the view's root metadata and entries with the stored document's, when it is a group's. */
async function refresh(store: Store, view: ConsolidatedView, rootDoc: string): Promise<void> {
  const bytes = await store.get(rootDoc, undefined, metadataRead());
  if (bytes === undefined) return;
  const node = await readNodeMetadataV3(bytes, rootDoc);
  if (node.kind !== "group") return;
  view.rootMeta = node.meta;
  const stored = readConsolidated(node.meta, view.rootPath, rootDoc);
  if (stored === undefined) return;
  view.entries.clear();
  for (const [rel, doc] of stored.entries) view.entries.set(rel, doc);
  view.children.clear();
  for (const [parent, names] of stored.children) view.children.set(parent, names);
}

/**
 * Writes `meta` (without its consolidated copy) as the root group's metadata,
 * keeping the consolidated entries as stored.
 */
export async function replaceConsolidatedRoot(
  store: Store,
  view: ConsolidatedView,
  meta: GroupMetadataV3,
): Promise<void> {
  const { consolidated_metadata: _replaced, ...own } = meta;
  await rewrite(store, view, () => {
    view.rootMeta = own as GroupMetadataV3;
  });
}

/** Records a changed or new node document and rewrites the root group's document. */
export async function updateConsolidated(
  store: Store,
  view: ConsolidatedView,
  path: string,
  document: JsonObject,
): Promise<void> {
  const rel = relativePath(view.rootPath, path);
  if (rel === undefined || rel === "") return;
  await rewrite(store, view, () => {
    view.entries.set(rel, document);
    indexPath(view.children, rel);
  });
}

/** Forgets the node at `path` and everything below it, and rewrites the root group's document. */
export async function removeFromConsolidated(
  store: Store,
  view: ConsolidatedView,
  path: string,
): Promise<void> {
  const rel = relativePath(view.rootPath, path);
  if (rel === undefined || rel === "") return;
  await rewrite(store, view, () => {
    for (const key of [...view.entries.keys()]) {
      if (key === rel || key.startsWith(`${rel}/`)) view.entries.delete(key);
    }
    // Rebuilt: an implicit parent may have lost its last descendant.
    view.children.clear();
    for (const [parent, names] of indexOf(view.entries)) view.children.set(parent, names);
  });
}

/** The document to record for a group: its own metadata without nested consolidated copies. */
export function groupEntry(meta: GroupMetadataV3): JsonObject {
  const { consolidated_metadata: _ignored, ...rest } = meta;
  return serializeGroupMetadataV3(rest as GroupMetadataV3);
}

/** The document to record for an array. */
export const arrayEntry = serializeArrayMetadataV3;

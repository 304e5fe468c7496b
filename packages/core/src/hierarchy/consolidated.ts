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

import type { JsonObject, JsonValue } from "../dtypes/types.js";
import { MetadataError } from "../errors.js";
import {
  encodeMetadata,
  type GroupMetadataV3,
  serializeArrayMetadataV3,
  serializeGroupMetadataV3,
} from "../metadata/index.js";
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
  /** The root group's metadata (its consolidated copy is rewritten on updates). */
  rootMeta: GroupMetadataV3;
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
    const path = rel.replace(/^\/+|\/+$/g, "");
    if (!isValidKey(path)) {
      throw new MetadataError(
        `${doc}: consolidated_metadata.metadata has an entry ${JSON.stringify(rel)} that is not a node path below the group`,
        { path: doc },
      );
    }
    entries.set(path, node);
  }
  return { rootPath, entries, rootMeta: meta };
}

/** `path` relative to `root`, or `undefined` when it is not below it. */
export function relativePath(root: string, path: string): string | undefined {
  if (root === "") return path;
  if (path === root) return "";
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : undefined;
}

/** Names of the direct children of `rel` in the view, sorted. */
export function consolidatedChildren(view: ConsolidatedView, rel: string): string[] {
  const prefix = rel === "" ? "" : `${rel}/`;
  const names = new Set<string>();
  for (const key of view.entries.keys()) {
    if (!key.startsWith(prefix) || key === rel) continue;
    const rest = key.slice(prefix.length);
    // Intermediate paths of deeper entries are (implicit) children too.
    names.add(rest.split("/")[0]);
  }
  return [...names].filter((n) => n !== "" && !n.startsWith("__")).sort();
}

/** Builds the `consolidated_metadata` member for `entries`. */
export function consolidatedMember(entries: ReadonlyMap<string, JsonObject>): JsonObject {
  const metadata: JsonObject = {};
  for (const key of [...entries.keys()].sort()) metadata[key] = entries.get(key)!;
  return { kind: "inline", must_understand: false, metadata };
}

/** Applies `change` to the entries and rewrites the root group's document. */
async function rewrite(store: Store, view: ConsolidatedView, change: () => void): Promise<void> {
  const rootDoc = childKey(view.rootPath, "zarr.json");
  await withKeyLock(store, rootDoc, async () => {
    change();
    view.rootMeta = { ...view.rootMeta, consolidated_metadata: consolidatedMember(view.entries) };
    await store.set(rootDoc, encodeMetadata(serializeGroupMetadataV3(view.rootMeta)));
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
  await rewrite(store, view, () => view.entries.set(rel, document));
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
  });
}

/** The document to record for a group: its own metadata without nested consolidated copies. */
export function groupEntry(meta: GroupMetadataV3): JsonObject {
  const { consolidated_metadata: _ignored, ...rest } = meta;
  return serializeGroupMetadataV3(rest as GroupMetadataV3);
}

/** The document to record for an array. */
export const arrayEntry = serializeArrayMetadataV3;

/**
 * Groups as `open` returns them: the hooks through which a group opens,
 * creates, lists and erases its children, either from the store (v3) or from
 * its consolidated metadata, kept up to date on writes. Loaded the first time
 * a group is opened or created.
 *
 * @module
 */

import { ZarrArray } from "../array/array.js";
import { metadataRead } from "../codecs/limits.js";
import type { JsonObject, JsonValue } from "../dtypes/types.js";
import {
  type ArrayMetadataV3,
  encodeMetadata,
  type GroupMetadataV3,
  parseArrayMetadataV3,
  parseGroupMetadataV3,
  serializeArrayMetadataV3,
} from "../metadata/index.js";
import { readNodeMetadataV3 } from "../metadata/read-node.js";
import type { Store } from "../store/types.js";
import {
  arrayEntry,
  type ConsolidatedView,
  consolidatedChildren,
  groupEntry,
  readConsolidated,
  relativePath,
  removeFromConsolidated,
  replaceConsolidatedRoot,
  updateConsolidated,
} from "./consolidated.js";
import { createArray, createGroup, eraseNode } from "./create-nodes.js";
import { Group, type GroupContext, writeGroupMetadataV3 } from "./group.js";
import { buildArrayParts, docPath, type OpenOptions, openNode } from "./open.js";
import { nodePrefix, parentPath } from "./paths.js";

/**
 * The group at `path`: explicit (`meta`, served from its consolidated metadata
 * when it has some and `options.consolidated` allows) or implicit.
 */
export function openGroupNode(
  store: Store,
  path: string,
  meta: GroupMetadataV3 | undefined,
  implicit: boolean,
  options: OpenOptions,
): Group {
  if (meta === undefined)
    return new Group(store, path, implicitGroupMeta(), true, 3, v3GroupContext);
  const view =
    options.consolidated === false ? undefined : readConsolidated(meta, path, docPath(path));
  return new Group(
    store,
    path,
    meta,
    implicit,
    3,
    view ? consolidatedContext(view) : v3GroupContext,
  );
}

/** The hooks groups use to open children and write metadata. */
export const v3GroupContext: GroupContext = {
  openNode: (store, path, options) => openNode(store, path, options),
  writeMetadata: writeGroupMetadataV3,
  listChildren: async (store, path, options) => {
    const listing = await store.listDir(nodePrefix(path), options);
    return listing.prefixes.filter((name) => !name.startsWith("__"));
  },
  createNode: (store, path, request) =>
    request.kind === "array"
      ? createArray(store, path, request.options)
      : createGroup(store, path, request.options),
  eraseNode: (store, path, options) => eraseNode(store, path, options),
};

/** Group hooks that serve a hierarchy from its consolidated metadata and keep it up to date. */
export function consolidatedContext(view: ConsolidatedView): GroupContext {
  const context: GroupContext = {
    consolidated: true,
    async openNode(store, path, options) {
      const rel = relativePath(view.rootPath, path);
      if (rel === undefined) return openNode(store, path, { ...options, consolidated: false });
      if (rel === "") {
        return new Group(store, path, view.rootMeta, false, 3, context);
      }
      const doc = view.entries.get(rel);
      if (doc) return nodeFromDocument(store, path, doc, context, view);
      if (view.children.has(rel)) {
        return new Group(store, path, implicitGroupMeta(), true, 3, context);
      }
      // Not in the consolidated copy: it may have been written around it.
      return openNode(store, path, { ...options, consolidated: false });
    },
    async listChildren(_store, path) {
      const rel = relativePath(view.rootPath, path);
      return rel === undefined ? [] : consolidatedChildren(view, rel);
    },
    async writeMetadata(store, path, meta) {
      if (path === view.rootPath) {
        await replaceConsolidatedRoot(store, view, meta);
        return;
      }
      await writeGroupMetadataV3(store, path, meta);
      await updateConsolidated(store, view, path, groupEntry(meta));
    },
    async createNode(store, path, request) {
      const node = await v3GroupContext.createNode(store, path, request);
      // Record the node and any parent groups the create made explicit.
      for (
        let p: string | undefined = path;
        p !== undefined && p !== view.rootPath;
        p = parentPath(p)
      ) {
        const rel = relativePath(view.rootPath, p);
        if (rel === undefined || (p !== path && view.entries.has(rel))) break;
        const bytes = await store.get(docPath(p), undefined, metadataRead());
        if (bytes === undefined) continue;
        const parsed = await readNodeMetadataV3(bytes, docPath(p));
        await updateConsolidated(
          store,
          view,
          p,
          parsed.kind === "array" ? arrayEntry(parsed.meta) : groupEntry(parsed.meta),
        );
      }
      return p2node(await context.openNode(store, path), node);
    },
    async eraseNode(store, path, options) {
      await eraseNode(store, path, options);
      await removeFromConsolidated(store, view, path);
    },
  };
  return context;
}

/** Prefer the node opened through the context (so later writes stay consolidated). */
function p2node(viaContext: ZarrArray | Group, created: ZarrArray | Group): ZarrArray | Group {
  return viaContext.kind === created.kind ? viaContext : created;
}

function implicitGroupMeta(): GroupMetadataV3 {
  return { zarr_format: 3, node_type: "group", attributes: {}, extra: {} };
}

/** Opens a node from an already-read v3 document. */
async function nodeFromDocument(
  store: Store,
  path: string,
  json: JsonValue,
  context: GroupContext,
  view: ConsolidatedView | undefined,
): Promise<ZarrArray | Group> {
  const doc = docPath(path);
  const type = (json as JsonObject)?.node_type;
  if (type === "group") {
    return new Group(store, path, parseGroupMetadataV3(json, doc), false, 3, context);
  }
  const parsed = parseArrayMetadataV3(json, doc);
  const writeMetadata = view
    ? async (s: Store, p: string, meta: ArrayMetadataV3) => {
        await s.set(docPath(p), encodeMetadata(serializeArrayMetadataV3(meta)));
        await updateConsolidated(s, view, p, arrayEntry(meta));
      }
    : undefined;
  const parts = await buildArrayParts(parsed.meta, parsed.dataType, parsed.fillValue, doc, {
    writeMetadata,
  });
  return new ZarrArray(store, path, parts);
}

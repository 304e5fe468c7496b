/**
 * Zarr groups: explicit (with a metadata document) or implicit (implied by
 * descendants, v3 core: "Implicit groups").
 *
 * @module
 */

import type { JsonObject } from "../dtypes/types.js";
import { NodeNotFoundError, throwIfAborted } from "../errors.js";
import { encodeMetadata, type GroupMetadataV3, serializeGroupMetadataV3 } from "../metadata/index.js";
import type { Store } from "../store/types.js";
import type { ZarrArray } from "./array.js";
import { childKey, nodePrefix } from "./paths.js";

/** Hooks that let the hierarchy module open children without an import cycle. */
export interface GroupContext {
  openNode(store: Store, path: string, options?: { signal?: AbortSignal }): Promise<ZarrArray | Group>;
  /** Writes the group's metadata document in its format. */
  writeMetadata(store: Store, path: string, meta: GroupMetadataV3): Promise<void>;
  /** The names of child nodes of the group at `path`. */
  listChildren(store: Store, path: string, options?: { signal?: AbortSignal }): Promise<string[]>;
}

/** One node found by {@link Group.walk}. */
export type HierarchyNode = ZarrArray | Group;

/** A Zarr group in a store. Create with `createGroup` or open with `openGroup`/`open`. */
export class Group {
  #meta: GroupMetadataV3;

  /** @internal Use `openGroup` or `createGroup`. */
  constructor(
    readonly store: Store,
    /** The node path without leading `/` (`""` for the root). */
    readonly path: string,
    meta: GroupMetadataV3,
    /** True when no metadata document exists (the group is implied by descendants). */
    readonly implicit: boolean,
    /** The Zarr format of the group (2 or 3). */
    readonly zarrFormat: 2 | 3,
    private readonly context: GroupContext,
  ) {
    this.#meta = meta;
  }

  /** Always `"group"`. */
  get kind(): "group" {
    return "group";
  }
  /** The metadata document (v3 form). */
  get metadata(): GroupMetadataV3 {
    return this.#meta;
  }
  /** User attributes. */
  get attrs(): JsonObject {
    return this.#meta.attributes;
  }

  /** Names of the child nodes, sorted. */
  async childNames(options: { signal?: AbortSignal } = {}): Promise<string[]> {
    return (await this.context.listChildren(this.store, this.path, options)).sort();
  }

  /** Opens every child node. */
  async children(options: { signal?: AbortSignal } = {}): Promise<HierarchyNode[]> {
    const names = await this.childNames(options);
    const nodes: HierarchyNode[] = [];
    for (const name of names) {
      throwIfAborted(options.signal, this.path);
      try {
        nodes.push(await this.context.openNode(this.store, childKey(this.path, name), options));
      } catch (e) {
        // A prefix without any node below it (e.g. stray files) is not a child.
        if (!(e instanceof NodeNotFoundError)) throw e;
      }
    }
    return nodes;
  }

  /** Opens the child node `name` (a relative path, may contain `/`). */
  async get(name: string, options: { signal?: AbortSignal } = {}): Promise<HierarchyNode> {
    return this.context.openNode(this.store, childKey(this.path, name.replace(/^\/+|\/+$/g, "")), options);
  }

  /** True when a node exists at the relative path `name`. */
  async contains(name: string, options: { signal?: AbortSignal } = {}): Promise<boolean> {
    try {
      await this.get(name, options);
      return true;
    } catch (e) {
      if (e instanceof NodeNotFoundError) return false;
      throw e;
    }
  }

  /** Every descendant, depth first, parents before children; `maxDepth` 1 = children only. */
  async *walk(options: { signal?: AbortSignal; maxDepth?: number } = {}): AsyncGenerator<HierarchyNode> {
    const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
    if (maxDepth < 1) return;
    for (const child of await this.children(options)) {
      yield child;
      if (child.kind === "group") yield* child.walk({ ...options, maxDepth: maxDepth - 1 });
    }
  }

  /** Erases the child node `name` and everything below it. */
  async erase(name: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    const path = childKey(this.path, name.replace(/^\/+|\/+$/g, ""));
    await this.store.erasePrefix(nodePrefix(path), options);
  }

  /** Replaces the user attributes and writes the metadata (an implicit group becomes explicit). */
  async setAttributes(attributes: JsonObject, options: { signal?: AbortSignal } = {}): Promise<void> {
    throwIfAborted(options.signal, this.path);
    const meta: GroupMetadataV3 = { ...this.#meta, attributes: { ...attributes } };
    await this.context.writeMetadata(this.store, this.path, meta);
    this.#meta = meta;
  }

  /** Merges `attributes` into the user attributes and writes the metadata. */
  async updateAttributes(attributes: JsonObject, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.setAttributes({ ...this.attrs, ...attributes }, options);
  }
}

/** Writes a v3 group document. */
export async function writeGroupMetadataV3(store: Store, path: string, meta: GroupMetadataV3): Promise<void> {
  await store.set(childKey(path, "zarr.json"), encodeMetadata(serializeGroupMetadataV3(meta)));
}

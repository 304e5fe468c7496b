/**
 * Zarr groups: explicit (with a metadata document) or implicit (implied by
 * descendants, v3 core: "Implicit groups").
 *
 * @module
 */

import type { ZarrArray } from "../array/array.js";
import type { JsonObject } from "../dtypes/types.js";
import { NodeNotFoundError, throwIfAborted } from "../errors.js";
import { encodeMetadata } from "../metadata/encode.js";
import { serializeGroupMetadataV3 } from "../metadata/group-v3.js";
import type { GroupMetadataV3 } from "../metadata/types.js";
import { validateKey } from "../store/keys.js";
import type { Store } from "../store/types.js";
import type { CreateArrayOptions, CreateGroupOptions } from "./create.js";
import { childKey } from "./paths.js";

/** Hooks that let the hierarchy module open children without an import cycle. */
export interface GroupContext {
  openNode(
    store: Store,
    path: string,
    options?: { signal?: AbortSignal },
  ): Promise<ZarrArray | Group>;
  /** Writes the group's metadata document in its format. */
  writeMetadata(store: Store, path: string, meta: GroupMetadataV3): Promise<void>;
  /** The names of child nodes of the group at `path`. */
  listChildren(store: Store, path: string, options?: { signal?: AbortSignal }): Promise<string[]>;
  /** Creates a node (see `createArray` / `createGroup`) and records it where the context keeps copies. */
  createNode(store: Store, path: string, request: CreateNodeRequest): Promise<ZarrArray | Group>;
  /** Erases the node at `path` and everything below it. */
  eraseNode(store: Store, path: string, options?: { signal?: AbortSignal }): Promise<void>;
  /** True when the context serves metadata from a consolidated copy. */
  readonly consolidated?: boolean;
}

/** What {@link Group.createArray} and {@link Group.createGroup} ask the context to create. */
export type CreateNodeRequest =
  | { kind: "array"; options: CreateArrayOptions }
  | { kind: "group"; options: CreateGroupOptions };

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

  /**
   * The path of the node at `name` below this group. `name` is a relative path
   * of valid segments (no `.`, `..` or empty segment, ...): an
   * `InvalidKeyError` otherwise, so no name reaches outside the group.
   */
  #child(name: string): string {
    return childKey(this.path, relativeNodePath(name));
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
    return this.context.openNode(this.store, this.#child(name), options);
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
  async *walk(
    options: { signal?: AbortSignal; maxDepth?: number } = {},
  ): AsyncGenerator<HierarchyNode> {
    const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
    if (maxDepth < 1) return;
    // An explicit stack, not recursion: hierarchies thousands of levels deep
    // (a consolidated document can describe one cheaply) cannot exhaust the
    // call stack. Each frame holds the children of one group still to visit.
    const stack: { nodes: HierarchyNode[]; next: number; depth: number }[] = [
      { nodes: await this.children(options), next: 0, depth: 1 },
    ];
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top.next >= top.nodes.length) {
        stack.pop();
        continue;
      }
      const child = top.nodes[top.next++];
      yield child;
      if (child.kind === "group" && top.depth < maxDepth) {
        stack.push({ nodes: await child.children(options), next: 0, depth: top.depth + 1 });
      }
    }
  }

  /**
   * True when this group's hierarchy is read from consolidated metadata (no
   * listing). Writes through this group and the nodes opened from it keep the
   * consolidated copy up to date.
   */
  get consolidated(): boolean {
    return this.context.consolidated ?? false;
  }

  /** Creates an array at the relative path `name` below this group. */
  async createArray(name: string, options: CreateArrayOptions): Promise<ZarrArray> {
    const node = await this.context.createNode(this.store, this.#child(name), {
      kind: "array",
      options,
    });
    return node as ZarrArray;
  }

  /** Creates a group at the relative path `name` below this group. */
  async createGroup(name: string, options: CreateGroupOptions = {}): Promise<Group> {
    const node = await this.context.createNode(this.store, this.#child(name), {
      kind: "group",
      options,
    });
    return node as Group;
  }

  /** Erases the child node `name` and everything below it. */
  async erase(name: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.context.eraseNode(this.store, this.#child(name), options);
  }

  /** Replaces the user attributes and writes the metadata (an implicit group becomes explicit). */
  async setAttributes(
    attributes: JsonObject,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    throwIfAborted(options.signal, this.path);
    const meta: GroupMetadataV3 = { ...this.#meta, attributes: { ...attributes } };
    await this.context.writeMetadata(this.store, this.path, meta);
    this.#meta = meta;
  }

  /** Merges `attributes` into the user attributes and writes the metadata. */
  async updateAttributes(
    attributes: JsonObject,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    await this.setAttributes({ ...this.attrs, ...attributes }, options);
  }
}

/** A relative node path given to a group method: outer slashes trimmed, then a valid key. */
function relativeNodePath(name: string): string {
  if (typeof name !== "string") validateKey(name);
  return validateKey(name.replace(/^\/+|\/+$/g, ""));
}

/** Writes a v3 group document. */
export async function writeGroupMetadataV3(
  store: Store,
  path: string,
  meta: GroupMetadataV3,
): Promise<void> {
  await store.set(childKey(path, "zarr.json"), encodeMetadata(serializeGroupMetadataV3(meta)));
}

/**
 * Zarr groups: explicit (with a metadata document) or implicit (implied by
 * descendants, v3 core: "Implicit groups").
 *
 * @module
 */

import type { ZarrArray } from "../array/array.js";
import type { DataTypeName } from "../dtypes/type-map.js";
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

/**
 * A Zarr group in a store. Create with `createGroup` or open with `openGroup`/`open`.
 *
 * @example
 * ```ts
 * import { MemoryStore, createGroup } from "@zarr/core";
 * const root = await createGroup(new MemoryStore(), "", { attributes: { title: "demo" } });
 * await root.createArray("temps", { shape: [100], dataType: "float32", chunkShape: [10] });
 * for await (const node of root.walk()) console.log(node.kind, node.path);
 * ```
 */
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

  /**
   * Names of the child nodes (arrays and groups directly below this one).
   *
   * @param options - `signal` cancels the call (an `AbortError`). Default: `{}`.
   * @returns The names, sorted.
   * @throws {@link StoreCapabilityError} when the store cannot list and the
   *   group is not consolidated; {@link AbortError} when aborted.
   *
   * @example
   * ```ts
   * const names = await group.childNames(); // ["elevation", "temps"]
   * ```
   */
  async childNames(options: { signal?: AbortSignal } = {}): Promise<string[]> {
    return (await this.context.listChildren(this.store, this.path, options)).sort();
  }

  /**
   * Opens every child node, in name order.
   *
   * @param options - `signal` cancels the call (an `AbortError`). Default: `{}`.
   * @returns The child arrays and groups.
   * @throws {@link StoreCapabilityError} when the store cannot list and the
   *   group is not consolidated; {@link MetadataError} for a malformed child
   *   document; {@link AbortError} when aborted.
   *
   * @example
   * ```ts
   * const arrays = (await group.children()).filter((n) => n.kind === "array");
   * ```
   */
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

  /**
   * Opens the node at `name` below this group.
   *
   * @param name - A path relative to this group, e.g. `"temps"` or
   *   `"run1/temps"`; outer slashes are ignored, and `.`, `..` and empty
   *   segments are refused.
   * @param options - `signal` cancels the call (an `AbortError`). Default: `{}`.
   * @returns The array or group; check `kind` to tell them apart.
   * @throws {@link NodeNotFoundError} when there is no node at `name`;
   *   {@link InvalidKeyError} for an invalid `name`; {@link MetadataError} for a
   *   malformed document; {@link AbortError} when aborted.
   *
   * @example
   * ```ts
   * const node = await group.get("run1/temps");
   * if (node.kind === "array") console.log(node.shape);
   * ```
   */
  async get(name: string, options: { signal?: AbortSignal } = {}): Promise<HierarchyNode> {
    return this.context.openNode(this.store, this.#child(name), options);
  }

  /**
   * Whether a node exists at `name` below this group.
   *
   * @param name - A path relative to this group, e.g. `"temps"` or
   *   `"run1/temps"`; outer slashes are ignored, and `.`, `..` and empty
   *   segments are refused.
   * @param options - `signal` cancels the call (an `AbortError`). Default: `{}`.
   * @returns `true` when an array or group is there.
   * @throws {@link InvalidKeyError} for an invalid `name`; {@link MetadataError}
   *   for a malformed document; {@link AbortError} when aborted.
   *
   * @example
   * ```ts
   * if (!(await group.contains("temps"))) await group.createArray("temps", { shape: [10], dataType: "int32" });
   * ```
   */
  async contains(name: string, options: { signal?: AbortSignal } = {}): Promise<boolean> {
    try {
      await this.get(name, options);
      return true;
    } catch (e) {
      if (e instanceof NodeNotFoundError) return false;
      throw e;
    }
  }

  /**
   * Every descendant, depth first, parents before children, children in name
   * order. Opens each node once; a group that is not consolidated lists the
   * store at each level.
   *
   * @param options - `signal` cancels the walk (an `AbortError`); `maxDepth`
   *   is how many levels to descend: 1 yields the children only. Default: all
   *   levels.
   * @returns An async iterator of the arrays and groups below this group.
   * @throws {@link StoreCapabilityError} when the store cannot list and the
   *   group is not consolidated; {@link AbortError} when aborted.
   *
   * @example
   * ```ts
   * for await (const node of group.walk({ maxDepth: 2 })) {
   *   if (node.kind === "array") console.log(node.path, node.shape);
   * }
   * ```
   */
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

  /**
   * Creates an array at `name` below this group, as `createArray` does,
   * with explicit groups for missing intermediate levels.
   *
   * @param name - A path relative to this group, e.g. `"temps"` or
   *   `"run1/temps"`; outer slashes are ignored, and `.`, `..` and empty
   *   segments are refused.
   * @param options - Shape, data type, chunk shape, codecs and the rest; see
   *   `CreateArrayOptions`.
   * @returns The new array, typed by a literal `dataType` (`ZarrArray<"float32">`).
   * @throws {@link ContainsNodeError} when a node exists there and `overwrite`
   *   is not set; {@link MetadataError} for invalid options;
   *   {@link InvalidKeyError} for an invalid `name`; {@link StoreCapabilityError} for a
   *   read-only store.
   *
   * @example
   * ```ts
   * const temps = await group.createArray("temps", {
   *   shape: [365, 180, 360],
   *   dataType: "float32",
   *   chunkShape: [1, 180, 360],
   * });
   * ```
   */
  async createArray<D extends DataTypeName = DataTypeName>(
    name: string,
    options: CreateArrayOptions<D>,
  ): Promise<ZarrArray<D>> {
    const node = await this.context.createNode(this.store, this.#child(name), {
      kind: "array",
      options,
    });
    return node as ZarrArray<D>;
  }

  /**
   * Creates a group at `name` below this group, as `createGroup` does, with
   * explicit groups for missing intermediate levels.
   *
   * @param name - A path relative to this group, e.g. `"temps"` or
   *   `"run1/temps"`; outer slashes are ignored, and `.`, `..` and empty
   *   segments are refused.
   * @param options - `attributes`, `overwrite` and `signal`; see
   *   `CreateGroupOptions`. Default: `{}`.
   * @returns The new group.
   * @throws {@link ContainsNodeError} when a node exists there and `overwrite`
   *   is not set; {@link InvalidKeyError} for an invalid `name`;
   *   {@link StoreCapabilityError} for a read-only store.
   *
   * @example
   * ```ts
   * const run = await group.createGroup("run1", { attributes: { started: "2024-05-01" } });
   * ```
   */
  async createGroup(name: string, options: CreateGroupOptions = {}): Promise<Group> {
    const node = await this.context.createNode(this.store, this.#child(name), {
      kind: "group",
      options,
    });
    return node as Group;
  }

  /**
   * Erases the node at `name` and everything below it. Erasing where there is
   * no node is not an error.
   *
   * @param name - A path relative to this group, e.g. `"temps"` or
   *   `"run1/temps"`; outer slashes are ignored, and `.`, `..` and empty
   *   segments are refused.
   * @param options - `signal` cancels the call (an `AbortError`). Default: `{}`.
   * @throws {@link InvalidKeyError} for an invalid `name`;
   *   {@link StoreCapabilityError} for a store that cannot erase; {@link AbortError}
   *   when aborted.
   *
   * @example
   * ```ts
   * await group.erase("scratch");
   * ```
   */
  async erase(name: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.context.eraseNode(this.store, this.#child(name), options);
  }

  /**
   * Replaces the user attributes and writes the metadata (an implicit group
   * becomes explicit).
   *
   * @param attributes - The new attributes, a JSON object; copied (shallowly).
   * @param options - `signal` cancels the call (an `AbortError`). Default: `{}`.
   * @throws {@link StoreCapabilityError} for a read-only store;
   *   {@link AbortError} when aborted.
   *
   * @example
   * ```ts
   * await group.setAttributes({ title: "Daily temperatures", units: "K" });
   * ```
   */
  async setAttributes(
    attributes: JsonObject,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    throwIfAborted(options.signal, this.path);
    const meta: GroupMetadataV3 = { ...this.#meta, attributes: { ...attributes } };
    await this.context.writeMetadata(this.store, this.path, meta);
    this.#meta = meta;
  }

  /**
   * Merges `attributes` into the user attributes (top-level keys replace
   * existing ones) and writes the metadata.
   *
   * @param attributes - The attributes to add or replace, a JSON object.
   * @param options - `signal` cancels the call (an `AbortError`). Default: `{}`.
   * @throws {@link StoreCapabilityError} for a read-only store;
   *   {@link AbortError} when aborted.
   *
   * @example
   * ```ts
   * await group.updateAttributes({ version: 2 }); // other attributes are kept
   * ```
   */
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

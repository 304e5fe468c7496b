/**
 * Creating and erasing nodes, and consolidating a hierarchy's metadata. The
 * implementations (`create-nodes.ts`) load on the first call, so an
 * application that only reads does not ship them.
 *
 * @module
 */

import type { ZarrArray } from "../array/array.js";
import type { DataTypeName, DataTypeSpec } from "../dtypes/type-map.js";
import type { JsonObject, JsonValue } from "../dtypes/types.js";
import type { AnyStore, Store } from "../store/types.js";
import { loadPart } from "../util/load.js";
import type { Group } from "./group.js";
import type { OpenOptions } from "./open.js";

/** Options of {@link createArray}; `D` is the data type name, inferred from a literal `dataType`. */
export interface CreateArrayOptions<D extends DataTypeName = DataTypeName> {
  /** Length of each dimension. */
  shape: readonly number[];
  /**
   * A v3 data type name (`"float32"`, `"r24"`, `"string"`) or `{name,
   * configuration}`. A literal name types the array (`ZarrArray<"float32">`);
   * any other JSON value (e.g. read from a metadata document) gives a
   * `ZarrArray` of unknown data type.
   */
  dataType: DataTypeSpec<D> | JsonValue;
  /** Chunk shape (default: the whole array in one chunk). */
  chunkShape?: readonly number[];
  /** Fill value as a JS scalar or its JSON form (`"NaN"`, `"0x7fc00001"`); default zero/false/"". */
  fillValue?: unknown;
  /** Codec list (default: `bytes` little-endian). */
  codecs?: readonly JsonValue[];
  /** Chunk key encoding (default `{name: "default", configuration: {separator: "/"}}`). */
  chunkKeyEncoding?: { name: string; configuration?: JsonObject };
  /** Dimension names. */
  dimensionNames?: readonly (string | null)[];
  /** User attributes. */
  attributes?: JsonObject;
  /**
   * Extension members of the metadata document: each an object with
   * `"must_understand": false` (v3 core: "Extension points"), e.g.
   * {@link V2_FILL_VALUE_FIELD}. A `MetadataError` otherwise.
   */
  extra?: JsonObject;
  /** Replace an existing node at the path (its data is erased). Default false. */
  overwrite?: boolean;
  /** Cancels the call: it rejects with an `AbortError`. */
  signal?: AbortSignal;
}

/** Options of {@link createGroup}. */
export interface CreateGroupOptions {
  /** User attributes (default `{}`). */
  attributes?: JsonObject;
  /** Replace an existing node at the path (everything below it is erased). Default false. */
  overwrite?: boolean;
  /** Cancels the call: it rejects with an `AbortError`. */
  signal?: AbortSignal;
}

/**
 * Creates a v3 array at `path`, creating explicit parent groups where none
 * exist. Throws `ContainsNodeError` when a node exists and `overwrite` is not set.
 *
 * The result is typed by the data type: `createArray(store, "t", { dataType:
 * "float32", ... })` is a `ZarrArray<"float32">`, whose `get` returns a
 * `Float32Array` and whose `set` takes numbers.
 *
 * @param store - The store: a `MemoryStore`, a store package's store or
 *   what `openStore` returns (any object with `get`; creating needs `set`).
 * @param path - The array's path in the store, e.g. `"temps"` or
 *   `"run1/temps"`; outer slashes are ignored.
 * @param options - Shape, data type, chunking, codecs and the rest of the metadata.
 * @returns The new array, typed by a literal `dataType`.
 * @throws {@link ContainsNodeError} when a node's `zarr.json` exists at
 *   `path` and `overwrite` is not set, or an ancestor is an array;
 *   {@link MetadataError} or {@link ValueError} for invalid options;
 *   {@link NotRegisteredError} for a data type or codec that is not
 *   registered; {@link InvalidKeyError} for an invalid `path`;
 *   {@link StoreCapabilityError} for a read-only store; {@link AbortError}
 *   when aborted.
 *
 * @example
 * ```ts
 * const a = await createArray(store, "temps", { shape: [100], dataType: "float32" });
 * await a.set(null, 1.5);
 * const { data } = await a.get(); // data: Float32Array
 * ```
 */
export async function createArray<D extends DataTypeName = DataTypeName>(
  store: AnyStore | Store,
  path: string,
  options: CreateArrayOptions<D>,
): Promise<ZarrArray<D>> {
  const array = await (
    await loadPart("node creation", () => import("./create-nodes.js"))
  ).createArray(store, path, options);
  // The data type is the one asked for (a literal name, or unknown).
  return array as ZarrArray<D>;
}

/**
 * Creates an explicit v3 group (a `zarr.json` document) at `path`, with
 * explicit parent groups where none exist.
 *
 * @param store - The store: a `MemoryStore`, a store package's store or
 *   what `openStore` returns (any object with `get`; creating needs `set`).
 * @param path - The group's path in the store, e.g. `"run1"` or `"a/b"`;
 *   outer slashes are ignored. Default: `""`, the root.
 * @param options - `attributes`, `overwrite` (replace a node that is there,
 *   erasing everything below it) and `signal`; see `CreateGroupOptions`.
 *   Default: `{}`.
 * @returns The new group.
 * @throws {@link ContainsNodeError} when a node's `zarr.json` exists at
 *   `path` and `overwrite` is not set, or an ancestor is an array;
 *   {@link InvalidKeyError} for an invalid `path`;
 *   {@link StoreCapabilityError} for a read-only store; {@link AbortError}
 *   when aborted.
 *
 * @example
 * ```ts
 * const root = await createGroup(store, "", { attributes: { title: "Station data" } });
 * const run = await createGroup(store, "runs/2024-05-01"); // creates "runs" too
 * ```
 */
export async function createGroup(
  store: AnyStore | Store,
  path = "",
  options: CreateGroupOptions = {},
): Promise<Group> {
  return (await loadPart("node creation", () => import("./create-nodes.js"))).createGroup(
    store,
    path,
    options,
  );
}

/**
 * Erases the node at `path` and everything below it: every key under
 * `path/`, or every key in the store for the root. Erasing where there is no
 * node is not an error. A consolidated copy of the hierarchy in an ancestor
 * group is not updated (erase through the `Group` opened from it, or run
 * `consolidate` again).
 *
 * @param store - The store: a `MemoryStore`, a store package's store or
 *   what `openStore` returns (any object with `get`; erasing needs `erase`
 *   and, unless the store erases prefixes itself, `list`).
 * @param path - The node's path, e.g. `"run1/temps"`; outer slashes are
 *   ignored. `""` (or `"/"`) empties the whole store.
 * @param options - `signal` cancels the call (an `AbortError`); the other
 *   `OpenOptions` do not apply. Default: `{}`.
 * @throws {@link InvalidKeyError} for an invalid `path`;
 *   {@link StoreCapabilityError} for a store that cannot erase or list;
 *   {@link AbortError} when aborted.
 *
 * @example
 * ```ts
 * await eraseNode(store, "scratch"); // the group "scratch" and all its arrays
 * ```
 */
export async function eraseNode(
  store: AnyStore | Store,
  path: string,
  options: OpenOptions = {},
): Promise<void> {
  return (await loadPart("node creation", () => import("./create-nodes.js"))).eraseNode(
    store,
    path,
    options,
  );
}

/**
 * Writes the consolidated metadata of the hierarchy below the group at `path`
 * (every descendant's document, inline in the group's `zarr.json`, as
 * zarr-python 3 does) and returns the group opened through it. Opening the
 * hierarchy through that group then needs one read and no listing. The
 * hierarchy is listed and its documents read from the store (the group's
 * existing consolidated metadata is ignored); v2 descendants and implicit
 * groups are not included.
 *
 * @param store - The store: a `MemoryStore`, a store package's store or
 *   what `openStore` returns (any object with `get`; consolidating needs
 *   `list` and `set`).
 * @param path - The group's path in the store; outer slashes are ignored.
 *   Default: `""`, the root.
 * @param options - `signal` cancels the call (an `AbortError`);
 *   `decodeLimits` bound the documents read; `consolidated: false` also
 *   reads below subgroups that have consolidated metadata of their own from
 *   their documents (by default their consolidated copy is used).
 *   Default: `{}`.
 * @returns The group, opened through its new consolidated metadata.
 * @throws {@link NodeNotFoundError} when there is no node at `path`;
 *   {@link ContainsNodeError} when it is an array; {@link MetadataError} for
 *   a malformed document in the hierarchy; {@link StoreCapabilityError} for a
 *   store that cannot list or write; {@link AbortError} when aborted.
 *
 * @example
 * ```ts
 * await consolidate(store); // after the hierarchy is written
 * const root = await openGroup(store); // later: the whole hierarchy in one read
 * for await (const node of root.walk()) console.log(node.path);
 * ```
 */
export async function consolidate(
  store: AnyStore | Store,
  path = "",
  options: OpenOptions = {},
): Promise<Group> {
  return (await loadPart("node creation", () => import("./create-nodes.js"))).consolidate(
    store,
    path,
    options,
  );
}

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
  signal?: AbortSignal;
}

/** Options of {@link createGroup}. */
export interface CreateGroupOptions {
  attributes?: JsonObject;
  /** Replace an existing node at the path (everything below it is erased). Default false. */
  overwrite?: boolean;
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
 * @param store - A store, or a URL or path that `openStore` resolves.
 * @param path - The array's path in the store.
 * @param options - Shape, data type, chunking, codecs and the rest of the metadata.
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
  const array = await (await import("./create-nodes.js")).createArray(store, path, options);
  // The data type is the one asked for (a literal name, or unknown).
  return array as ZarrArray<D>;
}

/** Creates an explicit v3 group at `path`, with explicit parent groups where none exist. */
export async function createGroup(
  store: AnyStore | Store,
  path = "",
  options: CreateGroupOptions = {},
): Promise<Group> {
  return (await import("./create-nodes.js")).createGroup(store, path, options);
}

/** Erases the node at `path` and everything below it. */
export async function eraseNode(
  store: AnyStore | Store,
  path: string,
  options: OpenOptions = {},
): Promise<void> {
  return (await import("./create-nodes.js")).eraseNode(store, path, options);
}

/**
 * Writes the consolidated metadata of the hierarchy below the group at `path`
 * (every descendant's document, inline in the group's `zarr.json`, as
 * zarr-python 3 does) and returns the group opened through it.
 */
export async function consolidate(
  store: AnyStore | Store,
  path = "",
  options: OpenOptions = {},
): Promise<Group> {
  return (await import("./create-nodes.js")).consolidate(store, path, options);
}

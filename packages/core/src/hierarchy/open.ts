/**
 * Opening nodes. `open` detects v3 nodes (`zarr.json`) itself and asks
 * registered node formats (v2 and v1, from @zarr/v2-compat) for the rest, so
 * core alone stays small. Groups (and their consolidated metadata) load the
 * first time a group is opened: an application that opens arrays by path does
 * not ship them.
 *
 * @module
 */

import { ZarrArray } from "../array/array.js";
import type { ArrayParts } from "../array/types.js";
import { resolveChunkGrid } from "../chunk-grid/regular.js";
import { resolveChunkKeyEncoding } from "../chunk-key/encodings.js";
import { type DecodeLimits, metadataRead } from "../codecs/limits.js";
import { CodecPipeline } from "../codecs/pipeline.js";
import { type DataTypeName, sameDataTypeName } from "../dtypes/type-map.js";
import type { DataType, FillValue, JsonValue } from "../dtypes/types.js";
import { ContainsNodeError, NodeNotFoundError, throwIfAborted, ValueError } from "../errors.js";
import { normalizePath } from "../metadata/paths.js";
import { readNodeMetadataV3 } from "../metadata/read-node.js";
import type { ArrayMetadataV3 } from "../metadata/types.js";
import { nodeFormatRegistry } from "../registry/index.js";
import { resolveStore } from "../store/index.js";
import type { AnyStore, Store } from "../store/types.js";
import { loadPart } from "../util/load.js";
import type { Group } from "./group.js";
import { childKey, nodePrefix } from "./paths.js";

/** Options of the open functions. */
export interface OpenOptions {
  /** Cancels the call: it rejects with an `AbortError`. */
  signal?: AbortSignal;
  /**
   * Use a group's consolidated metadata when present (default `true`): the
   * hierarchy below it then opens without further reads or listing. Pass
   * `false` to read every node's own document (e.g. when the consolidated copy
   * may be stale).
   */
  consolidated?: boolean;
  /** Overrides of the process-wide decode limits for reading metadata documents (see `setDecodeLimits`). */
  decodeLimits?: Partial<DecodeLimits>;
}

/** Options of {@link openArray}. */
export interface OpenArrayOptions<D extends DataTypeName = DataTypeName> extends OpenOptions {
  /**
   * The data type the array must have (`"float32"`, `"int64"`, `"string"`,
   * ...). The result is then typed `ZarrArray<D>` (reads return a
   * `Float32Array` for `"float32"`, ...), and a `ValueError` is thrown when the
   * stored array has another data type. `"string"` and `"bytes"` also accept
   * arrays stored as zarr-python 3.0's `variable_length_utf8` and
   * `variable_length_bytes`.
   */
  dtype?: D;
}

/**
 * A storage format other than v3 (v2, v1), registered by @zarr/v2-compat.
 * `open` tries each registered format when no `zarr.json` exists at a path.
 */
export interface NodeFormat {
  /** Keys whose presence under a node marks this format (for the "not registered" hint). */
  readonly markers: readonly string[];
  /** Opens the node at `path`, or returns `undefined` when there is no node of this format. */
  open(store: Store, path: string, options?: OpenOptions): Promise<ZarrArray | Group | undefined>;
}

const KNOWN_FORMAT_MARKERS: Record<string, readonly string[]> = {
  v2: [".zarray", ".zgroup", ".zattrs", ".zmetadata"],
  v1: ["meta"],
};

/**
 * Builds the derived parts of a v3 array (grid, key encoding, codec pipeline).
 * Exported for other formats that present their arrays in v3 form.
 */
export async function buildArrayParts(
  meta: ArrayMetadataV3,
  dataType: DataType,
  fillValue: FillValue,
  path: string,
  extra: Partial<Pick<ArrayParts, "writeMetadata" | "zarrFormat">> & {
    codecFormat?: 2 | 3;
    /** Stops waiting for codecs that load lazily (this call only, not later rebuilds). */
    signal?: AbortSignal;
  } = {},
): Promise<ArrayParts> {
  const { signal, ...kept } = extra;
  const grid = resolveChunkGrid(meta.chunk_grid, meta.shape, path);
  const keyEncoding = resolveChunkKeyEncoding(meta.chunk_key_encoding, path);
  const codecs = await CodecPipeline.create(
    meta.codecs as JsonValue[],
    { shape: grid.chunkShape, dataType, fillValue },
    path,
    extra.codecFormat ?? 3,
    signal,
  );
  return {
    meta,
    dataType,
    fillValue,
    grid,
    keyEncoding,
    codecs,
    writeMetadata: extra.writeMetadata,
    zarrFormat: extra.zarrFormat ?? 3,
    keepFillChunks: keepsEveryChunk(meta),
    rebuild: (m) => buildArrayParts(m, dataType, fillValue, path, kept),
  };
}

/**
 * The extension member (`{"must_understand": false, "value": <v2 fill_value>}`)
 * that records a v2 array's `fill_value` where the v3 `fill_value` cannot say
 * what zarr-python 2 makes of a missing chunk: `null` (no fill value:
 * uninitialized memory, or `None` for objects), or a non-string fill of an
 * object array (read as that Python object). `@zarr/v2-compat` sets it on the
 * v3 form of such arrays and on v3 arrays converted from them (whose v3
 * `fill_value` is then the data type's default), and restores the v2 value
 * when converting back. Arrays that carry it store every chunk, even one
 * equal to the fill value, since a missing chunk would not read back as the
 * values written.
 */
export const V2_FILL_VALUE_FIELD = "v2_fill_value";

/** True when `meta` carries {@link V2_FILL_VALUE_FIELD} (then every chunk is stored). */
export function keepsEveryChunk(meta: ArrayMetadataV3): boolean {
  const member = meta.extra[V2_FILL_VALUE_FIELD];
  return (
    typeof member === "object" && member !== null && !Array.isArray(member) && "value" in member
  );
}

/** The key of the `zarr.json` document of the node at `path`. */
export function docPath(path: string): string {
  return childKey(path, "zarr.json");
}

async function openV3(
  store: Store,
  path: string,
  bytes: Uint8Array,
  options: OpenOptions,
): Promise<ZarrArray | Group> {
  const doc = docPath(path);
  const node = await readNodeMetadataV3(bytes, doc);
  if (node.kind === "group") {
    const { openGroupNode } = await loadPart("group support", () => import("./group-contexts.js"));
    return openGroupNode(store, path, node.meta, false, options);
  }
  const parts = await buildArrayParts(node.meta, node.dataType, node.fillValue, doc, {
    signal: options.signal,
  });
  return new ZarrArray(store, path, parts);
}

export async function openNode(
  store: Store,
  path: string,
  options: OpenOptions = {},
): Promise<ZarrArray | Group> {
  throwIfAborted(options.signal, path);
  const bytes = await store.get(docPath(path), undefined, metadataRead(options));
  if (bytes !== undefined) return openV3(store, path, bytes, options);
  for (const name of nodeFormatRegistry.names()) {
    const format = await nodeFormatRegistry.get(name);
    const node = await format.open(store, path, options);
    if (node) return node;
  }
  // Data in another format whose package is not registered: say which to install.
  for (const [name, markers] of Object.entries(KNOWN_FORMAT_MARKERS)) {
    if (nodeFormatRegistry.has(name)) continue;
    for (const marker of markers) {
      if (await store.has(childKey(path, marker), options)) {
        throw nodeFormatRegistry.notRegistered(name, path || "/");
      }
    }
  }
  // Implicit group: no document, but something below it.
  if (store.listable) {
    const listing = await store.listDir(nodePrefix(path), options);
    if (listing.keys.length > 0 || listing.prefixes.length > 0) {
      const { openGroupNode } = await loadPart(
        "group support",
        () => import("./group-contexts.js"),
      );
      return openGroupNode(store, path, undefined, true, options);
    }
  }
  throw new NodeNotFoundError(`no array or group at "${path || "/"}"`, { path });
}

/**
 * Opens the array or group at `path` (default: the root) in any registered format.
 * Throws `NodeNotFoundError` when nothing is there.
 *
 * A v3 node (`zarr.json`) opens directly; v2 and v1 nodes open through
 * `@zarr/v2-compat` once it is registered. A path without a document but with
 * keys below it opens as an implicit group (on a listable store). A group
 * whose document holds consolidated metadata serves the hierarchy below it
 * from that copy unless `consolidated: false`.
 *
 * @param store - The store: a `MemoryStore`, a store package's store or
 *   what `openStore` returns (any object with `get`).
 * @param path - The node's path in the store, e.g. `"run1/temps"`; outer
 *   slashes are ignored. Default: `""`, the root.
 * @param options - `signal` cancels the call (an `AbortError`);
 *   `consolidated` (default `true`) uses consolidated metadata;
 *   `decodeLimits` bound the metadata documents read. Default: `{}`.
 * @returns The array or the group; check `kind` to tell them apart.
 * @throws {@link NodeNotFoundError} when there is no node at `path`;
 *   {@link NotRegisteredError} for data in a format, or an array with a data
 *   type or codec, whose package is not registered (the message names it);
 *   {@link MetadataError} for a malformed document; {@link InvalidKeyError}
 *   for an invalid `path`; {@link AbortError} when aborted.
 *
 * @example
 * ```ts
 * const node = await open(store, "run1/temps");
 * if (node.kind === "array") console.log(node.shape, node.dataType.name);
 * else console.log(await node.childNames());
 * ```
 */
export async function open(
  store: AnyStore | Store,
  path = "",
  options: OpenOptions = {},
): Promise<ZarrArray | Group> {
  return openNode(resolveStore(store), normalizePath(path), options);
}

/**
 * Opens the array at `path`; throws `ContainsNodeError` when it is a group.
 *
 * With `dtype`, the array must have that data type (else a `ValueError` naming
 * the path, the expected and the stored data type), and the result is typed
 * accordingly. Without it, the result is a `ZarrArray` of unknown data type,
 * whose reads return the union `DataArray`; `array.is("float32")` narrows it.
 *
 * @param store - The store: a `MemoryStore`, a store package's store or
 *   what `openStore` returns (any object with `get`).
 * @param path - The array's path in the store, e.g. `"temps"`; outer slashes
 *   are ignored. Default: `""`, the root.
 * @param options - Open options, and the expected `dtype`.
 * @returns The array, typed `ZarrArray<D>` when `dtype` is given.
 * @throws {@link ContainsNodeError} when the node is a group;
 *   {@link ValueError} when it has another data type than `dtype`; otherwise
 *   as {@link open} ({@link NodeNotFoundError} when there is no node, ...).
 *
 * @example
 * ```ts
 * const a = await openArray(store, "temps", { dtype: "float32" });
 * const { data } = await a.get(); // data: Float32Array
 * ```
 */
export async function openArray<D extends DataTypeName>(
  store: AnyStore | Store,
  path: string,
  options: OpenArrayOptions<D> & { dtype: D },
): Promise<ZarrArray<D>>;
export async function openArray(
  store: AnyStore | Store,
  path?: string,
  options?: OpenArrayOptions,
): Promise<ZarrArray>;
export async function openArray(
  store: AnyStore | Store,
  path = "",
  options: OpenArrayOptions = {},
): Promise<ZarrArray> {
  const node = await open(store, path, options);
  if (node.kind !== "array") {
    throw new ContainsNodeError(`"${node.path || "/"}" is a group, not an array`, {
      path: node.path,
    });
  }
  const { dtype } = options;
  if (dtype !== undefined && !sameDataTypeName(node.dataType.name, dtype)) {
    throw new ValueError(
      `"${node.path || "/"}" has data type ${node.dataType.name}, expected ${dtype}`,
      { path: node.path },
    );
  }
  return node;
}

/**
 * Opens the group at `path`; throws `ContainsNodeError` when it is an array.
 * The group may be explicit or implicit (no document, nodes below it); when
 * its document holds consolidated metadata, the hierarchy below it is read
 * from that copy unless `consolidated: false`.
 *
 * @param store - The store: a `MemoryStore`, a store package's store or
 *   what `openStore` returns (any object with `get`).
 * @param path - The group's path in the store, e.g. `"run1"`; outer slashes
 *   are ignored. Default: `""`, the root.
 * @param options - `signal` cancels the call (an `AbortError`);
 *   `consolidated` (default `true`) uses consolidated metadata;
 *   `decodeLimits` bound the metadata documents read. Default: `{}`.
 * @returns The group.
 * @throws {@link ContainsNodeError} when the node is an array; otherwise as
 *   {@link open} ({@link NodeNotFoundError} when there is no node, ...).
 *
 * @example
 * ```ts
 * const root = await openGroup(store);
 * console.log(root.attrs, await root.childNames());
 * ```
 */
export async function openGroup(
  store: AnyStore | Store,
  path = "",
  options: OpenOptions = {},
): Promise<Group> {
  const node = await open(store, path, options);
  if (node.kind !== "group") {
    throw new ContainsNodeError(`"${node.path || "/"}" is an array, not a group`, {
      path: node.path,
    });
  }
  return node;
}

/**
 * True when an array or group (explicit or implicit) exists at `path`. It
 * opens the node: what makes {@link open} fail, other than there being no
 * node, is thrown rather than reported as `false`.
 *
 * @param store - The store: a `MemoryStore`, a store package's store or
 *   what `openStore` returns (any object with `get`).
 * @param path - The node's path in the store, e.g. `"run1/temps"`; outer
 *   slashes are ignored. Default: `""`, the root.
 * @param options - `signal` cancels the call (an `AbortError`);
 *   `consolidated` (default `true`) uses consolidated metadata;
 *   `decodeLimits` bound the metadata documents read. Default: `{}`.
 * @returns `true` when {@link open} finds a node, `false` when it throws
 *   {@link NodeNotFoundError}.
 * @throws Whatever else {@link open} throws: {@link NotRegisteredError} for
 *   data in a format whose package is not registered, {@link MetadataError}
 *   for a malformed document, {@link InvalidKeyError} for an invalid `path`,
 *   {@link AbortError} when aborted.
 *
 * @example
 * ```ts
 * if (!(await exists(store, "temps"))) {
 *   await createArray(store, "temps", { shape: [365], dataType: "float32" });
 * }
 * ```
 */
export async function exists(
  store: AnyStore | Store,
  path = "",
  options: OpenOptions = {},
): Promise<boolean> {
  try {
    await open(store, path, options);
    return true;
  } catch (e) {
    if (e instanceof NodeNotFoundError) return false;
    throw e;
  }
}

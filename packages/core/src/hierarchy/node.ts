/**
 * Opening and creating nodes. `open` detects v3 nodes (`zarr.json`) itself and
 * asks registered node formats (v2 and v1, from @zarr/v2-compat) for the rest,
 * so core alone stays small.
 *
 * @module
 */

import { ZarrArray } from "../array/array.js";
import type { ArrayParts } from "../array/types.js";
import { resolveChunkGrid } from "../chunk-grid/regular.js";
import { resolveChunkKeyEncoding } from "../chunk-key/encodings.js";
import { type DecodeLimits, metadataRead } from "../codecs/limits.js";
import { CodecPipeline } from "../codecs/pipeline.js";
import { resolveDataType } from "../dtypes/index.js";
import type { DataType, FillValue, JsonObject, JsonValue } from "../dtypes/types.js";
import { ContainsNodeError, NodeNotFoundError, throwIfAborted, ValueError } from "../errors.js";
import {
  type ArrayMetadataV3,
  encodeMetadata,
  type GroupMetadataV3,
  normalizePath,
  parseArrayMetadataV3,
  parseGroupMetadataV3,
  parseNodeMetadataV3,
  serializeArrayMetadataV3,
} from "../metadata/index.js";
import { Registry } from "../registry/registry.js";
import { resolveStore } from "../store/index.js";
import type { AnyStore, Store } from "../store/types.js";
import {
  arrayEntry,
  type ConsolidatedView,
  consolidatedChildren,
  consolidatedMember,
  consolidatedView,
  groupEntry,
  readConsolidated,
  relativePath,
  removeFromConsolidated,
  updateConsolidated,
} from "./consolidated.js";
import { Group, type GroupContext, writeGroupMetadataV3 } from "./group.js";
import { childKey, nodePrefix, parentPath } from "./paths.js";

/** Options of the open functions. */
export interface OpenOptions {
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

/** Node formats besides v3, by name (`"v2"`, `"v1"`). */
export const nodeFormatRegistry: Registry<NodeFormat> = new Registry<NodeFormat>("format", {
  v2: "@zarr/v2-compat",
  v1: "@zarr/v2-compat",
});

const KNOWN_FORMAT_MARKERS: Record<string, readonly string[]> = {
  v2: [".zarray", ".zgroup", ".zattrs", ".zmetadata"],
  v1: ["meta"],
};

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
function consolidatedContext(view: ConsolidatedView): GroupContext {
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
        view.rootMeta = { ...meta, consolidated_metadata: consolidatedMember(view.entries) };
        await writeGroupMetadataV3(store, path, view.rootMeta);
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
        const parsed = parseNodeMetadataV3(bytes, docPath(p));
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

/**
 * Builds the derived parts of a v3 array (grid, key encoding, codec pipeline).
 * Exported for other formats that present their arrays in v3 form.
 */
export async function buildArrayParts(
  meta: ArrayMetadataV3,
  dataType: DataType,
  fillValue: FillValue,
  path: string,
  extra: Partial<Pick<ArrayParts, "writeMetadata" | "zarrFormat">> & { codecFormat?: 2 | 3 } = {},
): Promise<ArrayParts> {
  const grid = resolveChunkGrid(meta.chunk_grid, meta.shape, path);
  const keyEncoding = resolveChunkKeyEncoding(meta.chunk_key_encoding, path);
  const codecs = await CodecPipeline.create(
    meta.codecs as JsonValue[],
    { shape: grid.chunkShape, dataType, fillValue },
    path,
    extra.codecFormat ?? 3,
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
    rebuild: (m) => buildArrayParts(m, dataType, fillValue, path, extra),
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

function docPath(path: string): string {
  return childKey(path, "zarr.json");
}

async function openV3(
  store: Store,
  path: string,
  bytes: Uint8Array,
  options: OpenOptions,
): Promise<ZarrArray | Group> {
  const doc = docPath(path);
  const node = parseNodeMetadataV3(bytes, doc);
  if (node.kind === "group") {
    const view =
      options.consolidated === false ? undefined : readConsolidated(node.meta, path, doc);
    return new Group(
      store,
      path,
      node.meta,
      false,
      3,
      view ? consolidatedContext(view) : v3GroupContext,
    );
  }
  const parts = await buildArrayParts(node.meta, node.dataType, node.fillValue, doc);
  return new ZarrArray(store, path, parts);
}

async function openNode(
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
      return new Group(store, path, implicitGroupMeta(), true, 3, v3GroupContext);
    }
  }
  throw new NodeNotFoundError(`no array or group at "${path || "/"}"`, { path });
}

/**
 * Opens the array or group at `path` (default: the root) in any registered format.
 * Throws `NodeNotFoundError` when nothing is there.
 */
export async function open(
  store: AnyStore | Store,
  path = "",
  options: OpenOptions = {},
): Promise<ZarrArray | Group> {
  return openNode(resolveStore(store), normalizePath(path), options);
}

/** Opens the array at `path`; throws `ContainsNodeError` when it is a group. */
export async function openArray(
  store: AnyStore | Store,
  path = "",
  options: OpenOptions = {},
): Promise<ZarrArray> {
  const node = await open(store, path, options);
  if (node.kind !== "array") {
    throw new ContainsNodeError(`"${node.path || "/"}" is a group, not an array`, {
      path: node.path,
    });
  }
  return node;
}

/** Opens the group at `path`; throws `ContainsNodeError` when it is an array. */
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

/** Options of {@link createArray}. */
export interface CreateArrayOptions {
  /** Length of each dimension. */
  shape: readonly number[];
  /** A v3 data type name (`"float32"`, `"r24"`, `"string"`) or `{name, configuration}`. */
  dataType: JsonValue;
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

function fillValueJson(dataType: DataType, value: unknown, path: string): JsonValue {
  if (value === undefined || value === null)
    return dataType.fillValueToJSON(dataType.defaultFillValue());
  // JSON forms ("NaN", "0x...", ["NaN", 0]) go through the metadata parser.
  const jsonForm =
    (typeof value === "string" && dataType.kind !== "string") ||
    (Array.isArray(value) && value.some((v) => typeof v === "string"));
  const fill = jsonForm
    ? dataType.parseFillValue(value as JsonValue, `${path}: fill_value`)
    : dataType.fromScalar(value, `${path}: fill_value`);
  return dataType.fillValueToJSON(fill);
}

async function ensureWritableLocation(
  store: Store,
  path: string,
  overwrite: boolean,
  signal?: AbortSignal,
): Promise<void> {
  if (await store.has(docPath(path), { signal })) {
    if (!overwrite) {
      throw new ContainsNodeError(
        `a node already exists at "${path || "/"}" (pass overwrite: true to replace it)`,
        {
          path,
        },
      );
    }
    await store.erasePrefix(nodePrefix(path), { signal });
    if (path === "") await store.erase("zarr.json", { signal });
  }
  // Parents: explicit groups where none exist; an array parent is an error.
  const missing: string[] = [];
  for (let p = parentPath(path); p !== undefined; p = parentPath(p)) {
    const bytes = await store.get(docPath(p), undefined, metadataRead({ signal }));
    if (bytes === undefined) {
      missing.push(p);
      continue;
    }
    const node = parseNodeMetadataV3(bytes, docPath(p));
    if (node.kind === "array") {
      throw new ContainsNodeError(
        `cannot create "${path}": its ancestor "${p || "/"}" is an array`,
        { path },
      );
    }
    break;
  }
  for (const p of missing.reverse()) {
    await writeGroupMetadataV3(store, p, {
      zarr_format: 3,
      node_type: "group",
      attributes: {},
      extra: {},
    });
  }
}

/**
 * Creates a v3 array at `path`, creating explicit parent groups where none
 * exist. Throws `ContainsNodeError` when a node exists and `overwrite` is not set.
 */
export async function createArray(
  store: AnyStore | Store,
  path: string,
  options: CreateArrayOptions,
): Promise<ZarrArray> {
  const s = resolveStore(store);
  const p = normalizePath(path);
  const doc = docPath(p);
  const dataType = resolveDataType(options.dataType, `${doc}: data_type`);
  const shape = [...options.shape];
  if (!Array.isArray(options.shape) || shape.some((n) => !Number.isSafeInteger(n) || n < 0)) {
    throw new ValueError(
      `${doc}: shape must be non-negative integers, got ${JSON.stringify(options.shape)}`,
      {
        path: p,
      },
    );
  }
  const chunkShape = options.chunkShape
    ? [...options.chunkShape]
    : shape.map((n) => Math.max(n, 1));
  const defaultCodecs: JsonValue[] =
    dataType.kind === "string"
      ? [{ name: "vlen-utf8" }]
      : dataType.kind === "bytes"
        ? [{ name: "vlen-bytes" }]
        : [{ name: "bytes", configuration: { endian: "little" } }];
  const json: JsonObject = {
    zarr_format: 3,
    node_type: "array",
    shape,
    data_type: dataType.toJSON(),
    chunk_grid: { name: "regular", configuration: { chunk_shape: chunkShape } },
    chunk_key_encoding: (options.chunkKeyEncoding ?? {
      name: "default",
      configuration: { separator: "/" },
    }) as JsonObject,
    fill_value: fillValueJson(dataType, options.fillValue, doc),
    codecs: [...(options.codecs ?? defaultCodecs)],
    attributes: { ...(options.attributes ?? {}) },
  };
  if (options.dimensionNames) json.dimension_names = [...options.dimensionNames];
  // Extension members are validated by the parser like those of a stored document.
  for (const [key, value] of Object.entries(options.extra ?? {})) {
    if (Object.hasOwn(json, key)) {
      throw new ValueError(`${doc}: extra member "${key}" is a metadata field`, { path: p });
    }
    json[key] = value;
  }
  const parsed = parseArrayMetadataV3(json, doc);
  // Build the pipeline before writing anything, so bad codec configs fail cleanly.
  const parts = await buildArrayParts(parsed.meta, parsed.dataType, parsed.fillValue, doc);
  // Codecs may fill in defaults (e.g. blosc typesize): record what they resolved to.
  const meta: ArrayMetadataV3 = { ...parts.meta, codecs: parts.codecs.toJSON() };
  await ensureWritableLocation(s, p, options.overwrite ?? false, options.signal);
  await s.set(doc, encodeMetadata(serializeArrayMetadataV3(meta)), { signal: options.signal });
  return new ZarrArray(s, p, { ...parts, meta });
}

/** Options of {@link createGroup}. */
export interface CreateGroupOptions {
  attributes?: JsonObject;
  /** Replace an existing node at the path (everything below it is erased). Default false. */
  overwrite?: boolean;
  signal?: AbortSignal;
}

/** Creates an explicit v3 group at `path`, with explicit parent groups where none exist. */
export async function createGroup(
  store: AnyStore | Store,
  path = "",
  options: CreateGroupOptions = {},
): Promise<Group> {
  const s = resolveStore(store);
  const p = normalizePath(path);
  const meta: GroupMetadataV3 = {
    zarr_format: 3,
    node_type: "group",
    attributes: { ...(options.attributes ?? {}) },
    extra: {},
  };
  await ensureWritableLocation(s, p, options.overwrite ?? false, options.signal);
  await writeGroupMetadataV3(s, p, meta);
  return new Group(s, p, meta, false, 3, v3GroupContext);
}

/** Erases the node at `path` and everything below it. */
export async function eraseNode(
  store: AnyStore | Store,
  path: string,
  options: OpenOptions = {},
): Promise<void> {
  const s = resolveStore(store);
  const p = normalizePath(path);
  if (p === "") {
    await s.erasePrefix("", options);
    return;
  }
  await s.erasePrefix(nodePrefix(p), options);
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
  const s = resolveStore(store);
  const p = normalizePath(path);
  const root = await openNode(s, p, { ...options, consolidated: false });
  if (root.kind !== "group") {
    throw new ContainsNodeError(`cannot consolidate "${p || "/"}": it is an array`, { path: p });
  }
  const entries = new Map<string, JsonObject>();
  for await (const node of root.walk(options)) {
    if (node.zarrFormat !== 3) continue;
    if (node.kind === "group" && node.implicit) continue;
    const rel = relativePath(p, node.path)!;
    entries.set(rel, node.kind === "array" ? arrayEntry(node.metadata) : groupEntry(node.metadata));
  }
  const meta: GroupMetadataV3 = {
    ...root.metadata,
    consolidated_metadata: consolidatedMember(entries),
  };
  await writeGroupMetadataV3(s, p, meta);
  const view = consolidatedView(p, entries, meta);
  return new Group(s, p, meta, false, 3, consolidatedContext(view));
}

/** True when an array or group (explicit or implicit) exists at `path`. */
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

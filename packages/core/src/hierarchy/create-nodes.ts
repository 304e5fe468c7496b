/**
 * Creating and erasing nodes, and consolidating a hierarchy's metadata: the
 * implementations behind `create.ts`, loaded on the first call.
 *
 * @module
 */

import { ZarrArray } from "../array/array.js";
import { metadataRead } from "../codecs/limits.js";
import { resolveDataType } from "../dtypes/index.js";
import type { DataType, JsonObject, JsonValue } from "../dtypes/types.js";
import { ContainsNodeError, ValueError } from "../errors.js";
import {
  type ArrayMetadataV3,
  encodeMetadata,
  type GroupMetadataV3,
  normalizePath,
  parseArrayMetadataV3,
  serializeArrayMetadataV3,
} from "../metadata/index.js";
import { readNodeMetadataV3 } from "../metadata/read-node.js";
import { resolveStore } from "../store/index.js";
import type { AnyStore, Store } from "../store/types.js";
import {
  arrayEntry,
  consolidatedMember,
  consolidatedView,
  groupEntry,
  relativePath,
} from "./consolidated.js";
import type { CreateArrayOptions, CreateGroupOptions } from "./create.js";
import { Group, writeGroupMetadataV3 } from "./group.js";
import { consolidatedContext, v3GroupContext } from "./group-contexts.js";
import { buildArrayParts, docPath, type OpenOptions, openNode } from "./open.js";
import { nodePrefix, parentPath } from "./paths.js";

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
    const node = await readNodeMetadataV3(bytes, docPath(p));
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
  const parts = await buildArrayParts(parsed.meta, parsed.dataType, parsed.fillValue, doc, {
    signal: options.signal,
  });
  // Codecs may fill in defaults (e.g. blosc typesize): record what they resolved to.
  const meta: ArrayMetadataV3 = { ...parts.meta, codecs: parts.codecs.toJSON() };
  await ensureWritableLocation(s, p, options.overwrite ?? false, options.signal);
  await s.set(doc, encodeMetadata(serializeArrayMetadataV3(meta)), { signal: options.signal });
  return new ZarrArray(s, p, { ...parts, meta });
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

/**
 * The v2 node format registered with core: `open` finds `.zarray` (array) or
 * `.zgroup` (group) under a path, consulting the root `.zmetadata` first, and
 * presents the node in v3 form; writing attributes or resizing rewrites the v2
 * documents.
 *
 * @module
 */
import {
  Group,
  type JsonObject,
  type JsonValue,
  MetadataError,
  type OpenOptions,
  open,
  type Store,
  StoreCapabilityError,
  ZarrArray,
} from "@zarr/core";
import { codecFactory, metadataRead } from "@zarr/core/codec";
import {
  type ArrayMetadataV3,
  buildArrayParts,
  childKey,
  type GroupContext,
  type GroupMetadataV3,
  type NodeFormat,
  nodePrefix,
  parseJson,
  stringifyJson,
} from "@zarr/core/internal";
import { readJsonObject, writeV2Json } from "../util/json.js";
import { consolidatedOf, dropConsolidated } from "./consolidated-cache.js";
import { v2FillExtra } from "./fill-value.js";
import { v3Form, validateZArray, type ZArray } from "./zarray.js";

/**
 * Reads a metadata document: from `.zmetadata` when it lists `key` (unless
 * `options.consolidated` is `false`), else from the store.
 */
export async function readMetadataDoc(
  store: Store,
  key: string,
  options: OpenOptions = {},
): Promise<JsonValue | undefined> {
  const consolidated =
    options.consolidated === false ? undefined : await consolidatedOf(store, options.signal);
  const hit = consolidated?.get(key);
  if (hit !== undefined) return hit;
  const bytes = await store.get(key, undefined, metadataRead(options));
  return bytes === undefined ? undefined : parseJson(bytes, key);
}

function asObject(value: JsonValue, key: string): JsonObject {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new MetadataError(`${key}: expected a JSON object`, { path: key });
  }
  return value;
}

async function readAttrs(store: Store, path: string, options: OpenOptions): Promise<JsonObject> {
  const key = childKey(path, ".zattrs");
  const doc = await readMetadataDoc(store, key, options);
  return doc === undefined ? {} : asObject(doc, key);
}

const kindOf = async (id: string) => (await codecFactory(id, id)).kind;

/** Where and how an array's documents are written (v2: `.zarray`/`.zattrs`; v1: `meta`/`attrs`). */
export interface ArrayDocs {
  readonly array: string;
  readonly attrs: string;
  /** The stored form of the (v2-shaped) metadata. */
  readonly serialize: (z: ZArray) => JsonObject;
  readonly zarrFormat: 1 | 2;
}

const V2_DOCS: ArrayDocs = {
  array: ".zarray",
  attrs: ".zattrs",
  serialize: (z) => z as JsonObject,
  zarrFormat: 2,
};

/** Builds the core array object for a validated `.zarray` at `path`. */
export async function arrayFromZArray(
  store: Store,
  path: string,
  z: ZArray,
  attributes: JsonObject,
  docs: ArrayDocs = V2_DOCS,
): Promise<ZarrArray> {
  const doc = childKey(path, docs.array);
  const form = await v3Form(z, doc, kindOf);
  let current = z;
  let currentAttrs = stringifyJson(attributes, 0);
  const writeMetadata = async (s: Store, p: string, meta: ArrayMetadataV3) => {
    dropConsolidated(s);
    if (meta.shape.join() !== current.shape.join()) {
      current = { ...current, shape: [...meta.shape] };
      await s.set(childKey(p, docs.array), writeV2Json(docs.serialize(current)));
    }
    const attrs = stringifyJson(meta.attributes, 0);
    if (attrs !== currentAttrs) {
      await s.set(childKey(p, docs.attrs), writeV2Json(meta.attributes));
      currentAttrs = attrs;
    }
  };
  const meta: ArrayMetadataV3 = {
    zarr_format: 3,
    node_type: "array",
    shape: z.shape,
    data_type: form.dataType.toJSON(),
    chunk_grid: { name: "regular", configuration: { chunk_shape: z.chunks } },
    chunk_key_encoding: { name: "v2", configuration: { separator: z.dimension_separator ?? "." } },
    fill_value: form.dataType.fillValueToJSON(form.fillValue),
    codecs: form.codecs,
    attributes,
    extra: v2FillExtra(form.dataType, z.fill_value, form.dtype.object),
  };
  const parts = await buildArrayParts(meta, form.dataType, form.fillValue, doc, {
    writeMetadata,
    zarrFormat: 2,
    codecFormat: 2,
  });
  return new ZarrArray(store, path, parts);
}

/** Hooks of v2 groups: children are nodes with `.zarray`/`.zgroup` (or any format core knows). */
export const v2GroupContext: GroupContext = {
  openNode: (store, path, options) => open(store, path, options),
  async writeMetadata(store: Store, path: string, meta: GroupMetadataV3) {
    dropConsolidated(store);
    if (!(await store.has(childKey(path, ".zgroup")))) {
      await store.set(childKey(path, ".zgroup"), writeV2Json({ zarr_format: 2 }));
    }
    await store.set(childKey(path, ".zattrs"), writeV2Json(meta.attributes));
  },
  async createNode(store, path, request) {
    const { createArrayV2, createGroupV2 } = await import("./create.js");
    if (request.kind === "group") return createGroupV2(store, path, request.options);
    const o = request.options;
    const { v3OptionsToV2 } = await import("./v3-options.js");
    return createArrayV2(store, path, v3OptionsToV2(o, path));
  },
  async eraseNode(store, path, options) {
    dropConsolidated(store);
    if (path === "") {
      await store.erasePrefix("", options);
      return;
    }
    await store.erasePrefix(nodePrefix(path), options);
  },
  async listChildren(store, path, options) {
    const consolidated = await consolidatedOf(store, options?.signal);
    const names = new Set<string>();
    if (consolidated) {
      const prefix = nodePrefix(path);
      for (const key of consolidated.keys()) {
        if (!key.startsWith(prefix)) continue;
        const rest = key.slice(prefix.length).split("/");
        if (rest.length === 2 && (rest[1] === ".zarray" || rest[1] === ".zgroup"))
          names.add(rest[0]);
      }
    }
    if (store.listable) {
      const listing = await store.listDir(nodePrefix(path), options);
      for (const name of listing.prefixes) names.add(name);
    } else if (!consolidated) {
      // Without a listing or consolidated metadata the children are unknown, not none.
      throw new StoreCapabilityError(
        `store does not support listing: the children of the v2 group "/${path}" cannot be listed (it has no consolidated metadata, .zmetadata)`,
      );
    }
    return [...names];
  },
};

/** Opens the v2 node at `path`, or `undefined` when there is none. */
export async function openV2(
  store: Store,
  path: string,
  options: OpenOptions = {},
): Promise<ZarrArray | Group | undefined> {
  const arrayKey = childKey(path, ".zarray");
  const arrayDoc = await readMetadataDoc(store, arrayKey, options);
  if (arrayDoc !== undefined) {
    const z = validateZArray(asObject(arrayDoc, arrayKey), arrayKey);
    return arrayFromZArray(store, path, z, await readAttrs(store, path, options));
  }
  const groupKey = childKey(path, ".zgroup");
  const groupDoc = await readMetadataDoc(store, groupKey, options);
  if (groupDoc === undefined) return undefined;
  const g = asObject(groupDoc, groupKey);
  if (g.zarr_format !== 2) {
    throw new MetadataError(`${groupKey}: zarr_format must be 2, got ${String(g.zarr_format)}`, {
      path: groupKey,
    });
  }
  const meta: GroupMetadataV3 = {
    zarr_format: 3,
    node_type: "group",
    attributes: await readAttrs(store, path, options),
    extra: {},
  };
  return new Group(store, path, meta, false, 2, v2GroupContext);
}

/** The v2 node format (`.zarray`, `.zgroup`, `.zattrs`, `.zmetadata`). */
export const v2NodeFormat: NodeFormat = {
  markers: [".zarray", ".zgroup", ".zattrs", ".zmetadata"],
  open: openV2,
};

export { readJsonObject };

/**
 * The v1 node format: an array whose metadata is under `meta` and attributes
 * under `attrs` (v1 spec). v1 has no groups.
 *
 * @module
 */
import {
  type JsonObject,
  MetadataError,
  type OpenOptions,
  type Store,
  type ZarrArray,
} from "@zarr/core";
import { metadataRead } from "@zarr/core/codec";
import { childKey, type NodeFormat, parseJson } from "@zarr/core/internal";
import { type ArrayDocs, arrayFromZArray } from "../v2/format.js";
import { v1MetaJson, validateV1Meta } from "./meta.js";

const V1_DOCS: ArrayDocs = { array: "meta", attrs: "attrs", serialize: v1MetaJson, zarrFormat: 1 };

function asObject(value: unknown, key: string): JsonObject {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new MetadataError(`${key}: expected a JSON object`, { path: key });
  return value as JsonObject;
}

/** Opens the v1 array at `path`, or `undefined` when there is no `meta` document. */
export async function openV1(
  store: Store,
  path: string,
  options: OpenOptions = {},
): Promise<ZarrArray | undefined> {
  const metaKey = childKey(path, "meta");
  const bytes = await store.get(metaKey, undefined, metadataRead(options));
  if (bytes === undefined) return undefined;
  const json = asObject(parseJson(bytes, metaKey), metaKey);
  if (json.zarr_format !== 1) return undefined;
  const z = validateV1Meta(json, metaKey);
  const attrsKey = childKey(path, "attrs");
  const attrBytes = await store.get(attrsKey, undefined, metadataRead(options));
  const attrs = attrBytes === undefined ? {} : asObject(parseJson(attrBytes, attrsKey), attrsKey);
  return arrayFromZArray(store, path, z, attrs, V1_DOCS);
}

/** The v1 node format (`meta`, `attrs`). */
export const v1NodeFormat: NodeFormat = { markers: ["meta"], open: openV1 };

export { V1_DOCS };

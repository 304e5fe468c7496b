/**
 * Creating v1 arrays (`meta` and `attrs`, which the v1 spec requires even when
 * empty). v1 has one compressor and no filters.
 *
 * @module
 */
import { type AnyStore, ContainsNodeError, type Store, type ZarrArray } from "@zarr/core";
import { childKey, nodePrefix } from "@zarr/core/internal";
import { resolveStore } from "@zarr/core/store";
import { writeV2Json } from "../util/json.js";
import { type CreateArrayV2Options, zarrayFor } from "../v2/create.js";
import { arrayFromZArray } from "../v2/format.js";
import { normalizeV2Path } from "../v2/paths.js";
import { V1_DOCS } from "./format.js";

/** Options of {@link createArrayV1}: those of `createArrayV2` without filters, order or separator choice beyond C/F. */
export type CreateArrayV1Options = Omit<CreateArrayV2Options, "filters" | "dimensionSeparator">;

/** Creates a v1 array at `path` (`meta`, `attrs`). */
export async function createArrayV1(
  store: AnyStore | Store,
  path: string,
  options: CreateArrayV1Options,
): Promise<ZarrArray> {
  const s = resolveStore(store);
  const p = normalizeV2Path(path);
  const z = zarrayFor(p, { ...options, filters: null, dimensionSeparator: "." });
  delete z.dimension_separator;
  const attributes = { ...(options.attributes ?? {}) };
  const array = await arrayFromZArray(s, p, z, attributes, V1_DOCS);
  if (await s.has(childKey(p, "meta"))) {
    if (!options.overwrite)
      throw new ContainsNodeError(`a v1 array already exists at "${p || "/"}"`, { path: p });
    await s.erasePrefix(nodePrefix(p));
    if (p === "") for (const k of ["meta", "attrs"]) await s.erase(k);
  }
  await s.set(childKey(p, "meta"), writeV2Json(V1_DOCS.serialize(z)));
  await s.set(childKey(p, "attrs"), writeV2Json(attributes));
  return array;
}

/**
 * Creating children of v2 groups through core's `Group.createArray`, whose
 * options are v3-shaped: the data type name maps to a typestr, the codec list
 * to filters and a compressor where they have v2 ids.
 *
 * @module
 */
import { type CreateArrayOptions, type JsonObject, UnsupportedError } from "@zarr/core";
import { resolveDataType } from "@zarr/core/internal";
import { v2DtypeOf, zarrayOfV3 } from "../convert.js";
import type { CreateArrayV2Options } from "./create.js";

/** The v2 options equivalent to v3 `createArray` options; throws `UnsupportedError` when there is none. */
export function v3OptionsToV2(o: CreateArrayOptions, path: string): CreateArrayV2Options {
  const dataType = resolveDataType(o.dataType, `${path}: dataType`);
  let compressor: JsonObject | null = null;
  let filters: JsonObject[] | null = null;
  let dtype = v2DtypeOf(dataType, "little");
  if (o.codecs && o.codecs.length > 0) {
    const z = zarrayOfV3(
      {
        zarr_format: 3,
        node_type: "array",
        shape: [...o.shape],
        data_type: o.dataType,
        chunk_grid: {
          name: "regular",
          configuration: { chunk_shape: [...(o.chunkShape ?? o.shape)] },
        },
        chunk_key_encoding: { name: "v2", configuration: { separator: "." } },
        fill_value: null,
        codecs: o.codecs as JsonObject[],
        attributes: {},
        extra: {},
      },
      dataType,
    );
    if (!z)
      throw new UnsupportedError(
        `${path}: these codecs have no v2 equivalent for a v2 group's child`,
        { path },
      );
    compressor = z.compressor as JsonObject | null;
    filters = z.filters as JsonObject[] | null;
    dtype = z.dtype;
  } else if (dataType.kind === "string") filters = [{ id: "vlen-utf8" }];
  else if (dataType.kind === "bytes") filters = [{ id: "vlen-bytes" }];
  if (dtype === undefined)
    throw new UnsupportedError(`${path}: data type ${dataType.name} has no v2 equivalent`, {
      path,
    });
  return {
    shape: o.shape,
    chunks: o.chunkShape,
    dtype,
    compressor,
    filters,
    fillValue: o.fillValue,
    attributes: o.attributes,
    overwrite: o.overwrite,
  };
}

/**
 * The v1 array metadata document `meta` (v1 spec "Metadata"): `compression`
 * and `compression_opts` instead of v2's `compressor`, no filters, attributes
 * in `attrs` (which the spec requires to exist).
 *
 * @module
 */
import { type JsonObject, type JsonValue, MetadataError } from "@zarr/core";
import { validateZArray, type ZArray } from "../v2/zarray.js";

function fail(doc: string, field: string, why: string): MetadataError {
  return new MetadataError(`${doc}: ${field}: ${why}`, { path: doc });
}

/** The v2 `compressor` equivalent of v1's `compression` + `compression_opts`. */
export function v1Compressor(
  compression: JsonValue,
  opts: JsonValue,
  doc: string,
): JsonObject | null {
  if (compression === null || compression === "none") return null;
  if (typeof compression !== "string") throw fail(doc, "compression", "must be a string");
  if (compression === "zlib" || compression === "bz2") {
    if (opts === null || opts === undefined)
      return { id: compression, level: compression === "zlib" ? 1 : 1 };
    if (typeof opts !== "number")
      throw fail(doc, "compression_opts", `must be an integer level for ${compression}`);
    return { id: compression, level: opts };
  }
  if (opts !== null && opts !== undefined && (typeof opts !== "object" || Array.isArray(opts))) {
    throw fail(doc, "compression_opts", `must be an object for ${compression}`);
  }
  return { id: compression, ...((opts as JsonObject | null) ?? {}) };
}

/** The v1 `compression`, `compression_opts` of a v2 `compressor`. */
export function v1Compression(compressor: JsonObject | null): {
  compression: string;
  compression_opts: JsonValue;
} {
  if (compressor === null) return { compression: "none", compression_opts: null };
  const { id, ...rest } = compressor;
  if (id === "zlib" || id === "bz2") return { compression: id, compression_opts: rest.level ?? 1 };
  return { compression: id as string, compression_opts: rest };
}

/** Validates a v1 `meta` document and returns its v2-shaped equivalent. */
export function validateV1Meta(json: JsonObject, doc: string): ZArray {
  for (const key of ["compression", "compression_opts"])
    if (!(key in json)) throw fail(doc, key, "is required");
  const { compression, compression_opts, ...rest } = json;
  return validateZArray(
    { ...rest, compressor: v1Compressor(compression, compression_opts, doc), filters: null },
    doc,
    1,
  );
}

/** The v1 `meta` document of a v2-shaped description (keys as the v1 spec's example). */
export function v1MetaJson(z: ZArray): JsonObject {
  const { compressor, filters: _f, dimension_separator: _d, ...rest } = z;
  return { ...rest, ...v1Compression(compressor), zarr_format: 1 } as JsonObject;
}

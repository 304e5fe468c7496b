/**
 * Chunk key encodings (v3 core: "chunk_key_encoding"): `default` (`c/1/2`) and
 * `v2` (`1.2`), each with separator "/" or ".". Extensions register their own
 * through {@link chunkKeyEncodingRegistry}.
 *
 * @module
 */

import type { JsonObject } from "../dtypes/types.js";
import { MetadataError } from "../errors.js";
import { chunkKeyEncodingRegistry } from "../registry/index.js";

/** Maps chunk grid coordinates to a key relative to the array's prefix. */
export interface ChunkKeyEncoding {
  readonly name: string;
  encode(coords: readonly number[]): string;
  /** Inverse of encode, or `undefined` when `key` is not a chunk key of this encoding. */
  decode(key: string, ndim: number): number[] | undefined;
  toJSON(): { name: string; configuration?: JsonObject };
}

/** Builds a chunk key encoding from its metadata configuration. */
export interface ChunkKeyEncodingFactory {
  fromConfig(configuration: JsonObject | undefined, path: string): ChunkKeyEncoding;
}

function separatorOf(
  configuration: JsonObject | undefined,
  fallback: "/" | ".",
  path: string,
): "/" | "." {
  const sep = configuration?.separator ?? fallback;
  if (sep !== "/" && sep !== ".") {
    throw new MetadataError(
      `${path}: chunk_key_encoding.configuration.separator must be "/" or ".", got ${JSON.stringify(sep)}`,
      { path },
    );
  }
  return sep;
}

function parseIndices(parts: string[]): number[] | undefined {
  const out: number[] = [];
  for (const p of parts) {
    if (!/^(0|[1-9][0-9]*)$/.test(p)) return undefined;
    out.push(Number(p));
  }
  return out;
}

/** `default`: `c` then `<sep><index>` per dimension (`c` alone for 0-d arrays). */
export const defaultChunkKeyEncoding: ChunkKeyEncodingFactory = {
  fromConfig(configuration, path) {
    const sep = separatorOf(configuration, "/", path);
    return {
      name: "default",
      encode: (coords) => (coords.length === 0 ? "c" : `c${sep}${coords.join(sep)}`),
      decode(key, ndim) {
        if (ndim === 0) return key === "c" ? [] : undefined;
        if (!key.startsWith(`c${sep}`)) return undefined;
        const idx = parseIndices(key.slice(2).split(sep));
        return idx && idx.length === ndim ? idx : undefined;
      },
      toJSON: () => ({ name: "default", configuration: { separator: sep } }),
    };
  },
};

/** `v2`: indices joined by the separator (`0` for 0-d arrays). */
export const v2ChunkKeyEncoding: ChunkKeyEncodingFactory = {
  fromConfig(configuration, path) {
    const sep = separatorOf(configuration, ".", path);
    return {
      name: "v2",
      encode: (coords) => (coords.length === 0 ? "0" : coords.join(sep)),
      decode(key, ndim) {
        if (ndim === 0) return key === "0" ? [] : undefined;
        const idx = parseIndices(key.split(sep));
        return idx && idx.length === ndim ? idx : undefined;
      },
      toJSON: () => ({ name: "v2", configuration: { separator: sep } }),
    };
  },
};

/** Resolves a chunk key encoding from metadata. */
export function resolveChunkKeyEncoding(
  json: { name: string; configuration?: JsonObject },
  path: string,
): ChunkKeyEncoding {
  if (json.name === "default") return defaultChunkKeyEncoding.fromConfig(json.configuration, path);
  if (json.name === "v2") return v2ChunkKeyEncoding.fromConfig(json.configuration, path);
  const factory = chunkKeyEncodingRegistry.getSync(json.name);
  if (!factory) throw chunkKeyEncodingRegistry.notRegistered(json.name, path);
  return factory.fromConfig(json.configuration, path);
}

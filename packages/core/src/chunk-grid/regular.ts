/**
 * Chunk grids (v3 core: "Chunk grids"). The regular grid is built in; other
 * grids register a factory in {@link chunkGridRegistry}.
 *
 * @module
 */

import type { JsonObject, JsonValue } from "../dtypes/types.js";
import { MetadataError } from "../errors.js";
import { chunkGridRegistry } from "../registry/index.js";

/** A regular tessellation of the array into chunks of one shape. */
export interface ChunkGrid {
  readonly name: string;
  /** The shape of every chunk (edge chunks overhang the array). */
  readonly chunkShape: readonly number[];
  /** Number of chunks along each dimension for an array of `shape`. */
  gridShape(shape: readonly number[]): number[];
  toJSON(): { name: string; configuration?: JsonObject };
}

/** Builds a chunk grid from metadata. */
export interface ChunkGridFactory {
  fromConfig(
    configuration: JsonObject | undefined,
    shape: readonly number[],
    path: string,
  ): ChunkGrid;
}

/** Creates a regular grid with `chunkShape`. */
export function regularGrid(chunkShape: readonly number[]): ChunkGrid {
  const cs = [...chunkShape];
  return {
    name: "regular",
    chunkShape: cs,
    gridShape: (shape) => shape.map((n, i) => (n === 0 ? 0 : Math.ceil(n / cs[i]))),
    toJSON: () => ({ name: "regular", configuration: { chunk_shape: cs } }),
  };
}

/** `regular`: `{chunk_shape: [...]}`, one positive integer per dimension. */
export const regularChunkGrid: ChunkGridFactory = {
  fromConfig(configuration, shape, path) {
    const cs: JsonValue | undefined = configuration?.chunk_shape;
    if (!Array.isArray(cs) || cs.length !== shape.length) {
      throw new MetadataError(
        `${path}: chunk_grid.configuration.chunk_shape must be an array of ${shape.length} integers`,
        { path },
      );
    }
    for (let i = 0; i < cs.length; i++) {
      const c = cs[i];
      if (
        typeof c !== "number" ||
        !Number.isSafeInteger(c) ||
        c < 0 ||
        (c === 0 && shape[i] !== 0)
      ) {
        throw new MetadataError(
          `${path}: chunk_grid.configuration.chunk_shape[${i}] must be a positive integer, got ${String(c)}`,
          { path },
        );
      }
    }
    // A zero chunk length (allowed for zero-length dimensions) behaves as 1.
    return regularGrid((cs as number[]).map((c) => Math.max(c, 1)));
  },
};

/** Resolves a chunk grid from metadata. */
export function resolveChunkGrid(
  json: { name: string; configuration?: JsonObject },
  shape: readonly number[],
  path: string,
): ChunkGrid {
  if (json.name === "regular") return regularChunkGrid.fromConfig(json.configuration, shape, path);
  const factory = chunkGridRegistry.getSync(json.name);
  if (!factory) throw chunkGridRegistry.notRegistered(json.name, path);
  return factory.fromConfig(json.configuration, shape, path);
}

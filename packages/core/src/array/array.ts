/**
 * `ZarrArray`: a Zarr array in a store. The class holds the metadata-derived
 * parts and delegates each operation to its path, one module per concern:
 * `read.ts` (selections), `write.ts` (selections, chunks, metadata),
 * `coordinates.ts` (point selections) and `resize.ts`. Only the read path is
 * bundled with the class; the others load the first time they are called, so
 * a read-only application does not ship them.
 *
 * @module
 */

import type { ChunkKeyEncoding } from "../chunk-key/encodings.js";
import type { CodecPipeline } from "../codecs/pipeline.js";
import type { ChunkSpec, NDArray } from "../codecs/types.js";
import {
  type DataArrayOf,
  type DataTypeName,
  type ScalarOf,
  sameDataTypeName,
} from "../dtypes/type-map.js";
import type { DataType, FillValue, JsonObject } from "../dtypes/types.js";
import { throwIfAborted } from "../errors.js";
import type { Selection } from "../indexing/index.js";
import type { ArrayMetadataV3 } from "../metadata/index.js";
import type { Store } from "../store/types.js";
import { guardAllocation } from "../util/allocation.js";
import type { ChunkCodecWorkers } from "../workers/types.js";
import { ArrayContext, arrayDefaults, product } from "./context.js";
import { readSelection } from "./read.js";
import type { ArrayParts, ArrayValue, GetOptions, ReadOptions, SetOptions } from "./types.js";

/**
 * A Zarr array in a store. Create with `createArray` or open with `openArray`/`open`.
 *
 * `D` is the data type name when it is known statically: `createArray` infers
 * it from a literal `dataType`, `openArray(store, path, { dtype })` checks it,
 * and {@link ZarrArray.is} narrows an array opened without one. Reads then
 * return the data type's array (`Float32Array` for `"float32"`, `string[]` for
 * `"string"`, see `DataTypeMap`) and writes take its values; a plain
 * `ZarrArray` (data type unknown) uses the union `DataArray`.
 *
 * @typeParam D - The data type name (`"float32"`, `"int64"`, `"r24"`, ...),
 *   or `DataTypeName` (the default) when unknown.
 * @example
 * ```ts
 * import { MemoryStore, createArray, openArray, slice } from "@zarr/core";
 * const store = new MemoryStore();
 * const a = await createArray(store, "counts", { shape: [4, 4], dataType: "int64", chunkShape: [2, 2] });
 * await a.set([0, slice(0, 2)], 7n); // a ZarrArray<"int64"> takes bigints
 * const b = await openArray(store, "counts", { dtype: "int64" });
 * const { data } = await b.get([0, null]); // data: BigInt64Array
 * ```
 */
export class ZarrArray<D extends DataTypeName = DataTypeName> {
  /**
   * The worker pool used when an operation does not pass `workers`
   * (`undefined`: codecs run on the calling thread). `@zarr/workers/register`
   * sets it to a pool sized to the machine.
   */
  static get defaultWorkers(): ChunkCodecWorkers | undefined {
    return arrayDefaults.workers;
  }
  static set defaultWorkers(workers: ChunkCodecWorkers | undefined) {
    arrayDefaults.workers = workers;
  }

  readonly #ctx: ArrayContext;

  /** @internal Use `openArray` or `createArray`. */
  constructor(
    /** The store holding the array. */
    readonly store: Store,
    /** The node path without leading `/` (`""` for the root). */
    readonly path: string,
    parts: ArrayParts,
  ) {
    this.#ctx = new ArrayContext(store, path, parts);
  }

  /** The metadata document (v3 form; v2 arrays are shown as their v3 equivalent). */
  get metadata(): ArrayMetadataV3 {
    return this.#ctx.parts.meta;
  }
  /** The Zarr format of the stored metadata (2 or 3). */
  get zarrFormat(): 2 | 3 {
    return this.#ctx.parts.zarrFormat;
  }
  /** Always `"array"`. */
  get kind(): "array" {
    return "array";
  }
  /** The length of each dimension. */
  get shape(): readonly number[] {
    return this.#ctx.shape;
  }
  /** Number of dimensions. */
  get ndim(): number {
    return this.shape.length;
  }
  /** Number of elements. */
  get size(): number {
    return product(this.shape);
  }
  /** The data type of the elements. */
  get dataType(): DataType {
    return this.#ctx.parts.dataType;
  }
  /** The fill value: what elements of chunks that are not stored read as. */
  get fillValue(): FillValue {
    return this.#ctx.parts.fillValue;
  }
  /** The shape of one chunk (of the outer chunk, for sharded arrays). */
  get chunkShape(): readonly number[] {
    return this.#ctx.chunkShape;
  }
  /** Chunks along each dimension. */
  get gridShape(): number[] {
    return this.#ctx.parts.grid.gridShape(this.shape);
  }
  /** The codec pipeline of the chunks. */
  get codecs(): CodecPipeline {
    return this.#ctx.parts.codecs;
  }
  /** User attributes. */
  get attrs(): JsonObject {
    return this.#ctx.parts.meta.attributes;
  }
  /** Dimension names, when set. */
  get dimensionNames(): readonly (string | null)[] | undefined {
    return this.#ctx.parts.meta.dimension_names;
  }
  /** The chunk key encoding. */
  get chunkKeyEncoding(): ChunkKeyEncoding {
    return this.#ctx.parts.keyEncoding;
  }

  /** The store key of the chunk at grid coordinates `coords`. */
  chunkKey(coords: readonly number[]): string {
    return this.#ctx.chunkKey(coords);
  }

  /** The decoded representation of one chunk. */
  get chunkSpec(): ChunkSpec {
    return this.#ctx.chunkSpec;
  }

  /**
   * True when the elements are of data type `dataType` (or an alias of it:
   * `"string"` and `"variable_length_utf8"`, `"bytes"` and
   * `"variable_length_bytes"`). A type guard: it narrows an array opened
   * without `dtype` to `ZarrArray<typeof dataType>`.
   *
   * @param dataType - A data type name, e.g. `"float32"`.
   * @example
   * ```ts
   * const a = await openArray(store, "temps");
   * if (a.is("float32")) {
   *   const { data } = await a.get(); // data: Float32Array
   * }
   * ```
   */
  is<N extends DataTypeName>(dataType: N): this is ZarrArray<N> {
    return sameDataTypeName(this.dataType.name, dataType);
  }

  /** Reads and decodes one chunk; `undefined` when it is not stored (it reads as the fill value). */
  getChunk(
    coords: readonly number[],
    options: GetOptions = {},
  ): Promise<NDArray<DataArrayOf<D>> | undefined> {
    const ctx = this.#ctx;
    return guardAllocation(this.path, "reading a chunk", async () => {
      ctx.checkCoords(coords);
      return ctx.readChunk(coords, options) as Promise<NDArray<DataArrayOf<D>> | undefined>;
    });
  }

  /** Encodes and stores one whole chunk (C order, of `chunkShape`). */
  setChunk(
    coords: readonly number[],
    chunk: Pick<NDArray<DataArrayOf<D>>, "data">,
    options: SetOptions = {},
  ): Promise<void> {
    return guardAllocation(this.path, "writing a chunk", async () =>
      (await import("./write.js")).writeChunkAt(this.#ctx, coords, chunk, options),
    );
  }

  /**
   * Reads a selection (see `Selection`: integers, `slice()`, `null`, `"..."`,
   * integer or boolean arrays per dimension). Integer-indexed dimensions are
   * dropped from the result, as in NumPy. The result is C order.
   */
  get(selection?: Selection, options: ReadOptions<D> = {}): Promise<NDArray<DataArrayOf<D>>> {
    return guardAllocation(
      this.path,
      "this read",
      () => readSelection(this.#ctx, selection, options) as Promise<NDArray<DataArrayOf<D>>>,
    );
  }

  /**
   * Writes `value` into a selection: a scalar is broadcast; an array must have
   * the selection's shape (flat C order, or `{data, shape, stride?}`).
   * Partially covered chunks are read, modified and written back; chunks that
   * end up equal to the fill value are erased unless `writeEmptyChunks`.
   */
  set(selection: Selection, value: ArrayValue<D>, options: SetOptions = {}): Promise<void> {
    return guardAllocation(this.path, "this write", async () =>
      (await import("./write.js")).writeSelection(this.#ctx, selection, value, options),
    );
  }

  /**
   * Coordinate selection (NumPy's "fancy" point indexing, zarr-python's `vindex`):
   * `coords[d][k]` is the index along dimension `d` of point `k` (negative values
   * wrap). Returns the `n` selected elements in order, as a 1-d array.
   */
  getCoordinates(
    coords: readonly (readonly number[] | Int32Array)[],
    options: GetOptions = {},
  ): Promise<NDArray<DataArrayOf<D>>> {
    return guardAllocation(
      this.path,
      "this read",
      async () =>
        (await import("./coordinates.js")).readCoordinates(this.#ctx, coords, options) as Promise<
          NDArray<DataArrayOf<D>>
        >,
    );
  }

  /** Writes `value` (a scalar, or one element per point) at the points of a coordinate selection. */
  setCoordinates(
    coords: readonly (readonly number[] | Int32Array)[],
    value: ScalarOf<D> | DataArrayOf<D>,
    options: SetOptions = {},
  ): Promise<void> {
    return guardAllocation(this.path, "this write", async () =>
      (await import("./coordinates.js")).writeCoordinates(this.#ctx, coords, value, options),
    );
  }

  /** Replaces the user attributes and writes the metadata. */
  async setAttributes(
    attributes: JsonObject,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    throwIfAborted(options.signal, this.path);
    const { writeArrayMetadata } = await import("./write.js");
    await writeArrayMetadata(this.#ctx, {
      ...this.#ctx.parts.meta,
      attributes: { ...attributes },
    });
  }

  /** Merges `attributes` into the user attributes and writes the metadata. */
  async updateAttributes(
    attributes: JsonObject,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    await this.setAttributes({ ...this.attrs, ...attributes }, options);
  }

  /**
   * Changes the shape. Chunks entirely outside the new shape are erased; data
   * in partially covered edge chunks is kept as is (v3 core: "Resizing"), so
   * growing again may show it unless `clearEdges` is set, in which case the
   * elements outside the new shape are reset to the fill value.
   *
   * The cost follows what changes, not the size of the chunk grid: the
   * chunks in the removed region (and, with `clearEdges`, the edge chunks)
   * are enumerated when there are few of them; otherwise, on a listable
   * store, the stored chunks are listed and only those are touched.
   */
  async resize(
    shape: readonly number[],
    options: { signal?: AbortSignal; clearEdges?: boolean } = {},
  ): Promise<void> {
    await guardAllocation(this.path, "this resize", async () =>
      (await import("./resize.js")).resizeArray(this.#ctx, shape, options),
    );
  }

  /** Keys of the chunks that are stored (requires a listable store). */
  async *storedChunks(
    options: { signal?: AbortSignal } = {},
  ): AsyncGenerator<{ key: string; coords: number[] }> {
    yield* (await import("./resize.js")).storedChunks(this.#ctx, options);
  }
}

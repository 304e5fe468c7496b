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
import { product } from "../util/grid.js";
import { loadPart } from "../util/load.js";
import type { ChunkCodecWorkers } from "../workers/types.js";
import { ArrayContext, arrayDefaults } from "./context.js";
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
   * sets it to a pool sized to the machine. Process-wide: it applies to every
   * array.
   *
   * @example
   * ```ts
   * import { ZarrArray } from "@zarr/core";
   * import { WorkerPool } from "@zarr/workers";
   * ZarrArray.defaultWorkers = new WorkerPool({ size: 4 });
   * ```
   */
  static get defaultWorkers(): ChunkCodecWorkers | undefined {
    return arrayDefaults.workers;
  }
  /**
   * Sets the worker pool of every operation that does not pass `workers`. The
   * previous pool is not closed.
   *
   * @param workers - A pool (e.g. a `WorkerPool` from `@zarr/workers`), or
   *   `undefined` to run codecs on the calling thread.
   */
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

  /**
   * The store key of the chunk at grid coordinates `coords`: the array's path
   * followed by the key the chunk key encoding gives (`"temps/c/0/1"` with the
   * v3 default, `"temps/0.1"` with v2's). The coordinates are not checked
   * against the chunk grid.
   *
   * @param coords - The chunk's index along each dimension (an element's
   *   index divided by `chunkShape`, rounded down).
   * @returns The key, relative to the store's root.
   *
   * @example
   * ```ts
   * const key = array.chunkKey([0, 1]); // "temps/c/0/1"
   * ```
   */
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
   * @returns `true` when the array's data type is `dataType` or an alias of it.
   *
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

  /**
   * Reads and decodes one whole chunk, as stored (for a sharded array, a whole
   * shard): all of `chunkShape`, edge chunks included.
   *
   * @param coords - The chunk's grid coordinates: one integer per dimension,
   *   from 0 to `gridShape[d] - 1`.
   * @param options - `signal` cancels the read (an `AbortError`); `workers`
   *   and `decodeLimits` apply as in {@link GetOptions}. Default: `{}`.
   * @returns The chunk (`data`, `shape`, `stride`, `dataType`), or
   *   `undefined` when it is not stored (it reads as the fill value).
   * @throws {@link IndexError} when `coords` lies outside the chunk grid;
   *   {@link CodecError} when the stored chunk cannot be decoded (its key is
   *   the error's `path`); {@link StoreError} when the store read fails;
   *   {@link AbortError} when aborted.
   *
   * @example
   * ```ts
   * const chunk = await array.getChunk([0, 0]);
   * if (chunk === undefined) console.log("not stored: every element is the fill value");
   * ```
   */
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

  /**
   * Encodes and stores one whole chunk (for a sharded array, a whole shard). A
   * chunk whose every element equals the fill value is erased instead, unless
   * `writeEmptyChunks` is set.
   *
   * @param coords - The chunk's grid coordinates: one integer per dimension,
   *   from 0 to `gridShape[d] - 1`.
   * @param chunk - `{ data }`: every element of the chunk in C order, all of
   *   `chunkShape` (an edge chunk too: elements past the array's end are
   *   stored but never read), as the data type's array (`Float32Array` for
   *   `"float32"`, ...). A `getChunk` result is accepted as is.
   * @param options - `signal` cancels the write (an `AbortError`);
   *   `writeEmptyChunks`, `workers` and `shardIndexCache` apply as in
   *   {@link SetOptions}. Default: `{}`.
   * @throws {@link IndexError} when `coords` lies outside the chunk grid;
   *   {@link ValueError} when `chunk.data` does not have the chunk's length;
   *   {@link CodecError} when encoding fails; {@link StoreCapabilityError} for
   *   a read-only store; {@link AbortError} when aborted.
   *
   * @example
   * ```ts
   * const length = array.chunkShape.reduce((n, s) => n * s, 1);
   * await array.setChunk([0, 1], { data: new Float32Array(length).fill(1.5) });
   * ```
   */
  setChunk(
    coords: readonly number[],
    chunk: Pick<NDArray<DataArrayOf<D>>, "data">,
    options: SetOptions = {},
  ): Promise<void> {
    return guardAllocation(this.path, "writing a chunk", async () =>
      (await loadPart("write path", () => import("./write.js"))).writeChunkAt(
        this.#ctx,
        coords,
        chunk,
        options,
      ),
    );
  }

  /**
   * Reads a selection. Integer-indexed dimensions are dropped from the result,
   * as in NumPy; index arrays select orthogonally (zarr-python's `oindex`).
   * The result is C order; chunks that are not stored read as the fill value.
   *
   * @param selection - What to read (see `Selection`): per dimension an
   *   integer (negative counts from the end), a `slice()`, `null` (the whole
   *   dimension), an integer index array or a boolean mask, with at most one
   *   `ELLIPSIS`; missing trailing dimensions are whole. Default (or `null`):
   *   the whole array.
   * @param options - `signal` cancels the read (an `AbortError`);
   *   `concurrency` is the number of chunks in flight (default 16); `out` is an
   *   array to read into; `workers`, `decodeLimits`, `coalesce` and
   *   `shardIndexCache` as in {@link ReadOptions}. Default: `{}`.
   * @returns `{ data, shape, stride, dataType }`: `data` is the data type's
   *   array (`Float32Array` for `"float32"`, `string[]` for `"string"`, ...),
   *   or `options.out` when given.
   * @throws {@link IndexError} for an invalid selection (an index out of
   *   bounds, more entries than dimensions, a zero step, ...);
   *   {@link ValueError} when `out` is not the data type's array of the
   *   selection's length, or the result is too large to allocate;
   *   {@link CodecError} when a chunk cannot be decoded; {@link StoreError}
   *   when a store read fails; {@link AbortError} when aborted.
   *
   * @example
   * ```ts
   * const { data, shape } = await array.get([slice(0, 10), 3]); // shape: [10]
   * const all = await array.get(); // the whole array
   * ```
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
   *
   * @param selection - Where to write, as for {@link ZarrArray.get}: per
   *   dimension an integer, a `slice()`, `null`, an integer index array or a
   *   boolean mask, with at most one `ELLIPSIS`; `null` is the whole array.
   * @param value - A scalar of the data type (`number` for `"float32"`,
   *   `bigint` for `"int64"`, `string` for `"string"`, ... see `ScalarOf`)
   *   written to every selected element; or one value per selected element
   *   in C order: the data type's array (`Float32Array` for `"float32"`, ...),
   *   or `{ data, shape, stride? }` whose `shape` is the selection's
   *   (integer-indexed dimensions dropped) and `stride` counts elements.
   * @param options - `signal` cancels the write (an `AbortError`; chunks
   *   already stored stay written); `concurrency` is the number of chunks in
   *   flight (default 16); `writeEmptyChunks`, `workers` and the rest as in
   *   {@link SetOptions}. Default: `{}`.
   * @throws {@link IndexError} for an invalid selection; {@link ValueError}
   *   when `value` does not fit: another shape than the selection's, another
   *   array type than the data type's, fewer values than selected elements,
   *   or a scalar the data type cannot represent; {@link CodecError} when a
   *   chunk cannot be decoded or encoded; {@link StoreCapabilityError} for a
   *   read-only store; {@link AbortError} when aborted.
   *
   * @example
   * ```ts
   * await array.set([0, slice(0, 3)], new Float32Array([1, 2, 3]));
   * await array.set([slice(10, 20), null], Number.NaN); // broadcast
   * ```
   */
  set(selection: Selection, value: ArrayValue<D>, options: SetOptions = {}): Promise<void> {
    return guardAllocation(this.path, "this write", async () =>
      (await loadPart("write path", () => import("./write.js"))).writeSelection(
        this.#ctx,
        selection,
        value,
        options,
      ),
    );
  }

  /**
   * Coordinate selection (NumPy's "fancy" point indexing, zarr-python's `vindex`):
   * `coords[d][k]` is the index along dimension `d` of point `k` (negative values
   * wrap). Returns the `n` selected elements in order, as a 1-d array. Points
   * may repeat and come in any order; each chunk they touch is read once.
   *
   * @param coords - One index array per dimension (plain arrays or
   *   `Int32Array`s), all of the same length `n`.
   * @param options - `signal` cancels the read (an `AbortError`);
   *   `concurrency` is the number of chunks in flight (default 16); `workers`
   *   and `decodeLimits` as in {@link GetOptions}. Default: `{}`.
   * @returns `{ data, shape: [n], stride: [1], dataType }`: the elements in
   *   point order.
   * @throws {@link IndexError} when there is not one index array per
   *   dimension, their lengths differ, or an index is not an integer or out of
   *   bounds; {@link CodecError} when a chunk cannot be decoded;
   *   {@link StoreError} when a store read fails; {@link AbortError} when
   *   aborted.
   *
   * @example
   * ```ts
   * // The elements at (0, 5), (3, 1) and (-1, -1), the last one.
   * const { data } = await array.getCoordinates([
   *   [0, 3, -1],
   *   [5, 1, -1],
   * ]);
   * ```
   */
  getCoordinates(
    coords: readonly (readonly number[] | Int32Array)[],
    options: GetOptions = {},
  ): Promise<NDArray<DataArrayOf<D>>> {
    return guardAllocation(
      this.path,
      "this read",
      async () =>
        (await loadPart("coordinate selection", () => import("./coordinates.js"))).readCoordinates(
          this.#ctx,
          coords,
          options,
        ) as Promise<NDArray<DataArrayOf<D>>>,
    );
  }

  /**
   * Writes `value` (a scalar, or one element per point) at the points of a
   * coordinate selection (see {@link ZarrArray.getCoordinates}). Each chunk
   * touched is read, modified and written back once; a repeated point gets
   * the last of its values. Chunks that end up equal to the fill value are
   * erased unless `writeEmptyChunks`.
   *
   * @param coords - One index array per dimension (plain arrays or
   *   `Int32Array`s), all of the same length `n`: `coords[d][k]` is the index
   *   along dimension `d` of point `k` (negative values wrap).
   * @param value - A scalar of the data type written at every point, or `n`
   *   values in point order as the data type's array (`Float32Array` for
   *   `"float32"`, ...).
   * @param options - `signal` cancels the write (an `AbortError`);
   *   `concurrency` is the number of chunks in flight (default 16);
   *   `writeEmptyChunks`, `workers` and the rest as in {@link SetOptions}.
   *   Default: `{}`.
   * @throws {@link IndexError} for invalid coordinates, as
   *   {@link ZarrArray.getCoordinates}; {@link ValueError} when `value` is
   *   another array type than the data type's, has fewer than `n` values, or
   *   is a scalar the data type cannot represent; {@link CodecError} when a
   *   chunk cannot be decoded or encoded; {@link StoreCapabilityError} for a
   *   read-only store; {@link AbortError} when aborted.
   *
   * @example
   * ```ts
   * await array.setCoordinates([[0, 3], [5, 1]], new Float32Array([0.5, 0.25]));
   * await array.setCoordinates([[7], [7]], 0); // a scalar
   * ```
   */
  setCoordinates(
    coords: readonly (readonly number[] | Int32Array)[],
    value: ScalarOf<D> | DataArrayOf<D>,
    options: SetOptions = {},
  ): Promise<void> {
    return guardAllocation(this.path, "this write", async () =>
      (await loadPart("coordinate selection", () => import("./coordinates.js"))).writeCoordinates(
        this.#ctx,
        coords,
        value,
        options,
      ),
    );
  }

  /**
   * Replaces the user attributes and writes the metadata (in the array's own
   * format: `zarr.json`, or v2's documents).
   *
   * @param attributes - The new attributes, a JSON object; copied (shallowly).
   * @param options - `signal` cancels the call (an `AbortError`) before
   *   anything is written. Default: `{}`.
   * @throws {@link MetadataError} when `attributes` is not JSON;
   *   {@link StoreCapabilityError} for a read-only store; {@link AbortError}
   *   when aborted.
   *
   * @example
   * ```ts
   * await array.setAttributes({ units: "K", long_name: "air temperature" });
   * ```
   */
  async setAttributes(
    attributes: JsonObject,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    throwIfAborted(options.signal, this.path);
    const { changeArrayMetadata } = await loadPart("write path", () => import("./write.js"));
    const replaced = { ...attributes };
    await changeArrayMetadata(
      this.#ctx,
      (meta) => ({ ...meta, attributes: replaced }),
      options.signal,
    );
  }

  /**
   * Merges `attributes` into the user attributes (top-level keys replace
   * existing ones) and writes the metadata.
   *
   * @param attributes - The attributes to add or replace, a JSON object.
   * @param options - `signal` cancels the call (an `AbortError`) before
   *   anything is written. Default: `{}`.
   * @throws {@link MetadataError} when the attributes are not JSON;
   *   {@link StoreCapabilityError} for a read-only store; {@link AbortError}
   *   when aborted.
   *
   * @example
   * ```ts
   * await array.updateAttributes({ version: 2 }); // other attributes are kept
   * ```
   */
  async updateAttributes(
    attributes: JsonObject,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    throwIfAborted(options.signal, this.path);
    const { changeArrayMetadata } = await loadPart("write path", () => import("./write.js"));
    const added = { ...attributes };
    // Merged under the lock, with the attributes as they are then.
    await changeArrayMetadata(
      this.#ctx,
      (meta) => ({ ...meta, attributes: { ...meta.attributes, ...added } }),
      options.signal,
    );
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
   *
   * @param shape - The new length of each dimension: one non-negative integer
   *   per dimension (the number of dimensions cannot change).
   * @param options - `signal` cancels the call (an `AbortError`); `clearEdges`
   *   (default `false`) resets the elements of the kept edge chunks that lie
   *   outside the new shape to the fill value. Default: `{}`.
   * @throws {@link ValueError} when `shape` has another number of dimensions
   *   or a length that is not a non-negative safe integer;
   *   {@link StoreCapabilityError} for a read-only store; {@link AbortError}
   *   when aborted.
   *
   * @example
   * ```ts
   * await array.resize(array.shape.map((n, d) => (d === 0 ? n + 365 : n))); // 365 more rows
   * await array.resize([10, 10], { clearEdges: true });
   * ```
   */
  async resize(
    shape: readonly number[],
    options: { signal?: AbortSignal; clearEdges?: boolean } = {},
  ): Promise<void> {
    await guardAllocation(this.path, "this resize", async () =>
      (await loadPart("resize", () => import("./resize.js"))).resizeArray(
        this.#ctx,
        shape,
        options,
      ),
    );
  }

  /**
   * The chunks that are stored, found by listing the store below the array's
   * path (requires a listable store), in the store's listing order. Keys that
   * are not chunk keys of the array, or lie outside the current chunk grid,
   * are skipped.
   *
   * @param options - `signal` cancels the listing (an `AbortError`).
   *   Default: `{}`.
   * @returns An async iterator of `{ key, coords }`: each stored chunk's store
   *   key and grid coordinates.
   * @throws {@link StoreCapabilityError} (when iterated) when the store cannot
   *   list; {@link AbortError} when aborted.
   *
   * @example
   * ```ts
   * for await (const { key, coords } of array.storedChunks()) console.log(key, coords);
   * ```
   */
  async *storedChunks(
    options: { signal?: AbortSignal } = {},
  ): AsyncGenerator<{ key: string; coords: number[] }> {
    yield* (await loadPart("resize", () => import("./resize.js"))).storedChunks(this.#ctx, options);
  }
}

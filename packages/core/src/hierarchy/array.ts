/**
 * Zarr arrays: reading and writing selections chunk by chunk, direct chunk
 * access, attributes and resizing.
 *
 * @module
 */

import type { ChunkGrid } from "../chunk-grid/regular.js";
import type { ChunkKeyEncoding } from "../chunk-key/encodings.js";
import {
  type ChunkTarget,
  chunkByteSpan,
  copyChunk,
  DecodeBuffers,
  decodeChunkTo,
} from "../codecs/decode-to.js";
import { type DecodeLimits, reserveDecodeBytes, resolveDecodeLimits } from "../codecs/limits.js";
import type { CodecPipeline } from "../codecs/pipeline.js";
import type {
  ByteGetter,
  ChunkRegion,
  ChunkSpec,
  CoalesceOptions,
  NDArray,
} from "../codecs/types.js";
import type { DataArray, DataType, FillValue, JsonObject, Scalar } from "../dtypes/types.js";
import {
  CodecError,
  IndexError,
  throwIfAborted,
  ValueError,
  ValueTooLargeError,
} from "../errors.js";
import {
  type Axis,
  type ChunkProjection,
  copyStrided,
  cStrides,
  fillStrided,
  normalizeSelection,
  projectChunks,
  resolveAxes,
  type Selection,
  slice,
} from "../indexing/index.js";
import { bitExact } from "../indexing/strided.js";
import {
  type ArrayMetadataV3,
  encodeMetadata,
  serializeArrayMetadataV3,
} from "../metadata/index.js";
import type { ShardIndexCache } from "../sharding/index-cache.js";
import type { Store } from "../store/types.js";
import { guardAllocation } from "../util/allocation.js";
import { DEFAULT_CONCURRENCY, forEachConcurrent, withKeyLock } from "../util/concurrency.js";
import type { ChunkCodecWorkers } from "../workers/types.js";
import { childKey } from "./paths.js";

/** Options of reads (`getChunk`, `getCoordinates`), and the base of every array operation's options. */
export interface GetOptions {
  /** Cancels the read. */
  signal?: AbortSignal;
  /** Chunks fetched and decoded at once (default 16). */
  concurrency?: number;
  /** How partial reads of sharded chunks merge nearby byte ranges. */
  coalesce?: CoalesceOptions;
  /**
   * Where chunk codecs run: a worker pool (e.g. from `@zarr/workers`), or
   * `false` for the calling thread. Default: {@link ZarrArray.defaultWorkers}.
   */
  workers?: ChunkCodecWorkers | false;
  /**
   * Overrides of the process-wide decode limits (see `setDecodeLimits`): the
   * bounds on variable-size elements and chunks that keep decoding of
   * strings, bytes and objects proportional to what the metadata justifies.
   */
  decodeLimits?: Partial<DecodeLimits>;
  /**
   * Shard indexes kept across calls (sharded arrays): reads take indexes from
   * it and add the ones they load; writes drop the entries of the shards
   * they replace. See {@link ShardIndexCache} for when it is safe.
   */
  shardIndexCache?: ShardIndexCache;
}

/** Options of {@link ZarrArray.get}. */
export interface ReadOptions extends GetOptions {
  /**
   * Read into this array instead of a new one (e.g. to reuse memory across
   * reads): the selection's element count in the data type's array kind
   * (`Float32Array` for float32, ...), C order. Every element is written. The
   * result's `data` is this array.
   */
  out?: DataArray;
}

/** Options of {@link ZarrArray.set}. */
export interface SetOptions extends GetOptions {
  /**
   * Store chunks whose every element equals the fill value (default `false`:
   * such chunks are not written, and an existing one is erased).
   */
  writeEmptyChunks?: boolean;
}

/** A value accepted by {@link ZarrArray.set}: a scalar broadcast to the selection, a flat C-order array, or an NDArray. */
export type ArrayValue =
  | Scalar
  | DataArray
  | Pick<NDArray, "data" | "shape">
  | Partial<Pick<NDArray, "stride">>;

/** The parts of an array's definition that are derived from its metadata. */
export interface ArrayParts {
  readonly meta: ArrayMetadataV3;
  readonly dataType: DataType;
  readonly fillValue: FillValue;
  readonly grid: ChunkGrid;
  readonly keyEncoding: ChunkKeyEncoding;
  readonly codecs: CodecPipeline;
  /** Writes metadata for this array (v3 zarr.json, or another format's documents). */
  readonly writeMetadata?: (store: Store, path: string, meta: ArrayMetadataV3) => Promise<void>;
  /** Rebuilds the derived parts after a shape change. */
  readonly rebuild: (meta: ArrayMetadataV3) => Promise<ArrayParts>;
  /** The Zarr format of the stored metadata. */
  readonly zarrFormat: 2 | 3;
  /**
   * Store chunks equal to the fill value too (the array has no fill value for
   * some readers, see `V2_FILL_VALUE_FIELD`): a missing chunk would not read
   * back as the values written.
   */
  readonly keepFillChunks?: boolean;
}

function product(shape: readonly number[]): number {
  let n = 1;
  for (const s of shape) n *= s;
  return n;
}

function isNDArrayLike(
  v: unknown,
): v is { data: DataArray; shape: readonly number[]; stride?: readonly number[] } {
  return typeof v === "object" && v !== null && "data" in v && "shape" in v;
}

function isDataArray(v: unknown): v is DataArray {
  return ArrayBuffer.isView(v) ? !(v instanceof DataView) : Array.isArray(v);
}

/** A Zarr array in a store. Create with `createArray` or open with `openArray`/`open`. */
export class ZarrArray {
  /**
   * The worker pool used when an operation does not pass `workers`
   * (`undefined`: codecs run on the calling thread). `@zarr/workers/register`
   * sets it to a pool sized to the machine.
   */
  static defaultWorkers: ChunkCodecWorkers | undefined = undefined;

  #parts: ArrayParts;
  /** Per-parts values derived once instead of per chunk. */
  #derived: Derived | undefined;

  /** @internal Use `openArray` or `createArray`. */
  constructor(
    /** The store holding the array. */
    readonly store: Store,
    /** The node path without leading `/` (`""` for the root). */
    readonly path: string,
    parts: ArrayParts,
  ) {
    this.#parts = parts;
  }

  /** The metadata document (v3 form; v2 arrays are shown as their v3 equivalent). */
  get metadata(): ArrayMetadataV3 {
    return this.#parts.meta;
  }
  /** The Zarr format of the stored metadata (2 or 3). */
  get zarrFormat(): 2 | 3 {
    return this.#parts.zarrFormat;
  }
  /** Always `"array"`. */
  get kind(): "array" {
    return "array";
  }
  /** The length of each dimension. */
  get shape(): readonly number[] {
    return this.#parts.meta.shape;
  }
  /** Number of dimensions. */
  get ndim(): number {
    return this.shape.length;
  }
  /** Number of elements. */
  get size(): number {
    return product(this.shape);
  }
  get dataType(): DataType {
    return this.#parts.dataType;
  }
  get fillValue(): FillValue {
    return this.#parts.fillValue;
  }
  /** The shape of one chunk (of the outer chunk, for sharded arrays). */
  get chunkShape(): readonly number[] {
    return this.#parts.grid.chunkShape;
  }
  /** Chunks along each dimension. */
  get gridShape(): number[] {
    return this.#parts.grid.gridShape(this.shape);
  }
  /** The codec pipeline of the chunks. */
  get codecs(): CodecPipeline {
    return this.#parts.codecs;
  }
  /** User attributes. */
  get attrs(): JsonObject {
    return this.#parts.meta.attributes;
  }
  /** Dimension names, when set. */
  get dimensionNames(): readonly (string | null)[] | undefined {
    return this.#parts.meta.dimension_names;
  }
  /** The chunk key encoding. */
  get chunkKeyEncoding(): ChunkKeyEncoding {
    return this.#parts.keyEncoding;
  }

  /** The store key of the chunk at grid coordinates `coords`. */
  chunkKey(coords: readonly number[]): string {
    return childKey(this.path, this.#parts.keyEncoding.encode(coords));
  }

  /** The decoded representation of one chunk. */
  get chunkSpec(): ChunkSpec {
    return this.#parts.codecs.spec;
  }

  #checkCoords(coords: readonly number[]): void {
    const grid = this.gridShape;
    if (
      coords.length !== grid.length ||
      coords.some((c, i) => !Number.isInteger(c) || c < 0 || c >= grid[i])
    ) {
      throw new IndexError(
        `${this.path || "/"}: chunk coordinates [${coords.join(", ")}] outside the chunk grid [${grid.join(", ")}]`,
        { path: this.path },
      );
    }
  }

  /** Values derived from the current parts, computed once per metadata version. */
  #d(): Derived {
    const parts = this.#parts;
    let d = this.#derived;
    if (d === undefined || d.parts !== parts) {
      const one = parts.dataType.allocate(1);
      parts.dataType.fill(one, parts.fillValue, 0, 1);
      const chunkShape = parts.codecs.spec.shape;
      d = {
        parts,
        fill: one,
        zeroFill: ArrayBuffer.isView(one) && parts.fillValue.bits.every((b) => b === 0),
        chunkShape,
        chunkStrides: cStrides(chunkShape),
        chunkLength: product(chunkShape),
        context: { format: parts.zarrFormat, path: this.path },
      };
      this.#derived = d;
    }
    return d;
  }

  #workers(options: GetOptions): ChunkCodecWorkers | undefined {
    return options.workers === false ? undefined : (options.workers ?? ZarrArray.defaultWorkers);
  }

  /**
   * Runs `fn` for the chunk at `coords` (or key) and names that chunk's key in
   * codec errors, which otherwise only name the array's metadata document.
   */
  #keyed<T>(chunk: readonly number[] | string, fn: () => Promise<T>): Promise<T> {
    return fn().catch((e: unknown) => {
      const key = typeof chunk === "string" ? chunk : this.chunkKey(chunk);
      if (e instanceof CodecError && e.path !== key) {
        throw new CodecError(`chunk "${key}": ${e.message}`, { path: key, cause: e });
      }
      // Larger than its codecs can produce: damaged (or hostile), like any undecodable chunk.
      if (e instanceof ValueTooLargeError) {
        throw new CodecError(`chunk "${key}" is larger than its codecs can produce: ${e.message}`, {
          path: key,
          cause: e,
        });
      }
      throw e;
    });
  }

  /**
   * `options` for reading whole stored chunks: the store may return at most
   * what the codecs can produce for one chunk (see `CodecPipeline.maxEncodedSize`),
   * so a hostile or damaged value is refused before it is decoded.
   */
  #bounded<O extends GetOptions>(options: O): O & { maxBytes: number } {
    const limits = resolveDecodeLimits(options.decodeLimits);
    return { ...options, maxBytes: this.#parts.codecs.maxEncodedSize(limits) };
  }

  /** Decodes stored bytes of one chunk, in a worker when the pool takes the job. */
  #decode(bytes: Uint8Array, options: GetOptions): Promise<NDArray> {
    return this.#offload(bytes, options) ?? this.#parts.codecs.decode(bytes, options);
  }

  /** The worker pool's decoding of a chunk, or `undefined` when it declines the job. */
  #offload(bytes: Uint8Array, options: GetOptions): Promise<NDArray> | undefined {
    return this.#workers(options)?.decode(this.#parts.codecs, bytes, this.#d().context, options);
  }

  /** Reads and decodes the chunk at `coords` (already validated). */
  async #readChunk(coords: readonly number[], options: GetOptions): Promise<NDArray | undefined> {
    return this.#keyed(coords, async () => {
      const bytes = await this.store.get(this.chunkKey(coords), undefined, this.#bounded(options));
      if (bytes === undefined) return undefined;
      return this.#budgeted(options, () => this.#decode(bytes, options));
    });
  }

  /**
   * Runs the decode of one chunk of variable-size data within the in-flight
   * budget of such decodes (`DecodeLimits.maxBytesInFlight`): it reserves the
   * chunk's decode bound first and gives it back once the decoded values are in
   * place, so chunks in flight and concurrent reads cannot each fill their
   * bound at once (their reads from the store still overlap). Fixed-size
   * chunks decode to their exact size and run at once.
   */
  async #budgeted<T>(options: GetOptions, fn: () => Promise<T>): Promise<T> {
    const limits = resolveDecodeLimits(options.decodeLimits);
    const bytes = this.#parts.codecs.decodeReservation(limits);
    if (bytes === 0) return fn();
    const release = await reserveDecodeBytes(bytes, limits, options.signal);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** Reads and decodes one chunk; `undefined` when it is not stored (it reads as the fill value). */
  getChunk(coords: readonly number[], options: GetOptions = {}): Promise<NDArray | undefined> {
    return guardAllocation(this.path, "reading a chunk", () => this.#getChunk(coords, options));
  }

  async #getChunk(
    coords: readonly number[],
    options: GetOptions = {},
  ): Promise<NDArray | undefined> {
    this.#checkCoords(coords);
    return this.#readChunk(coords, options);
  }

  /** Encodes and stores one whole chunk (C order, of `chunkShape`). */
  setChunk(
    coords: readonly number[],
    chunk: Pick<NDArray, "data">,
    options: SetOptions = {},
  ): Promise<void> {
    return guardAllocation(this.path, "writing a chunk", () =>
      this.#setChunk(coords, chunk, options),
    );
  }

  async #setChunk(
    coords: readonly number[],
    chunk: Pick<NDArray, "data">,
    options: SetOptions = {},
  ): Promise<void> {
    this.#checkCoords(coords);
    const spec = this.chunkSpec;
    const n = product(spec.shape);
    if (chunk.data.length !== n * this.dataType.width) {
      throw new ValueError(
        `${this.path || "/"}: chunk data has ${chunk.data.length} slots, expected ${n * this.dataType.width}`,
        { path: this.path },
      );
    }
    await this.#storeChunk(this.chunkKey(coords), chunk.data, options, false);
  }

  /**
   * Encodes and stores one chunk (or erases it when it equals the fill value).
   * `owned`: `data` was allocated for this call, so a worker pool may take its buffer.
   */
  async #storeChunk(
    key: string,
    data: DataArray,
    options: SetOptions,
    owned: boolean,
  ): Promise<void> {
    // A cached index of this shard is no longer to be trusted (dropped before and after,
    // so that a read running meanwhile cannot leave the old one behind).
    const cache = options.shardIndexCache;
    cache?.delete(this.store.inner, key);
    try {
      await this.#writeChunk(key, data, options, owned);
    } finally {
      cache?.delete(this.store.inner, key);
    }
  }

  /** Encodes and stores one chunk, or erases it when it equals the fill value. */
  async #writeChunk(
    key: string,
    data: DataArray,
    options: SetOptions,
    owned: boolean,
  ): Promise<void> {
    const d = this.#d();
    const { codecs, dataType, fillValue } = d.parts;
    if (
      !options.writeEmptyChunks &&
      !d.parts.keepFillChunks &&
      dataType.isFill(data, fillValue, 0, d.chunkLength)
    ) {
      await this.store.erase(key, options);
      return;
    }
    const chunk: NDArray = { data, shape: d.chunkShape, stride: d.chunkStrides, dataType };
    const offloaded = this.#workers(options)?.encode(codecs, chunk, d.context, {
      ...options,
      transfer: owned,
    });
    const bytes = await (offloaded ?? codecs.encode(chunk, options));
    await this.store.set(key, bytes, options);
  }

  /**
   * Reads a selection (see `Selection`: integers, `slice()`, `null`, `"..."`,
   * integer or boolean arrays per dimension). Integer-indexed dimensions are
   * dropped from the result, as in NumPy. The result is C order.
   */
  get(selection?: Selection, options: ReadOptions = {}): Promise<NDArray> {
    return guardAllocation(this.path, "this read", () => this.#get(selection, options));
  }

  async #get(selection?: Selection, options: ReadOptions = {}): Promise<NDArray> {
    const sel = normalizeSelection(selection, this.shape, this.path);
    const dataType = this.dataType;
    const width = dataType.width;
    const outShape = sel.shape;
    const outStrides = cStrides(outShape);
    const codecs = this.#parts.codecs;
    const { fill, zeroFill, context } = this.#d();
    const pool = this.#workers(options);
    const length = product(outShape);
    const out =
      options.out !== undefined ? this.#checkOut(options.out, length) : dataType.allocate(length);
    // A fresh array is already all zero bits; a caller's array holds anything.
    const fillMissing = !zeroFill || options.out !== undefined;
    const buffers = new DecodeBuffers();
    const chunkRead = this.#bounded(options);
    // Range reads need the stored size to check (a stat or HEAD beside the read).
    const rangeReads = codecs.supportsRangeRead && typeof this.store.inner.getSize === "function";
    await forEachConcurrent(
      projectChunks(sel, this.shape, this.chunkShape),
      options.concurrency ?? DEFAULT_CONCURRENCY,
      (p: ChunkProjection) =>
        this.#keyed(p.chunkCoords, async () => {
          const target: ChunkTarget = {
            out,
            chunkSel: p.chunkSel,
            outAxes: p.outAxes,
            outStrides,
          };
          if (!p.complete && codecs.supportsPartialDecode) {
            // Read only the part of the chunk the selection needs (e.g. inner chunks of a shard).
            const region = boundingRegion(p.chunkSel);
            const chunk = await this.#budgeted(options, () =>
              codecs.decodePartial(this.#byteGetter(p.chunkCoords), region, {
                ...options,
                workers: pool ?? false,
              }),
            );
            if (chunk !== undefined) {
              copyChunk(chunk, codecs, {
                ...target,
                chunkSel: shiftSelection(p.chunkSel, region),
              });
            } else if (fillMissing) {
              fillStrided(out, 0, p.outAxes, outStrides, fill, width);
            }
            return;
          }
          const key = this.chunkKey(p.chunkCoords);
          // Uncompressed chunks: a small selection reads only the bytes it needs.
          const span = rangeReads ? chunkByteSpan(codecs, p.chunkSel) : undefined;
          if (span !== undefined) {
            const found = await this.#readSpan(key, span, target, options);
            if (found === "missing") {
              if (fillMissing) fillStrided(out, 0, p.outAxes, outStrides, fill, width);
              return;
            }
            if (found === "read") return;
            // Changed while it was read: read it whole, below.
          }
          const bytes = await this.store.get(key, undefined, chunkRead);
          if (bytes === undefined) {
            if (fillMissing) fillStrided(out, 0, p.outAxes, outStrides, fill, width);
            return;
          }
          try {
            await this.#budgeted(options, async () => {
              // A small part of a chunk decodes here in a block or two (see chunkByteSpan).
              const small = chunkByteSpan(codecs, p.chunkSel) !== undefined;
              // A pool may decode the chunk into its place in the output...
              const placed = small
                ? undefined
                : pool?.decodeTo?.(codecs, bytes, context, target, options);
              if (placed !== undefined) return await placed;
              // ...or hand back the decoded chunk.
              const offloaded = small ? undefined : this.#offload(bytes, options);
              if (offloaded !== undefined) copyChunk(await offloaded, codecs, target);
              else await decodeChunkTo(codecs, bytes, target, buffers, options);
            });
          } finally {
            // Every use of the bytes above has settled: the store may reuse their memory.
            this.store.release(bytes);
          }
        }),
      options.signal,
    );
    return { data: out, shape: outShape, stride: outStrides, dataType };
  }

  /**
   * Reads bytes [start, end) of an uncompressed chunk (see
   * `CodecPipeline.supportsRangeRead`) and copies the selected elements, which
   * all lie there, into the output. The stored size is read beside the range
   * (one `getSize`: a stat, or a HEAD request) and must be exactly the chunk's
   * encoded size, as a whole-chunk read requires: a truncated, extended or
   * stale chunk is a `CodecError` whatever the selection. `"missing"` when the
   * chunk is not stored; `"changed"` when it was written or erased between the
   * two requests (the caller then reads it whole).
   */
  async #readSpan(
    key: string,
    [start, end]: readonly [number, number],
    target: ChunkTarget,
    options: GetOptions,
  ): Promise<"read" | "missing" | "changed"> {
    const codecs = this.#parts.codecs;
    const expected = codecs.encodedSize!;
    const [part, size] = await Promise.all([
      this.store.get(key, { offset: start, length: end - start }, options),
      this.store.getSize(key, options),
    ]);
    if (part === undefined) return size === undefined ? "missing" : "changed";
    try {
      if (size === undefined) return "changed";
      if (size !== expected) {
        throw new CodecError(
          `chunk "${key}" is ${size} bytes, expected ${expected} (its shape times the item size)`,
          { path: key },
        );
      }
      if (part.length !== end - start) return "changed";
      // The span's elements, decoded by the bytes codec as a 1-d run, then
      // copied from their chunk positions shifted by the span's first element.
      const { dataType, fillValue, shape } = codecs.spec;
      const itemBytes = expected / this.#d().chunkLength;
      const first = start / itemBytes;
      const run = await codecs.arrayToBytes.decode(
        part,
        { shape: [(end - start) / itemBytes], dataType, fillValue },
        options,
      );
      const src = resolveAxes(target.chunkSel, cStrides(shape));
      copyStrided(
        run.data,
        src.offset - first,
        src.axes,
        src.strides,
        target.out,
        0,
        target.outAxes,
        target.outStrides,
        dataType.width,
      );
    } finally {
      this.store.release(part);
    }
    return "read";
  }

  /** A caller's output array, checked to fit a read of `length` elements. */
  #checkOut(out: DataArray, length: number): DataArray {
    const like = this.dataType.allocate(0);
    const sameKind = ArrayBuffer.isView(like)
      ? ArrayBuffer.isView(out) && out.constructor === like.constructor
      : Array.isArray(out);
    if (!sameKind || out.length !== length * this.dataType.width) {
      throw new ValueError(
        `${this.path || "/"}: option "out" must be a ${like.constructor.name} of ${length * this.dataType.width} slots for this selection, got ${out?.constructor?.name ?? typeof out}${out?.length === undefined ? "" : ` of ${out.length}`}`,
        { path: this.path },
      );
    }
    return out;
  }

  /** Ranged access to one stored chunk, for partial decoders. */
  #byteGetter(coords: readonly number[]): ByteGetter {
    const key = this.chunkKey(coords);
    const store = this.store;
    return {
      cacheKey: key,
      cacheScope: store.inner,
      get: (range, options) => store.get(key, range, options),
      getMany: (ranges, options) =>
        store.getPartialValues(
          ranges.map((range) => ({ key, range })),
          options,
        ),
    };
  }

  /**
   * Writes `value` into a selection: a scalar is broadcast; an array must have
   * the selection's shape (flat C order, or `{data, shape, stride?}`).
   * Partially covered chunks are read, modified and written back; chunks that
   * end up equal to the fill value are erased unless `writeEmptyChunks`.
   */
  set(selection: Selection, value: ArrayValue, options: SetOptions = {}): Promise<void> {
    return guardAllocation(this.path, "this write", () => this.#set(selection, value, options));
  }

  async #set(selection: Selection, value: ArrayValue, options: SetOptions = {}): Promise<void> {
    const sel = normalizeSelection(selection, this.shape, this.path);
    const dataType = this.dataType;
    const width = dataType.width;
    const source = this.#valueSource(value, sel.shape);
    const { chunkLength: chunkLen, chunkStrides, chunkShape, zeroFill } = this.#d();
    // Chunk buffers written out by a store that keeps no reference to them serve
    // the next chunks (no fresh memory, and its page faults, per chunk).
    const spare: DataArray[] | undefined =
      this.store.copiesOnSet && ArrayBuffer.isView(dataType.allocate(0)) ? [] : undefined;
    await forEachConcurrent(
      projectChunks(sel, this.shape, this.chunkShape),
      options.concurrency ?? DEFAULT_CONCURRENCY,
      async (p: ChunkProjection) => {
        const key = this.chunkKey(p.chunkCoords);
        await withKeyLock(this.store, key, () =>
          this.#keyed(key, async () => {
            throwIfAborted(options.signal, key);
            let data: DataArray;
            const existing = p.complete ? undefined : await this.#readChunk(p.chunkCoords, options);
            const reused = existing ? undefined : spare?.pop();
            if (existing) {
              data = existing.data;
            } else if (reused !== undefined) {
              data = reused;
              // Old contents: refill what the selection does not overwrite.
              if (!coversChunk(p.chunkSel, chunkShape)) {
                dataType.fill(data, this.fillValue, 0, chunkLen);
              }
            } else {
              data = dataType.allocate(chunkLen);
              // A fresh typed array already holds an all-zero-bits fill value.
              if (!zeroFill) dataType.fill(data, this.fillValue, 0, chunkLen);
            }
            const dst = resolveAxes(p.chunkSel, chunkStrides);
            if (source.kind === "scalar") {
              fillStrided(data, dst.offset, dst.axes, dst.strides, source.slots, width);
            } else {
              copyStrided(
                source.data,
                source.offset,
                p.outAxes,
                source.strides,
                data,
                dst.offset,
                dst.axes,
                dst.strides,
                width,
              );
            }
            await this.#storeChunk(key, data, options, existing === undefined);
            // Reusable unless a worker pool took (detached) it.
            if (spare !== undefined && !existing && (data as ArrayBufferView).byteLength > 0) {
              spare.push(data);
            }
          }),
        );
      },
      options.signal,
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
  ): Promise<NDArray> {
    return guardAllocation(this.path, "this read", () => this.#getCoordinates(coords, options));
  }

  async #getCoordinates(
    coords: readonly (readonly number[] | Int32Array)[],
    options: GetOptions = {},
  ): Promise<NDArray> {
    const points = this.#normalizePoints(coords);
    const dataType = this.dataType;
    const width = dataType.width;
    const out = dataType.allocate(points.count);
    // Copied slot by slot: float32 through integer views, bit for bit (NaN payloads).
    const slots = bitExact(out);
    const fillSlots = bitExact(this.#d().fill);
    await forEachConcurrent(
      points.byChunk.values(),
      options.concurrency ?? DEFAULT_CONCURRENCY,
      async (group) => {
        const chunk = await this.#readChunk(group.coords, options);
        for (let j = 0; j < group.positions.length; j++) {
          const at = group.positions[j] * width;
          if (chunk === undefined) {
            for (let w = 0; w < width; w++)
              (slots as unknown[])[at + w] = (fillSlots as unknown[])[w];
          } else {
            const from = group.offsets[j] * width;
            const src = bitExact(chunk.data);
            for (let w = 0; w < width; w++)
              (slots as unknown[])[at + w] = (src as unknown[])[from + w];
          }
        }
      },
      options.signal,
    );
    return { data: out, shape: [points.count], stride: [1], dataType };
  }

  /** Writes `value` (a scalar, or one element per point) at the points of a coordinate selection. */
  setCoordinates(
    coords: readonly (readonly number[] | Int32Array)[],
    value: Scalar | DataArray,
    options: SetOptions = {},
  ): Promise<void> {
    return guardAllocation(this.path, "this write", () =>
      this.#setCoordinates(coords, value, options),
    );
  }

  async #setCoordinates(
    coords: readonly (readonly number[] | Int32Array)[],
    value: Scalar | DataArray,
    options: SetOptions = {},
  ): Promise<void> {
    const points = this.#normalizePoints(coords);
    const source = this.#valueSource(value as ArrayValue, [points.count]);
    const dataType = this.dataType;
    const width = dataType.width;
    const chunkLen = product(this.chunkSpec.shape);
    await forEachConcurrent(
      points.byChunk.values(),
      options.concurrency ?? DEFAULT_CONCURRENCY,
      async (group) => {
        const key = this.chunkKey(group.coords);
        await withKeyLock(this.store, key, () =>
          this.#keyed(key, async () => {
            const existing = await this.#readChunk(group.coords, options);
            let data: DataArray;
            if (existing) data = existing.data;
            else {
              data = dataType.allocate(chunkLen);
              dataType.fill(data, this.fillValue, 0, chunkLen);
            }
            const target = bitExact(data) as unknown[];
            const from = bitExact(
              source.kind === "scalar" ? source.slots : source.data,
            ) as unknown[];
            for (let j = 0; j < group.positions.length; j++) {
              const to = group.offsets[j] * width;
              const at = source.kind === "scalar" ? 0 : group.positions[j] * width;
              for (let w = 0; w < width; w++) target[to + w] = from[at + w];
            }
            await this.#storeChunk(key, data, options, existing === undefined);
          }),
        );
      },
      options.signal,
    );
  }

  /** Validates point coordinates and groups them by chunk (offsets are C-order within the chunk). */
  #normalizePoints(coords: readonly (readonly number[] | Int32Array)[]): {
    count: number;
    byChunk: Map<string, { coords: number[]; positions: number[]; offsets: number[] }>;
  } {
    const shape = this.shape;
    const where = this.path || "/";
    if (coords.length !== shape.length) {
      throw new IndexError(
        `${where}: coordinate selection needs ${shape.length} index arrays, got ${coords.length}`,
        {
          path: this.path,
        },
      );
    }
    const count = shape.length === 0 ? 1 : coords[0].length;
    if (coords.some((c) => c.length !== count)) {
      throw new IndexError(`${where}: coordinate index arrays must all have the same length`, {
        path: this.path,
      });
    }
    const chunkShape = this.chunkShape;
    const strides = cStrides(chunkShape);
    const byChunk = new Map<string, { coords: number[]; positions: number[]; offsets: number[] }>();
    for (let k = 0; k < count; k++) {
      const chunkCoords: number[] = [];
      let offset = 0;
      for (let d = 0; d < shape.length; d++) {
        let i = Number(coords[d][k]);
        if (!Number.isInteger(i) || i < -shape[d] || i >= shape[d]) {
          throw new IndexError(
            `${where}: index ${coords[d][k]} is out of bounds for dimension ${d} of length ${shape[d]}`,
            { path: this.path },
          );
        }
        if (i < 0) i += shape[d];
        chunkCoords.push(Math.floor(i / chunkShape[d]));
        offset += (i % chunkShape[d]) * strides[d];
      }
      const id = chunkCoords.join(",");
      let group = byChunk.get(id);
      if (!group) {
        group = { coords: chunkCoords, positions: [], offsets: [] };
        byChunk.set(id, group);
      }
      group.positions.push(k);
      group.offsets.push(offset);
    }
    return { count, byChunk };
  }

  #valueSource(
    value: ArrayValue,
    shape: readonly number[],
  ):
    | { kind: "scalar"; slots: DataArray }
    | { kind: "array"; data: DataArray; offset: number; strides: readonly number[] } {
    const dataType = this.dataType;
    const n = product(shape);
    if (isNDArrayLike(value)) {
      const vshape = value.shape;
      if (vshape.length !== shape.length || vshape.some((s, i) => s !== shape[i])) {
        throw new ValueError(
          `${this.path || "/"}: value of shape [${vshape.join(", ")}] does not match the selection shape [${shape.join(", ")}]`,
          { path: this.path },
        );
      }
      this.#checkDataKind(value.data, n);
      return {
        kind: "array",
        data: value.data,
        offset: 0,
        strides: value.stride ?? cStrides(shape),
      };
    }
    const isRawScalar =
      dataType.kind === "raw" && value instanceof Uint8Array && value.length === dataType.width;
    const isBytesScalar = dataType.kind === "bytes" && value instanceof Uint8Array;
    // Complex data is a typed array; a plain [re, im] pair is one value.
    const isComplexScalar =
      dataType.kind === "complex" && Array.isArray(value) && value.length === 2;
    if (isDataArray(value) && !isRawScalar && !isBytesScalar && !isComplexScalar) {
      this.#checkDataKind(value, n);
      return { kind: "array", data: value, offset: 0, strides: cStrides(shape) };
    }
    const fill = dataType.fromScalar(value, this.path);
    const slots = dataType.allocate(1);
    dataType.fill(slots, fill, 0, 1);
    return { kind: "scalar", slots };
  }

  #checkDataKind(data: DataArray, n: number): void {
    const expected = this.dataType.allocate(0);
    if (data.constructor !== expected.constructor) {
      throw new ValueError(
        `${this.path || "/"}: value is a ${data.constructor.name}, expected a ${expected.constructor.name} for ${this.dataType.name}`,
        { path: this.path },
      );
    }
    if (data.length < n * this.dataType.width) {
      throw new ValueError(
        `${this.path || "/"}: value has ${data.length} slots, the selection needs ${n * this.dataType.width}`,
        { path: this.path },
      );
    }
  }

  /** Replaces the user attributes and writes the metadata. */
  async setAttributes(
    attributes: JsonObject,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    throwIfAborted(options.signal, this.path);
    await this.#writeMeta({ ...this.#parts.meta, attributes: { ...attributes } });
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
    if (shape.length !== this.ndim || shape.some((s) => !Number.isSafeInteger(s) || s < 0)) {
      throw new ValueError(
        `${this.path || "/"}: resize needs ${this.ndim} non-negative integers, got [${shape.join(", ")}]`,
        { path: this.path },
      );
    }
    const plan = resizePlan(this.shape, shape, this.chunkShape, this.gridShape, {
      clearEdges: options.clearEdges === true,
    });
    const signal = options.signal;
    const keyOf = (coords: readonly number[]) => this.chunkKey(coords);
    if (plan.edgeChunks <= EDGE_ENUMERATION_LIMIT || !this.store.listable) {
      // Few changed chunks, or no listing: walk the changed region lazily, twice.
      for (const coords of plan.edge()) {
        throwIfAborted(signal, this.path);
        if (!plan.isDoomed(coords)) await this.#clearChunkOutside(coords, shape, signal);
      }
      await this.#writeMeta({ ...this.#parts.meta, shape: [...shape] });
      await this.#eraseInBatches(
        mapIterable(filterIterable(plan.edge(), plan.isDoomed), keyOf),
        options,
      );
      return;
    }
    // Many: touch only the stored ones (listed before anything changes).
    const doomed: string[] = [];
    const straddling: number[][] = [];
    for await (const { key, coords } of this.storedChunks({ signal })) {
      if (plan.isDoomed(coords)) doomed.push(key);
      else if (plan.isStraddling(coords)) straddling.push(coords);
    }
    for (const coords of straddling) await this.#clearChunkOutside(coords, shape, signal);
    await this.#writeMeta({ ...this.#parts.meta, shape: [...shape] });
    await this.#eraseInBatches(doomed, options);
  }

  async #eraseInBatches(keys: Iterable<string>, options: { signal?: AbortSignal }): Promise<void> {
    let batch: string[] = [];
    for (const key of keys) {
      batch.push(key);
      if (batch.length === ERASE_BATCH) {
        await this.store.eraseValues(batch, options);
        batch = [];
      }
    }
    if (batch.length > 0) await this.store.eraseValues(batch, options);
  }

  /** Resets the elements of chunk `coords` that lie outside `newShape` to the fill value. */
  async #clearChunkOutside(
    coords: readonly number[],
    newShape: readonly number[],
    signal?: AbortSignal,
  ): Promise<void> {
    const chunk = this.chunkShape;
    const old = this.shape;
    for (let d = 0; d < old.length; d++) {
      const lo = coords[d] * chunk[d];
      const hi = Math.min(lo + chunk[d], old[d]);
      if (newShape[d] <= lo || newShape[d] >= hi) continue;
      const sel: Selection = old.map((_, e) =>
        e === d
          ? slice(newShape[d], hi)
          : slice(coords[e] * chunk[e], Math.min((coords[e] + 1) * chunk[e], old[e])),
      );
      await this.set(sel, this.fillValue.value, { signal });
    }
  }

  async #writeMeta(meta: ArrayMetadataV3): Promise<void> {
    if (this.#parts.writeMetadata) {
      await this.#parts.writeMetadata(this.store, this.path, meta);
    } else {
      await this.store.set(
        childKey(this.path, "zarr.json"),
        encodeMetadata(serializeArrayMetadataV3(meta)),
      );
    }
    this.#parts = await this.#parts.rebuild(meta);
  }

  /** Keys of the chunks that are stored (requires a listable store). */
  async *storedChunks(
    options: { signal?: AbortSignal } = {},
  ): AsyncGenerator<{ key: string; coords: number[] }> {
    const prefix = this.path ? `${this.path}/` : "";
    const grid = this.gridShape;
    for await (const key of this.store.listPrefix(prefix, options)) {
      const coords = this.#parts.keyEncoding.decode(key.slice(prefix.length), this.ndim);
      if (coords?.every((c, i) => c < grid[i])) yield { key, coords };
    }
  }
}

/** Per-metadata constants of an array, cached by {@link ZarrArray}. */
interface Derived {
  readonly parts: ArrayParts;
  /** One element of the fill value. */
  readonly fill: DataArray;
  /** The fill value is all zero bits in a typed array (what `allocate` returns). */
  readonly zeroFill: boolean;
  readonly chunkShape: readonly number[];
  readonly chunkStrides: number[];
  readonly chunkLength: number;
  readonly context: { format: 2 | 3; path: string };
}

/** The selection writes every element of a chunk of `shape` (padding included). */
function coversChunk(sel: readonly (number | Axis)[], shape: readonly number[]): boolean {
  for (let d = 0; d < shape.length; d++) {
    const s = sel[d];
    if (typeof s === "number") {
      if (shape[d] !== 1) return false;
    } else if ("indices" in s) {
      return false; // index arrays may repeat positions and miss others
    } else if (s.count !== shape[d]) {
      return false; // a slice of count == extent covers it whatever its direction
    }
  }
  return true;
}

/** The smallest box (per dimension [start, stop)) holding every selected element of a chunk. */
function boundingRegion(sel: readonly (number | Axis)[]): ChunkRegion {
  return sel.map((s): readonly [number, number] => {
    if (typeof s === "number") return [s, s + 1];
    if ("indices" in s) {
      let lo = Number.POSITIVE_INFINITY;
      let hi = Number.NEGATIVE_INFINITY;
      for (const i of s.indices) {
        if (i < lo) lo = i;
        if (i > hi) hi = i;
      }
      return [lo, hi + 1];
    }
    const last = s.start + (s.count - 1) * s.step;
    return s.step > 0 ? [s.start, last + 1] : [last, s.start + 1];
  });
}

/** Re-bases a chunk selection onto a region starting at `region[d][0]`. */
function shiftSelection(sel: readonly (number | Axis)[], region: ChunkRegion): (number | Axis)[] {
  return sel.map((s, d) => {
    const lo = region[d][0];
    if (typeof s === "number") return s - lo;
    if ("indices" in s) return { indices: s.indices.map((i) => i - lo) };
    return { start: s.start - lo, step: s.step, count: s.count };
  });
}

/** Above this many chunks in the changed region, a resize lists stored chunks instead. */
const EDGE_ENUMERATION_LIMIT = 65_536;
/** Keys erased per `eraseValues` call of a resize. */
const ERASE_BATCH = 1_000;

/** Which chunks a resize from `oldShape` to `newShape` touches. */
interface ResizePlan {
  /** Chunks in the changed region (as a float: it may be beyond 2^53). */
  readonly edgeChunks: number;
  /** The chunk lies outside the new grid: it is erased. */
  isDoomed(coords: readonly number[]): boolean;
  /** The chunk stays but holds elements outside the new shape (only with `clearEdges`). */
  isStraddling(coords: readonly number[]): boolean;
  /** Every chunk of the changed region, lazily. */
  edge(): Generator<number[]>;
}

function resizePlan(
  oldShape: readonly number[],
  newShape: readonly number[],
  chunk: readonly number[],
  oldGrid: readonly number[],
  { clearEdges }: { clearEdges: boolean },
): ResizePlan {
  const n = oldShape.length;
  const newGrid = newShape.map((s, d) => Math.ceil(s / chunk[d]));
  const kept = oldGrid.map((g, d) => Math.min(g, newGrid[d]));
  // Dimensions that shrink to the middle of a chunk: that chunk row keeps stale elements.
  const cut = clearEdges
    ? oldShape.flatMap((s, d) => (newShape[d] < s && newShape[d] % chunk[d] !== 0 ? [d] : []))
    : [];
  const cutIndex = (d: number) => Math.floor(newShape[d] / chunk[d]);
  const product = (xs: readonly number[]) => xs.reduce((a, b) => a * b, 1);
  let edgeChunks = product(oldGrid) - product(kept);
  for (const d of cut) edgeChunks += product(kept.filter((_, e) => e !== d));
  return {
    edgeChunks,
    isDoomed: (coords) => coords.some((c, d) => c >= newGrid[d]),
    isStraddling: (coords) =>
      cut.some((d) => coords[d] === cutIndex(d)) && coords.every((c, d) => c < newGrid[d]),
    *edge() {
      // The removed region, as disjoint slabs: dimension d beyond the new grid, earlier
      // dimensions within it, later ones anywhere in the old grid.
      for (let d = 0; d < n; d++) {
        if (newGrid[d] >= oldGrid[d]) continue;
        const lo = oldGrid.map((_, e) => (e === d ? newGrid[d] : 0));
        const hi = oldGrid.map((g, e) => (e < d ? kept[e] : g));
        yield* boxCoords(lo, hi);
      }
      for (const d of cut) {
        const lo = kept.map((_, e) => (e === d ? cutIndex(d) : 0));
        const hi = kept.map((k, e) => (e === d ? cutIndex(d) + 1 : k));
        yield* boxCoords(lo, hi);
      }
    },
  };
}

function* filterIterable<T>(items: Iterable<T>, keep: (item: T) => boolean): Generator<T> {
  for (const item of items) if (keep(item)) yield item;
}

function* mapIterable<T, U>(items: Iterable<T>, fn: (item: T) => U): Generator<U> {
  for (const item of items) yield fn(item);
}

/** Every coordinate of the box [lo, hi) in C order. */
function* boxCoords(lo: readonly number[], hi: readonly number[]): Generator<number[]> {
  if (lo.some((l, d) => l >= hi[d])) return;
  const idx = [...lo];
  while (true) {
    yield [...idx];
    let d = idx.length - 1;
    while (d >= 0) {
      idx[d]++;
      if (idx[d] < hi[d]) break;
      idx[d] = lo[d];
      d--;
    }
    if (d < 0) return;
  }
}

/** Every coordinate of a grid in C order. */
export function* gridCoords(grid: readonly number[]): Generator<number[]> {
  if (grid.some((g) => g === 0)) return;
  const idx = new Array<number>(grid.length).fill(0);
  while (true) {
    yield [...idx];
    let d = grid.length - 1;
    while (d >= 0) {
      idx[d]++;
      if (idx[d] < grid[d]) break;
      idx[d] = 0;
      d--;
    }
    if (d < 0) return;
  }
}

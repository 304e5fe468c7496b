/**
 * What every path of a Zarr array (read, write, coordinate selection, resize)
 * shares: the store and node path, the parts derived from the metadata, and
 * reading one stored chunk with its bounds, its decode budget and its key in
 * errors. `ZarrArray` holds one; the paths are functions of it, so the write,
 * coordinate and resize paths load only when called.
 *
 * @module
 */

import { chunkCacheTag } from "../cache/tag.js";
import { reserveDecodeBytes, resolveDecodeLimits } from "../codecs/limits.js";
import type { ByteGetter, ChunkSpec, NDArray } from "../codecs/types.js";
import type { DataArray } from "../dtypes/types.js";
import { CodecError, IndexError, ValueTooLargeError } from "../errors.js";
import { childKey } from "../hierarchy/paths.js";
import { cStrides } from "../indexing/index.js";
import type { Store } from "../store/types.js";
import { product } from "../util/grid.js";
import type { ChunkCodecWorkers } from "../workers/types.js";
import type { ArrayParts, GetOptions } from "./types.js";

/** Process-wide defaults (`ZarrArray.defaultWorkers` reads and writes them). */
export const arrayDefaults: { workers: ChunkCodecWorkers | undefined } = { workers: undefined };

/** Per-metadata constants of an array, computed once per metadata version. */
export interface Derived {
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

/** The shared state and chunk reading of one `ZarrArray`. */
export class ArrayContext {
  #parts: ArrayParts;
  #derived: Derived | undefined;

  constructor(
    readonly store: Store,
    readonly path: string,
    parts: ArrayParts,
  ) {
    this.#parts = parts;
  }

  /** The parts derived from the current metadata. */
  get parts(): ArrayParts {
    return this.#parts;
  }

  /** Replaces the parts after a metadata change (resize, attributes). */
  set parts(parts: ArrayParts) {
    this.#parts = parts;
  }

  get shape(): readonly number[] {
    return this.#parts.meta.shape;
  }

  /** The shape of one (outer) chunk. */
  get chunkShape(): readonly number[] {
    return this.#parts.grid.chunkShape;
  }

  get chunkSpec(): ChunkSpec {
    return this.#parts.codecs.spec;
  }

  /** `path`, or `/` for the root, as errors show it. */
  get where(): string {
    return this.path || "/";
  }

  /** The store key of the chunk at grid coordinates `coords`. */
  chunkKey(coords: readonly number[]): string {
    return childKey(this.path, this.#parts.keyEncoding.encode(coords));
  }

  /** Throws `IndexError` unless `coords` lies inside the chunk grid. */
  checkCoords(coords: readonly number[]): void {
    const grid = this.#parts.grid.gridShape(this.shape);
    if (
      coords.length !== grid.length ||
      coords.some((c, i) => !Number.isInteger(c) || c < 0 || c >= grid[i])
    ) {
      throw new IndexError(
        `${this.where}: chunk coordinates [${coords.join(", ")}] outside the chunk grid [${grid.join(", ")}]`,
        { path: this.path },
      );
    }
  }

  /** Values derived from the current parts, computed once per metadata version. */
  derived(): Derived {
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

  /** The worker pool an operation runs codecs in, if any. */
  workers(options: GetOptions): ChunkCodecWorkers | undefined {
    return options.workers === false ? undefined : (options.workers ?? arrayDefaults.workers);
  }

  /**
   * Runs `fn` for the chunk at `coords` (or key) and names that chunk's key in
   * codec errors, which otherwise only name the array's metadata document.
   */
  keyed<T>(chunk: readonly number[] | string, fn: () => Promise<T>): Promise<T> {
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
  bounded<O extends GetOptions>(options: O): O & { maxBytes: number } {
    const limits = resolveDecodeLimits(options.decodeLimits);
    return { ...options, maxBytes: this.#parts.codecs.maxEncodedSize(limits) };
  }

  /** Decodes stored bytes of one chunk, in a worker when the pool takes the job. */
  decode(bytes: Uint8Array, options: GetOptions): Promise<NDArray> {
    return this.offload(bytes, options) ?? this.#parts.codecs.decode(bytes, options);
  }

  /** The worker pool's decoding of a chunk, or `undefined` when it declines the job. */
  offload(bytes: Uint8Array, options: GetOptions): Promise<NDArray> | undefined {
    return this.workers(options)?.decode(
      this.#parts.codecs,
      bytes,
      this.derived().context,
      options,
    );
  }

  /** Reads and decodes the chunk at `coords` (already validated). */
  readChunk(coords: readonly number[], options: GetOptions): Promise<NDArray | undefined> {
    return this.keyed(coords, async () => {
      const bytes = await this.store.get(this.chunkKey(coords), undefined, this.bounded(options));
      if (bytes === undefined) return undefined;
      return this.budgeted(options, () => this.decode(bytes, options));
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
  async budgeted<T>(options: GetOptions, fn: () => Promise<T>): Promise<T> {
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

  /** Ranged access to one stored chunk, for partial decoders. */
  byteGetter(coords: readonly number[]): ByteGetter {
    const key = this.chunkKey(coords);
    const store = this.store;
    const parts = this.#parts;
    return {
      cacheKey: key,
      cacheScope: store.inner,
      get cacheTag() {
        return chunkCacheTag(parts);
      },
      get: (range, options) => store.get(key, range, options),
      getMany: (ranges, options) =>
        store.getPartialValues(
          ranges.map((range) => ({ key, range })),
          options,
        ),
    };
  }
}

/**
 * Chunk manifest files (spec v2, "Chunk Manifest Files"; `manifest.fbs`):
 * chunk references of one or more arrays, each native (a chunk file of the
 * repository), inline (the bytes themselves) or virtual (a URL, offset and
 * length). Icechunk 2 may store the URL of a virtual chunk compressed with
 * zstd and a dictionary that the manifest carries (`compressed_location`,
 * `location_dictionary`; by default in manifests of 1000 or more virtual
 * chunks).
 *
 * @module
 */

import { decompressWithDictionary, ZSTD_DICTIONARY_REQUIREMENT } from "@zarr/codec-zstd";
import { CodecError, UnsupportedError } from "@zarr/core";
import { IcechunkFormatError } from "./errors.js";
import { type FlatBuffer, type Table, utf8, type VectorView } from "./flatbuffers.js";
import { compareBytes, encodeId } from "./ids.js";

/**
 * The longest URL a `compressed_location` may decompress to: 64 KiB, far
 * above any real URL (Icechunk itself reads at most 1 KiB), and the bound of
 * the output buffer.
 */
export const MAX_LOCATION_BYTES = 64 * 1024;
/** `Manifest.compression_algorithm` (manifest.fbs): 0 none, 1 zstd with `location_dictionary`. */
const COMPRESSION_NONE = 0;
const COMPRESSION_ZSTD_DICTIONARY = 1;

/** Where the bytes of one chunk are. */
export type ChunkLocation =
  | { kind: "inline"; bytes: Uint8Array }
  | { kind: "native"; chunkId: string; offset: number; length: number }
  | {
      kind: "virtual";
      url: string;
      offset: number;
      length: number;
      /** The target's ETag when the reference was written, if recorded. */
      etag?: string;
      /** The target's last-modified time (seconds since the epoch), if recorded. */
      lastModified?: number;
    };

/** A decoded manifest: chunk references looked up by node id and chunk coordinates. */
export class Manifest {
  readonly #fb: FlatBuffer;
  readonly #root: Table;
  readonly #arrays: VectorView;
  readonly #indexes = new Map<number, RefIndex>();
  /** `location_dictionary` (a view of the file; absent or empty: `undefined`). */
  readonly #dictionary: Uint8Array | undefined;
  /** `compression_algorithm` (default 1). */
  readonly #algorithm: number;

  constructor(fb: FlatBuffer) {
    this.#fb = fb;
    this.#root = fb.root("Manifest");
    this.#root.requiredStruct(0, 12, "id");
    this.#arrays = this.#root.requiredVector(1, 4, "arrays");
    const dictionary = this.#root.bytes(2, "location_dictionary");
    this.#dictionary = dictionary?.length ? dictionary : undefined;
    this.#algorithm = this.#root.u8(3, COMPRESSION_ZSTD_DICTIONARY);
  }

  /** The id of the manifest (its file name). */
  get id(): string {
    return encodeId(this.#root.requiredStruct(0, 12, "id"));
  }

  /** The chunk references of node `nodeId`, indexed on first use (their coordinates checked sorted). */
  #refsOf(nodeId: Uint8Array, ndim: number): RefIndex | undefined {
    for (let i = 0; i < this.#arrays.length; i++) {
      const array = this.#root.tableAt(this.#arrays, i, `Manifest.arrays[${i}]`);
      if (compareBytes(array.requiredStruct(0, 8, "node_id"), nodeId) !== 0) continue;
      let index = this.#indexes.get(i);
      if (index === undefined) {
        index = this.#buildIndex(array, ndim, i);
        this.#indexes.set(i, index);
      }
      return index;
    }
    return undefined;
  }

  /**
   * Reads every ref's coordinates into one flat array (`ndim` numbers per
   * ref: 4 bytes per coordinate, bounded by the manifest's own size), checking
   * that each has `ndim` of them and that they ascend, as manifest.fbs
   * requires: lookups bisect it without touching the flatbuffer.
   */
  #buildIndex(array: Table, ndim: number, i: number): RefIndex {
    const refs = array.requiredVector(1, 4, "refs");
    // each ref holds its own index vector (4 bytes a coordinate), so a manifest
    // cannot justify more coordinates than it has bytes / 4; refs sharing one
    // vector could otherwise make this index quadratic in the file's size
    if (refs.length * ndim * 4 > this.#fb.bytes.length) {
      this.#fb.fail(
        `Manifest.arrays[${i}] has ${refs.length} refs of ${ndim} coordinates, more than its ${this.#fb.bytes.length} bytes hold`,
      );
    }
    const coords = new Uint32Array(refs.length * ndim);
    const tables = new Uint32Array(refs.length);
    for (let r = 0; r < refs.length; r++) {
      const ref = array.tableAt(refs, r, `Manifest.arrays[${i}].refs[${r}]`);
      const v = ref.requiredVector(0, 4, "index");
      if (v.length !== ndim) {
        this.#fb.fail(
          `Manifest.arrays[${i}].refs[${r}] has ${v.length} coordinates, the array has ${ndim} dimensions`,
        );
      }
      for (let d = 0; d < ndim; d++) coords[r * ndim + d] = this.#fb.u32(v.start + 4 * d);
      if (r > 0 && compareAt(coords, (r - 1) * ndim, coords, r * ndim, ndim) >= 0) {
        this.#fb.fail(`Manifest.arrays[${i}].refs are not sorted by chunk index (at ref ${r})`);
      }
      tables[r] = ref.pos;
    }
    return { coords, tables, ndim };
  }

  /**
   * The location of chunk `coords` of node `nodeId`, or `undefined` when this
   * manifest has none (asynchronous: compressed virtual locations are
   * decompressed). `key`, the chunk's store key, names it in errors.
   */
  async find(
    nodeId: Uint8Array,
    ndim: number,
    coords: readonly number[],
    key?: string,
  ): Promise<ChunkLocation | undefined> {
    const index = this.#refsOf(nodeId, ndim);
    if (index === undefined) return undefined;
    const target = Uint32Array.from(coords);
    let lo = 0;
    let hi = index.tables.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = compareAt(index.coords, mid * ndim, target, 0, ndim);
      if (c === 0)
        return this.#location(this.#fb.table(index.tables[mid], `ChunkRef ${mid}`), coords, key);
      if (c < 0) lo = mid + 1;
      else hi = mid;
    }
    return undefined;
  }

  /** Every chunk index of node `nodeId` in this manifest, in order. */
  *indices(nodeId: Uint8Array, ndim: number): Generator<number[]> {
    const index = this.#refsOf(nodeId, ndim);
    if (index === undefined) return;
    for (let r = 0; r < index.tables.length; r++) {
      yield Array.from(index.coords.subarray(r * ndim, (r + 1) * ndim));
    }
  }

  async #location(ref: Table, coords: readonly number[], key?: string): Promise<ChunkLocation> {
    const what = key === undefined ? `chunk [${coords.join(", ")}]` : `chunk ${key}`;
    const inline = ref.bytes(1, "inline");
    if (inline !== undefined) return { kind: "inline", bytes: inline };
    const offset = ref.u64(2, "offset");
    const length = ref.u64(3, "length");
    const chunkId = ref.struct(4, 12);
    if (chunkId !== undefined)
      return { kind: "native", chunkId: encodeId(chunkId), offset, length };
    // as Icechunk reads them: a compressed location before a plain one
    const compressed = ref.bytes(8, "compressed_location");
    const url =
      compressed !== undefined
        ? await this.#decompressLocation(compressed, what)
        : ref.string(5, "location");
    if (url !== undefined) {
      const etag = ref.string(6, "checksum_etag");
      const lastModified = ref.u32(7);
      return {
        kind: "virtual",
        url,
        offset,
        length,
        ...(etag !== undefined ? { etag } : {}),
        ...(lastModified !== 0 ? { lastModified } : {}),
      };
    }
    return this.#fb.fail(`${what} is neither inline, native nor virtual`);
  }

  /**
   * The URL a `compressed_location` holds: one zstd frame written with the
   * manifest's `location_dictionary` (manifest.fbs), at most
   * {@link MAX_LOCATION_BYTES} of UTF-8. A manifest without the dictionary or
   * with another `compression_algorithm`, a corrupt frame or a wrong
   * dictionary is an {@link IcechunkFormatError} naming the file and chunk.
   */
  async #decompressLocation(compressed: Uint8Array, what: string): Promise<string> {
    const file = this.#fb.file;
    if (this.#algorithm !== COMPRESSION_ZSTD_DICTIONARY) {
      const name = this.#algorithm === COMPRESSION_NONE ? " (none)" : " (unknown)";
      this.#fb.fail(
        `${what} has a compressed_location, but the manifest's compression_algorithm is ` +
          `${this.#algorithm}${name}: 1 (zstd with location_dictionary) is the only one for them`,
      );
    }
    if (this.#dictionary === undefined) {
      this.#fb.fail(
        `${what} has a compressed_location, but the manifest has no location_dictionary`,
      );
    }
    let bytes: Uint8Array;
    try {
      bytes = await decompressWithDictionary(compressed, this.#dictionary, MAX_LOCATION_BYTES);
    } catch (e) {
      if (e instanceof UnsupportedError) {
        throw new UnsupportedError(
          `icechunk file ${file}: ${what} has a zstd-dictionary-compressed virtual location ` +
            "(Icechunk 2 writes them in manifests with 1000 or more virtual chunks); reading it needs " +
            `${ZSTD_DICTIONARY_REQUIREMENT}, whose node:zlib decompresses zstd with a dictionary ` +
            "(browsers and Node 20 cannot)",
          { path: file, cause: e },
        );
      }
      if (e instanceof CodecError) {
        throw new IcechunkFormatError(
          `icechunk file ${file}: ${what}: its compressed_location cannot be decompressed with the ` +
            `manifest's location_dictionary: ${e.message}`,
          { path: file, cause: e },
        );
      }
      throw e;
    }
    return utf8(this.#fb, bytes, `${what}.compressed_location`);
  }
}

/** The refs of one array: coordinates laid end to end (`ndim` per ref) and the positions of the ref tables. */
interface RefIndex {
  coords: Uint32Array;
  tables: Uint32Array;
  ndim: number;
}

/** Compares `n` coordinates of `a` from `i` with those of `b` from `j`. */
function compareAt(a: Uint32Array, i: number, b: Uint32Array, j: number, n: number): number {
  for (let d = 0; d < n; d++) if (a[i + d] !== b[j + d]) return a[i + d] - b[j + d];
  return 0;
}

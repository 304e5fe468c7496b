/**
 * Chunk manifest files (spec v2, "Chunk Manifest Files"; `manifest.fbs`):
 * chunk references of one or more arrays, each native (a chunk file of the
 * repository), inline (the bytes themselves) or virtual (a URL, offset and
 * length).
 *
 * @module
 */

import { UnsupportedError } from "@zarr/core";
import type { FlatBuffer, Table, VectorView } from "./flatbuffers.js";
import { compareBytes, encodeId } from "./ids.js";

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
  readonly #checked = new Set<number>();

  constructor(fb: FlatBuffer) {
    this.#fb = fb;
    this.#root = fb.root("Manifest");
    this.#root.requiredStruct(0, 12, "id");
    this.#arrays = this.#root.requiredVector(1, 4, "arrays");
  }

  /** The id of the manifest (its file name). */
  get id(): string {
    return encodeId(this.#root.requiredStruct(0, 12, "id"));
  }

  /** The chunk references of node `nodeId` (a vector of ChunkRef tables), checked sorted. */
  #refsOf(nodeId: Uint8Array, ndim: number): { table: Table; refs: VectorView } | undefined {
    for (let i = 0; i < this.#arrays.length; i++) {
      const array = this.#root.tableAt(this.#arrays, i, `Manifest.arrays[${i}]`);
      if (compareBytes(array.requiredStruct(0, 8, "node_id"), nodeId) !== 0) continue;
      const refs = array.requiredVector(1, 4, "refs");
      if (!this.#checked.has(i)) {
        this.#checkSorted(array, refs, ndim, i);
        this.#checked.add(i);
      }
      return { table: array, refs };
    }
    return undefined;
  }

  /** ChunkRef.index values MUST ascend (lookups bisect); each has `ndim` coordinates. */
  #checkSorted(array: Table, refs: VectorView, ndim: number, i: number): void {
    let previous: number[] | undefined;
    for (let r = 0; r < refs.length; r++) {
      const index = this.#index(array, refs, r);
      if (index.length !== ndim) {
        this.#fb.fail(
          `Manifest.arrays[${i}].refs[${r}] has ${index.length} coordinates, the array has ${ndim} dimensions`,
        );
      }
      if (previous !== undefined && compareCoords(previous, index) >= 0) {
        this.#fb.fail(`Manifest.arrays[${i}].refs are not sorted by chunk index (at ref ${r})`);
      }
      previous = index;
    }
  }

  #ref(array: Table, refs: VectorView, r: number): Table {
    return array.tableAt(refs, r, `ChunkRef ${r}`);
  }

  #index(array: Table, refs: VectorView, r: number): number[] {
    const ref = this.#ref(array, refs, r);
    const v = ref.requiredVector(0, 4, "index");
    const out: number[] = [];
    for (let d = 0; d < v.length; d++) out.push(this.#fb.u32(v.start + 4 * d));
    return out;
  }

  /** The location of chunk `coords` of node `nodeId`, or `undefined` when this manifest has none. */
  find(nodeId: Uint8Array, ndim: number, coords: readonly number[]): ChunkLocation | undefined {
    const found = this.#refsOf(nodeId, ndim);
    if (found === undefined) return undefined;
    const { table, refs } = found;
    let lo = 0;
    let hi = refs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = compareCoords(this.#index(table, refs, mid), coords);
      if (c === 0) return this.#location(this.#ref(table, refs, mid), coords);
      if (c < 0) lo = mid + 1;
      else hi = mid;
    }
    return undefined;
  }

  /** Every chunk index of node `nodeId` in this manifest, in order. */
  *indices(nodeId: Uint8Array, ndim: number): Generator<number[]> {
    const found = this.#refsOf(nodeId, ndim);
    if (found === undefined) return;
    for (let r = 0; r < found.refs.length; r++) yield this.#index(found.table, found.refs, r);
  }

  #location(ref: Table, coords: readonly number[]): ChunkLocation {
    const what = `chunk [${coords.join(", ")}]`;
    const inline = ref.bytes(1, "inline");
    if (inline !== undefined) return { kind: "inline", bytes: inline };
    const offset = ref.u64(2, "offset");
    const length = ref.u64(3, "length");
    const chunkId = ref.struct(4, 12);
    if (chunkId !== undefined)
      return { kind: "native", chunkId: encodeId(chunkId), offset, length };
    const url = ref.string(5, "location");
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
    if (ref.has(8)) {
      throw new UnsupportedError(
        `icechunk file ${this.#fb.file}: ${what} has a zstd-dictionary-compressed virtual location ` +
          "(Icechunk 2 writes them in manifests with 1000 or more virtual chunks); reading them is not supported yet",
        { path: this.#fb.file },
      );
    }
    return this.#fb.fail(`${what} is neither inline, native nor virtual`);
  }
}

function compareCoords(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/**
 * Parquet reference directories, as fsspec's `LazyReferenceMapper` writes
 * them (used by kerchunk and VirtualiZarr): a `.zmetadata` JSON document
 * `{"metadata": {key: document}, "record_size": N}` at the top, and for each
 * array `FIELD` (a Zarr v2 array with `FIELD/.zarray` in the metadata)
 * files `FIELD/refs.R.parq` with columns `path`, `offset`, `size`, `raw`.
 * Chunk `FIELD/i.j.k` is row `n % N` of record `R = n // N`, where `n` is the
 * chunk's row-major index in the chunk grid.
 *
 * Parquet files are decoded with hyparquet (snappy built in, zstd through
 * fzstd; other codecs through the `compressors` option). A separate entry
 * point, `@zarr/store-reference/parquet`, which `ReferenceStore.fromParquet`
 * loads on demand, so JSON-only users never load the Parquet reader.
 *
 * @module
 */

import type { DirListing } from "@zarr/core/store";
import { decompress as zstdDecompress } from "fzstd";
import {
  type ColumnData,
  type Compressors,
  type FileMetaData,
  parquetMetadata,
  parquetRead,
  snappyUncompress,
} from "hyparquet";
import { parquetHeader } from "hyparquet/src/column.js";
import { documentText } from "./json.js";
import { ColumnChunkGuard, flatColumns } from "./parquet-guard.js";
import { badReference, checkReferenceKey, type Reference, referenceCount } from "./reference.js";

/** Options of {@link ParquetReferences.open}. */
export interface ParquetReferenceOptions {
  /** Decompressors for Parquet codecs besides snappy and zstd (e.g. `hyparquet-compressors`). */
  compressors?: Compressors;
  /** How many decoded `refs.R.parq` files to keep in memory (default 64). */
  cachedRecords?: number;
  /**
   * The most record files one listing may read, over all arrays (default
   * {@link MAX_LISTED_RECORDS}): a few bytes of `.zmetadata` could otherwise
   * make `list()` request files without end. Reads by key are not limited.
   */
  maxListedRecords?: number;
}

/** The columns of one `refs.R.parq` file. */
interface RecordColumns {
  path: unknown[];
  offset: ArrayLike<unknown>;
  size: ArrayLike<unknown>;
  raw: unknown[] | undefined;
  rows: number;
}

interface Field {
  /** Chunks along each dimension. */
  grid: number[];
  /** Chunks in all. */
  chunks: number;
}

const decoder = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

/** Reads a whole file of the reference directory (`undefined` when missing). */
export type ReadFile = (relative: string) => Promise<Uint8Array | undefined>;

/**
 * The references of a Parquet reference directory: metadata from
 * `.zmetadata`, chunk references looked up in the record files on demand
 * (an LRU cache of decoded records).
 *
 * @example
 * ```ts
 * const refs = await ParquetReferences.open(async (name) => files.get(name));
 * await refs.lookup("temperature/0.0"); // { kind: "range", url, offset, length }
 * ```
 */
export class ParquetReferences {
  private readonly records = new Map<string, Promise<RecordColumns | undefined>>();
  private readonly compressors: Compressors;
  private readonly cachedRecords: number;
  private readonly maxListedRecords: number;
  /** Folders of the metadata keys (built on the first listing). */
  private metadataDirs?: Map<string, { keys: Set<string>; prefixes: Set<string> }>;

  private constructor(
    private readonly read: ReadFile,
    /** Metadata documents by key. */
    readonly metadata: ReadonlyMap<string, Uint8Array>,
    private readonly fields: ReadonlyMap<string, Field>,
    /** References per record file. */
    readonly recordSize: number,
    options: ParquetReferenceOptions,
  ) {
    this.compressors = boundedCompressors(options.compressors);
    this.cachedRecords = Math.max(1, options.cachedRecords ?? 64);
    this.maxListedRecords = options.maxListedRecords ?? MAX_LISTED_RECORDS;
  }

  /** Reads and checks `.zmetadata`; a missing or malformed one is a `StoreError`. */
  static async open(
    read: ReadFile,
    options: ParquetReferenceOptions = {},
  ): Promise<ParquetReferences> {
    const bytes = await read(".zmetadata");
    if (bytes === undefined)
      throw badReference(".zmetadata", "the reference directory has no .zmetadata");
    let doc: unknown;
    try {
      doc = JSON.parse(decoder.decode(bytes));
    } catch (cause) {
      throw badReference(".zmetadata", "is not UTF-8 JSON", cause);
    }
    if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
      throw badReference(".zmetadata", "is not a JSON object");
    }
    const { metadata, record_size: recordSize } = doc as Record<string, unknown>;
    if (typeof recordSize !== "number" || !Number.isSafeInteger(recordSize) || recordSize < 1) {
      throw badReference(
        ".zmetadata",
        `record_size must be a positive integer, got ${String(recordSize)}`,
      );
    }
    if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
      throw badReference(".zmetadata", "has no 'metadata' object");
    }
    const docs = new Map<string, Uint8Array>();
    const fields = new Map<string, Field>();
    for (const [key, value] of Object.entries(metadata)) {
      checkReferenceKey(key);
      const text = typeof value === "string" ? value : documentText(key, value);
      docs.set(key, encoder.encode(text));
      if (key.endsWith("/.zarray")) {
        fields.set(
          key.slice(0, -"/.zarray".length),
          fieldOf(key, typeof value === "string" ? parseJson(key, value) : value),
        );
      }
    }
    return new ParquetReferences(read, docs, fields, recordSize, options);
  }

  /** The reference for `key`, or `undefined` when the directory has none. */
  async lookup(key: string, signal?: AbortSignal): Promise<Reference | undefined> {
    const doc = this.metadata.get(key);
    if (doc !== undefined) return { kind: "inline", bytes: doc };
    const slash = key.lastIndexOf("/");
    if (slash < 0) return undefined;
    const fieldName = key.slice(0, slash);
    const field = this.fields.get(fieldName);
    if (field === undefined) return undefined;
    const n = chunkNumber(key.slice(slash + 1), field.grid);
    if (n === undefined) return undefined;
    const record = Math.floor(n / this.recordSize);
    const columns = await this.record(fieldName, record, signal);
    if (columns === undefined) return undefined;
    const row = n % this.recordSize;
    if (row >= columns.rows) return undefined;
    return rowReference(key, columns, row);
  }

  /** Every key: the metadata documents, then each array's chunks that have a reference. */
  async *keys(signal?: AbortSignal): AsyncGenerator<string> {
    let records = 0;
    for (const name of this.fields.keys()) records += this.recordCount(name);
    this.checkListed("", records);
    yield* this.metadata.keys();
    for (const name of this.fields.keys()) yield* this.chunkKeys(name, signal);
  }

  /**
   * The keys and prefixes directly under `prefix`: metadata documents and
   * folders from `.zmetadata` alone, plus the chunk keys of an array when
   * `prefix` is that array's folder (read from its record files). Listing a
   * group reads no record file.
   */
  async listDir(prefix: string, signal?: AbortSignal): Promise<DirListing> {
    const found = this.metadataFolders().get(prefix);
    const keys = new Set(found?.keys);
    const field = prefix.endsWith("/") ? prefix.slice(0, -1) : undefined;
    if (field !== undefined && this.fields.has(field)) {
      this.checkListed(prefix, this.recordCount(field));
      for await (const key of this.chunkKeys(field, signal)) keys.add(key.slice(prefix.length));
    }
    return { keys: [...keys].sort(), prefixes: [...(found?.prefixes ?? [])].sort() };
  }

  private metadataFolders(): Map<string, { keys: Set<string>; prefixes: Set<string> }> {
    if (this.metadataDirs !== undefined) return this.metadataDirs;
    const dirs = new Map<string, { keys: Set<string>; prefixes: Set<string> }>();
    const folder = (p: string) => {
      let f = dirs.get(p);
      if (f === undefined) {
        f = { keys: new Set(), prefixes: new Set() };
        dirs.set(p, f);
      }
      return f;
    };
    for (const key of this.metadata.keys()) {
      let start = 0;
      for (let slash = key.indexOf("/"); slash >= 0; slash = key.indexOf("/", start)) {
        folder(key.slice(0, start)).prefixes.add(key.slice(start, slash));
        start = slash + 1;
      }
      folder(key.slice(0, start)).keys.add(key.slice(start));
    }
    this.metadataDirs = dirs;
    return dirs;
  }

  /** Record files of array `name`. */
  private recordCount(name: string): number {
    const field = this.fields.get(name);
    return field === undefined ? 0 : Math.ceil(field.chunks / this.recordSize);
  }

  private checkListed(prefix: string, records: number): void {
    if (records > this.maxListedRecords) {
      throw badReference(
        prefix,
        `listing it would read ${records} record files (more than ${this.maxListedRecords}, option maxListedRecords); chunks are still read by key`,
      );
    }
  }

  /** The chunk keys of array `name` that have a reference (read from its record files). */
  private async *chunkKeys(name: string, signal?: AbortSignal): AsyncGenerator<string> {
    const field = this.fields.get(name);
    if (field === undefined) return;
    const records = this.recordCount(name);
    for (let record = 0; record < records; record++) {
      const columns = await this.record(name, record, signal);
      if (columns === undefined) continue;
      for (let row = 0; row < columns.rows; row++) {
        const n = record * this.recordSize + row;
        if (n >= field.chunks) break;
        if (columns.path[row] == null && (columns.raw?.[row] ?? null) === null) continue;
        yield `${name}/${chunkName(n, field.grid)}`;
      }
    }
  }

  private record(
    field: string,
    record: number,
    signal?: AbortSignal,
  ): Promise<RecordColumns | undefined> {
    const name = `${field}/refs.${record}.parq`;
    let cached = this.records.get(name);
    if (cached !== undefined) {
      // Most recently used last.
      this.records.delete(name);
      this.records.set(name, cached);
      return cached;
    }
    signal?.throwIfAborted();
    cached = this.read(name).then((bytes) =>
      bytes === undefined
        ? undefined
        : decodeRecord(name, bytes, this.compressors, this.recordSize),
    );
    cached.catch(() => this.records.delete(name));
    this.records.set(name, cached);
    while (this.records.size > this.cachedRecords) {
      const oldest = this.records.keys().next().value as string;
      this.records.delete(oldest);
    }
    return cached;
  }
}

function parseJson(key: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw badReference(key, "is not JSON", cause);
  }
}

function fieldOf(key: string, zarray: unknown): Field {
  const { shape, chunks } = (zarray ?? {}) as { shape?: unknown; chunks?: unknown };
  const ints = (v: unknown): v is number[] =>
    Array.isArray(v) && v.every((x) => typeof x === "number" && Number.isSafeInteger(x) && x >= 0);
  if (
    !ints(shape) ||
    !ints(chunks) ||
    shape.length !== chunks.length ||
    chunks.some((c) => c === 0)
  ) {
    throw badReference(key, "needs integer 'shape' and positive 'chunks' of one length");
  }
  const grid = shape.length === 0 ? [1] : shape.map((s, i) => Math.ceil(s / chunks[i]));
  const total = grid.reduce((p, g) => p * g, 1);
  if (!Number.isSafeInteger(total)) throw badReference(key, "has too many chunks");
  return { grid, chunks: total };
}

/** The row-major chunk number of `i.j.k` in `grid`, or `undefined` when it is not a chunk of it. */
function chunkNumber(name: string, grid: readonly number[]): number | undefined {
  const parts = name.split(".");
  if (parts.length !== grid.length) return undefined;
  let n = 0;
  for (let d = 0; d < grid.length; d++) {
    if (!/^\d+$/.test(parts[d])) return undefined;
    const i = Number(parts[d]);
    if (i >= grid[d]) return undefined;
    n = n * grid[d] + i;
  }
  return n;
}

function chunkName(n: number, grid: readonly number[]): string {
  const parts = new Array<number>(grid.length);
  for (let d = grid.length - 1; d >= 0; d--) {
    parts[d] = n % grid[d];
    n = Math.floor(n / grid[d]);
  }
  return parts.join(".");
}

function rowReference(key: string, columns: RecordColumns, row: number): Reference | undefined {
  const raw = columns.raw?.[row] ?? null;
  if (raw !== null) {
    if (raw instanceof Uint8Array) return { kind: "inline", bytes: raw };
    if (typeof raw === "string") return { kind: "inline", bytes: encoder.encode(raw) };
    throw badReference(key, "the 'raw' column holds neither bytes nor a string");
  }
  let path = columns.path[row] ?? null;
  if (path === null) return undefined;
  if (path instanceof Uint8Array) {
    try {
      path = decoder.decode(path);
    } catch (cause) {
      throw badReference(key, "the 'path' column is not UTF-8", cause);
    }
  }
  if (typeof path !== "string") throw badReference(key, "the 'path' column holds no string");
  const offset = referenceCount(key, "offset", columns.offset[row]);
  const length = referenceCount(key, "size", columns.size[row]);
  // fsspec: offset 0 and size 0 mean the whole file.
  if (offset === 0 && length === 0) return { kind: "file", url: path };
  return { kind: "range", url: path, offset, length };
}

/**
 * Walks every column chunk's page headers before hyparquet reads them: each
 * chunk must lie inside the file and each page's compressed size must keep
 * the next header inside the chunk. hyparquet's page loop trusts these sizes
 * (a negative one sends it back to an earlier header, forever); after this
 * walk every page moves it forward, so it ends. Pages may not claim more
 * values than their row group has rows (bounded by `record_size`). The
 * pages of the columns read (`read`) are also decompressed and their
 * level and value streams walked ({@link ColumnChunkGuard}), so that
 * hyparquet's run-length decoder cannot loop beyond the page's values.
 */
function checkPages(
  file: ArrayBuffer,
  metadata: FileMetaData,
  read: ReadonlySet<string>,
  compressors: Compressors,
): void {
  const columns = flatColumns(metadata.schema);
  for (const group of metadata.row_groups) {
    for (const column of group.columns) {
      const meta = column.meta_data;
      if (meta === undefined) throw new Error("a column chunk has no metadata");
      const name = meta.path_in_schema.join(".");
      const flat = columns.get(name);
      const guard =
        read.has(name) && flat !== undefined
          ? new ColumnChunkGuard(flat, meta.codec, compressors)
          : undefined;
      const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
      const size = Number(meta.total_compressed_size);
      if (
        !(
          Number.isSafeInteger(start) &&
          Number.isSafeInteger(size) &&
          start >= 0 &&
          size >= 0 &&
          start + size <= file.byteLength
        )
      ) {
        throw new Error(`column ${meta.path_in_schema.join(".")} lies outside the file`);
      }
      const reader = { view: new DataView(file, start, size), offset: 0 };
      while (reader.offset < size - 1) {
        const header = parquetHeader(reader);
        const values = Number(
          header.data_page_header?.num_values ??
            header.data_page_header_v2?.num_values ??
            header.dictionary_page_header?.num_values ??
            0,
        );
        // Flat columns hold one value per row: more is a lie that would make hyparquet spin.
        if (!(values >= 0 && values <= Number(group.num_rows))) {
          throw new Error(
            `a page of column ${meta.path_in_schema.join(".")} claims ${values} values`,
          );
        }
        const pageSize = header.compressed_page_size;
        if (
          !(Number.isSafeInteger(pageSize) && pageSize >= 0 && reader.offset + pageSize <= size)
        ) {
          throw new Error(
            `a page of column ${meta.path_in_schema.join(".")} has a bad size (${pageSize})`,
          );
        }
        guard?.page(header, new Uint8Array(file, start + reader.offset, pageSize));
        reader.offset += pageSize;
      }
    }
  }
}

/**
 * The most record files one listing reads by default (all arrays of `list()`,
 * or one array's folder): an array of 2^52 one-element chunks (a few bytes of
 * `.zmetadata`) would otherwise make a listing request files without end.
 * Reads by key are not limited.
 */
export const MAX_LISTED_RECORDS = 100_000;

/** The most bytes one decompressed Parquet page may claim (its header's `uncompressed_page_size`). */
export const MAX_PAGE_SIZE = 64 * 1024 * 1024;

/**
 * Decompressors whose output is bounded by the page header, which is checked
 * against {@link MAX_PAGE_SIZE} before anything is allocated: snappy
 * (hyparquet's), zstd (fzstd, decoding into a buffer of the declared size)
 * and any given in the options.
 */
function boundedCompressors(extra: Compressors = {}): Compressors {
  const all: Compressors = {
    SNAPPY: (input, length) => {
      const out = new Uint8Array(length);
      snappyUncompress(input, out);
      return out;
    },
    ZSTD: (input, length) => zstdDecompress(input, new Uint8Array(length)),
    ...extra,
  };
  const bounded: Compressors = {};
  for (const [codec, decompress] of Object.entries(all) as [
    keyof Compressors,
    Compressors["ZSTD"],
  ][]) {
    if (decompress === undefined) continue;
    bounded[codec] = (input, length) => {
      if (length > MAX_PAGE_SIZE) {
        throw new Error(`a ${codec} page claims ${length} bytes, more than ${MAX_PAGE_SIZE}`);
      }
      return decompress(input, length);
    };
  }
  return bounded;
}

async function decodeRecord(
  name: string,
  bytes: Uint8Array,
  compressors: Compressors,
  recordSize: number,
): Promise<RecordColumns> {
  const file = bytes.buffer.slice(
    bytes.byteOffset,
    bytes.byteOffset + bytes.byteLength,
  ) as ArrayBuffer;
  let rows: number;
  const columns: Record<string, unknown[]> = {};
  try {
    const metadata = parquetMetadata(file);
    rows = Number(metadata.num_rows);
    if (!(rows >= 0 && rows <= recordSize)) {
      throw new Error(`it has ${metadata.num_rows} rows, more than record_size (${recordSize})`);
    }
    const names = new Set(metadata.schema.slice(1).map((s) => s.name));
    for (const c of ["path", "offset", "size"]) {
      if (!names.has(c)) throw new Error(`no '${c}' column`);
    }
    const wanted = ["path", "offset", "size", ...(names.has("raw") ? ["raw"] : [])];
    checkPages(file, metadata, new Set(wanted), compressors);
    for (const c of wanted) columns[c] = new Array(rows).fill(null);
    await parquetRead({
      file,
      metadata,
      columns: wanted,
      compressors,
      utf8: false,
      onChunk(chunk: ColumnData) {
        const out = columns[chunk.columnName];
        const data = chunk.columnData;
        for (let i = 0; i < data.length && chunk.rowStart + i < rows; i++)
          out[chunk.rowStart + i] = data[i];
      },
    });
  } catch (cause) {
    throw badReference(
      name,
      `is not a readable Parquet reference file (${(cause as Error).message})`,
      cause,
    );
  }
  return { path: columns.path, offset: columns.offset, size: columns.size, raw: columns.raw, rows };
}

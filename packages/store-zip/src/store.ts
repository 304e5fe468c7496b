/**
 * {@link ZipStore}: a read-only, listable Zarr store over a zip archive.
 *
 * @module
 */

import {
  type ByteRange,
  type DirListing,
  rangeBounds,
  type StoreOptions,
  throwIfAborted,
  UnsupportedError,
  validatePrefix,
} from "@zarr/core";
import { type CentralDirectory, readCentralDirectory, type ZipEntry } from "./central-directory.js";
import { crc32 } from "./crc32.js";
import { inflateRaw as defaultInflateRaw, type InflateRaw } from "./deflate.js";
import { ZipFormatError } from "./errors.js";
import {
  FLAG_ENCRYPTED,
  LOCAL_HEADER_SIG,
  LOCAL_HEADER_SIZE,
  METHOD_DEFLATED,
  METHOD_STORED,
  viewOf,
} from "./format.js";
import type { RangeSource } from "./source.js";

/** Options of {@link ZipStore.open}. */
export interface ZipStoreOptions {
  /**
   * A folder inside the archive to use as the store's root (e.g. `"data.zarr"`
   * for an archive made by zipping the folder itself); keys are relative to it.
   * Default: the archive's top level.
   */
  root?: string;
  /** Inflater for deflated entries (default: `DecompressionStream("deflate-raw")`). */
  inflateRaw?: InflateRaw;
  /** Verify the CRC-32 of whole entries read (default `true`). Ranged reads cannot be verified. */
  verifyChecksums?: boolean;
  /** Cancels reading the central directory. */
  signal?: AbortSignal;
}

/** Where the local header and the data of an entry are, once resolved. */
interface Located {
  /** Position of the first data byte in the source. */
  dataOffset: number;
}

/** Bytes read beyond the central directory's view of a local header, in the hope of getting its extra field and the data in one read. */
const LOCAL_SLACK = 256;

/**
 * A read-only Zarr store over a zip archive read through a {@link RangeSource}:
 * one read of the central directory at open, then one ranged read per value
 * (two for the first ranged read of a stored entry, to locate its data).
 *
 * - Stored (uncompressed) entries support byte ranges without reading the rest
 *   of the entry, so sharded arrays in uncompressed zips read only the chunks
 *   they need. Deflated entries are inflated whole, then sliced.
 * - Directory entries are not keys. When the archive holds the same name twice
 *   the last entry of the central directory wins (as in Python's `zipfile`).
 * - An archive with an entry whose name could escape its root (`..`, absolute,
 *   backslash, drive letter) is rejected at open with a {@link ZipFormatError}.
 * - Encrypted entries and methods other than stored/deflate raise
 *   `UnsupportedError` when read.
 *
 * @example
 * const store = await ZipStore.open(blobSource(file)); // a browser File
 * const array = await openArray(store, "data.zarr/temperature");
 */
export class ZipStore {
  readonly #source: RangeSource;
  readonly #entries: ReadonlyMap<string, ZipEntry>;
  readonly #sortedKeys: readonly string[];
  readonly #located = new Map<ZipEntry, Promise<Located>>();
  readonly #inflate: InflateRaw;
  readonly #verify: boolean;

  private constructor(
    source: RangeSource,
    entries: Map<string, ZipEntry>,
    options: ZipStoreOptions,
    /** The archive's central directory (entries in archive order). */
    readonly directory: CentralDirectory,
  ) {
    this.#source = source;
    this.#entries = entries;
    this.#sortedKeys = [...entries.keys()].sort();
    this.#inflate = options.inflateRaw ?? defaultInflateRaw;
    this.#verify = options.verifyChecksums ?? true;
  }

  /** Reads the central directory of the archive in `source` and returns a store over it. */
  static async open(source: RangeSource, options: ZipStoreOptions = {}): Promise<ZipStore> {
    const root = normalizeRoot(options.root, source.name);
    const directory = await readCentralDirectory(source, options.signal);
    const entries = new Map<string, ZipEntry>();
    for (const entry of directory.entries) {
      if (entry.name.endsWith("/") || !entry.name.startsWith(root)) continue;
      entries.set(entry.name.slice(root.length), entry);
    }
    return new ZipStore(source, entries, options, directory);
  }

  /** The archive's name (path or URL) as given by its source. */
  get name(): string {
    return this.#source.name;
  }

  /** The entry of `key`, if any. */
  entry(key: string): ZipEntry | undefined {
    return this.#entries.get(key);
  }

  async get(
    key: string,
    range?: ByteRange,
    options?: StoreOptions,
  ): Promise<Uint8Array | undefined> {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    const signal = options?.signal;
    checkReadable(entry, this.name);
    if (entry.method === METHOD_STORED && entry.compressedSize !== entry.size) {
      throw this.#corrupt(
        entry,
        `stored entry has ${entry.compressedSize} bytes, ${entry.size} declared`,
      );
    }
    // An empty value is returned without reading, so its checksum is checked here:
    // a size of 0 with the CRC-32 of non-empty data is a damaged entry, not an empty one.
    if (entry.size === 0 && this.#verify && entry.crc32 !== 0) {
      throw this.#corrupt(entry, "declared empty, but its CRC-32 is not that of empty data");
    }
    const [start, end] = rangeBounds(range, entry.size);
    if (end === start) return new Uint8Array(0);
    if (entry.method === METHOD_STORED && (start > 0 || end < entry.size)) {
      const { dataOffset } = await this.#locate(entry, signal);
      return this.#source.read(dataOffset + start, end - start, signal);
    }
    const whole = await this.#readWhole(entry, signal);
    return start === 0 && end === whole.length ? whole : whole.slice(start, end);
  }

  async getSize(key: string): Promise<number | undefined> {
    return this.#entries.get(key)?.size;
  }

  async *list(): AsyncGenerator<string> {
    yield* this.#sortedKeys;
  }

  async *listPrefix(prefix: string): AsyncGenerator<string> {
    for (const key of this.#keysFrom(prefix)) yield key;
  }

  async listDir(prefix: string): Promise<DirListing> {
    validatePrefix(prefix);
    const keys: string[] = [];
    const prefixes = new Set<string>();
    for (const key of this.#keysFrom(prefix)) {
      const rest = key.slice(prefix.length);
      const slash = rest.indexOf("/");
      if (slash < 0) keys.push(rest);
      else prefixes.add(rest.slice(0, slash));
    }
    return { keys, prefixes: [...prefixes] };
  }

  /** Releases the source (closes a file handle). */
  async close(): Promise<void> {
    await this.#source.close?.();
  }

  /** Sorted keys starting with `prefix` (binary search to the first). */
  *#keysFrom(prefix: string): Generator<string> {
    const keys = this.#sortedKeys;
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid] < prefix) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < keys.length && keys[i].startsWith(prefix); i++) yield keys[i];
  }

  /** Reads the entry's local header to find where its data starts (cached). */
  #locate(entry: ZipEntry, signal?: AbortSignal): Promise<Located> {
    let located = this.#located.get(entry);
    if (!located) {
      located = this.#source
        .read(entry.localHeaderOffset, LOCAL_HEADER_SIZE, signal)
        .then((header) => ({ dataOffset: this.#dataOffset(entry, header) }));
      this.#located.set(entry, located);
      located.catch(() => this.#located.delete(entry));
    }
    return located;
  }

  #dataOffset(entry: ZipEntry, header: Uint8Array): number {
    const view = viewOf(header);
    if (header.length < LOCAL_HEADER_SIZE || view.getUint32(0, true) !== LOCAL_HEADER_SIG) {
      throw this.#corrupt(entry, `no local header at ${entry.localHeaderOffset}`);
    }
    const dataOffset =
      entry.localHeaderOffset +
      LOCAL_HEADER_SIZE +
      view.getUint16(26, true) +
      view.getUint16(28, true);
    if (dataOffset + entry.compressedSize > this.directory.start) {
      throw this.#corrupt(entry, "its data overlaps the central directory");
    }
    return dataOffset;
  }

  /** The whole uncompressed value: one read of header and data (two if the local extra field is unusually large), inflated and checked. */
  async #readWhole(entry: ZipEntry, signal?: AbortSignal): Promise<Uint8Array> {
    let data: Uint8Array;
    const known = this.#located.get(entry);
    if (known) {
      data = await this.#source.read((await known).dataOffset, entry.compressedSize, signal);
    } else {
      const guess = Math.min(
        LOCAL_HEADER_SIZE + entry.name.length * 4 + LOCAL_SLACK + entry.compressedSize,
        this.directory.start - entry.localHeaderOffset,
      );
      const bytes = await this.#source.read(entry.localHeaderOffset, guess, signal);
      const dataOffset = this.#dataOffset(entry, bytes);
      this.#located.set(entry, Promise.resolve({ dataOffset }));
      const skip = dataOffset - entry.localHeaderOffset;
      data =
        skip + entry.compressedSize <= bytes.length
          ? bytes.subarray(skip, skip + entry.compressedSize)
          : await this.#source.read(dataOffset, entry.compressedSize, signal);
    }
    throwIfAborted(signal, entry.name);
    let value: Uint8Array;
    if (entry.method === METHOD_STORED) {
      value = data;
    } else {
      // Deflate expands at most ~1032:1; a larger claim is a corrupt (or hostile) header.
      if (entry.size > entry.compressedSize * 1032 + 1024) {
        throw this.#corrupt(
          entry,
          `claims ${entry.size} bytes from ${entry.compressedSize} compressed`,
        );
      }
      try {
        value = await this.#inflate(data, entry.size);
      } catch (cause) {
        throw this.#corrupt(entry, `deflate data is corrupt: ${(cause as Error).message}`, cause);
      }
    }
    if (this.#verify && crc32(value) !== entry.crc32) {
      throw this.#corrupt(entry, "CRC-32 mismatch");
    }
    return value;
  }

  #corrupt(entry: ZipEntry, reason: string, cause?: unknown): ZipFormatError {
    return new ZipFormatError(`${this.name}: entry ${JSON.stringify(entry.name)}: ${reason}`, {
      path: entry.name,
      cause,
    });
  }
}

function checkReadable(entry: ZipEntry, archive: string): void {
  if (entry.flags & FLAG_ENCRYPTED) {
    throw new UnsupportedError(`${archive}: entry ${JSON.stringify(entry.name)} is encrypted`, {
      path: entry.name,
    });
  }
  if (entry.method !== METHOD_STORED && entry.method !== METHOD_DEFLATED) {
    throw new UnsupportedError(
      `${archive}: entry ${JSON.stringify(entry.name)} uses compression method ${entry.method}; only stored (0) and deflate (8) are supported`,
      { path: entry.name },
    );
  }
}

/** `"a/b"`, `"a/b/"` -> `"a/b/"`; `""`/`"/"`/undefined -> `""`. */
function normalizeRoot(root: string | undefined, archive: string): string {
  if (root === undefined) return "";
  const trimmed = root.replace(/^\/+|\/+$/g, "");
  if (trimmed === "") return "";
  for (const segment of trimmed.split("/")) {
    if (segment === "" || segment === "." || segment === ".." || segment.includes("\\")) {
      throw new ZipFormatError(
        `${archive}: invalid root ${JSON.stringify(root)} inside the archive`,
        {
          path: root,
        },
      );
    }
  }
  return `${trimmed}/`;
}

/**
 * {@link ZipStore}: a read-only, listable Zarr store over a zip archive.
 *
 * @module
 */

import { type StoreOptions, UnsupportedError, ValueTooLargeError, ZarrError } from "@zarr/core";
import {
  type ByteRange,
  type DirListing,
  rangeBounds,
  throwIfAborted,
  untilAborted,
  validatePrefix,
} from "@zarr/core/store";
import {
  type CentralDirectory,
  findExtra,
  readCentralDirectory,
  type ZipEntry,
} from "./central-directory.js";
import { crc32 } from "./crc32.js";
import { type InflateRaw, inflateSlice } from "./deflate.js";
import { ZipFormatError } from "./errors.js";
import {
  FLAG_DATA_DESCRIPTOR,
  FLAG_ENCRYPTED,
  getUint64,
  LOCAL_HEADER_SIG,
  LOCAL_HEADER_SIZE,
  MAX32,
  METHOD_DEFLATED,
  METHOD_STORED,
  viewOf,
  ZIP64_EXTRA_ID,
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
  /**
   * Inflater for deflated entries (default: `DecompressionStream("deflate-raw")`,
   * streamed: ranged reads inflate only up to the range's end). A custom
   * inflater gets whole entries, so every read of a deflated entry inflates it whole.
   */
  inflateRaw?: InflateRaw;
  /** Verify the CRC-32 of entries read (default `true`); see `verifyRangedReadsUpTo` for ranged reads. */
  verifyChecksums?: boolean;
  /**
   * Ranged reads (byte ranges, suffixes) of an entry of at most this many
   * bytes (uncompressed) are served only once the whole entry's CRC-32 has
   * been checked: the first ranged read of such an entry reads it whole (one
   * request, shared by concurrent reads) and this store remembers the
   * outcome. Ranged reads of larger entries are served **unverified**: their
   * local header is checked against the central directory, so the bytes are
   * the entry's own, but damage inside the entry goes unnoticed unless the
   * data has checksums of its own (e.g. `crc32c` in a shard's codecs) or a
   * whole or suffix read of a deflated entry checks it. Default 1 MiB (see
   * the README for measurements); `Infinity` checks every entry before
   * serving any range of it, `0` only on whole reads.
   */
  verifyRangedReadsUpTo?: number;
  /** Cancels reading the central directory. */
  signal?: AbortSignal;
}

/** What this store knows about one entry. */
interface EntryState {
  /** Where the data starts, once the local header was read and checked. */
  dataOffset?: number;
  /** The pending read of the local header (shared). */
  locating?: Promise<number>;
  /** The whole entry's CRC-32 was checked and matched. */
  verified?: boolean;
  /** The pending whole read of a ranged read's check (shared). */
  verifying?: Promise<Uint8Array>;
  /** Why the entry is damaged: every later read of it throws this. */
  corrupt?: ZipFormatError;
}

/** Bytes read beyond a local header's name in the hope of getting its extra field (and data) in one read. */
const LOCAL_SLACK = 256;
/** Default of {@link ZipStoreOptions.verifyRangedReadsUpTo}. */
const VERIFY_RANGES_UP_TO = 1 << 20;
/** Largest piece of compressed data read at once when inflating a range or streaming to a suffix. */
const MAX_PIECE = 16 << 20;
/** First piece of a ranged inflate beyond the estimate from the compression ratio. */
const MIN_PIECE = 64 << 10;
/** Kept output allocated at once when the compression ratio does not say more. */
const PREALLOCATE = 4 << 20;
/** Local header flags that must match the central directory's: encryption (0, 6, 13) and data descriptor (3). */
const FLAGS_CHECKED = 0x0001 | 0x0008 | 0x0040 | 0x2000;

/**
 * A read-only Zarr store over a zip archive read through a {@link RangeSource}:
 * one read of the central directory at open, then one ranged read per value
 * (two for the first ranged read of a large stored entry: its local header, then the range).
 *
 * - Every entry's local header is checked against the central directory (name,
 *   method, flags, sizes, CRC-32, where the data ends) before any byte of the
 *   entry is served, and archives whose entries overlap are rejected at open,
 *   so a read never returns another entry's bytes.
 * - Stored (uncompressed) entries support byte ranges without reading the rest
 *   of the entry, so sharded arrays in uncompressed zips read only the chunks
 *   they need. Deflated entries are inflated up to the end of the range.
 * - CRC-32: whole reads are checked; ranged reads as `verifyRangedReadsUpTo` says.
 * - Directory entries are not keys. When the archive holds the same name twice
 *   the last entry of the central directory wins (as in Python's `zipfile`).
 * - An archive with an entry whose name could escape its root (`..`, absolute,
 *   backslash, drive letter) is rejected at open with a {@link ZipFormatError}.
 * - Encrypted entries and methods other than stored/deflate raise
 *   `UnsupportedError` when read.
 * - The archive must not change while the store is open.
 *
 * @example
 * const store = await ZipStore.open(blobSource(file)); // a browser File
 * const array = await openArray(store, "data.zarr/temperature");
 */
export class ZipStore {
  readonly #source: RangeSource;
  readonly #entries: ReadonlyMap<string, ZipEntry>;
  readonly #sortedKeys: readonly string[];
  readonly #states = new Map<ZipEntry, EntryState>();
  readonly #inflate: InflateRaw | undefined;
  readonly #verify: boolean;
  readonly #verifyRangesUpTo: number;

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
    this.#inflate = options.inflateRaw;
    this.#verify = options.verifyChecksums ?? true;
    this.#verifyRangesUpTo = options.verifyRangedReadsUpTo ?? VERIFY_RANGES_UP_TO;
  }

  /** Reads the central directory of the archive in `source` and returns a store over it. */
  static async open(source: RangeSource, options: ZipStoreOptions = {}): Promise<ZipStore> {
    const root = normalizeRoot(options.root, source.name);
    const limit = options.verifyRangedReadsUpTo;
    if (limit !== undefined && !(limit >= 0)) {
      throw new ZarrError(`verifyRangedReadsUpTo must be a number >= 0, got ${limit}`);
    }
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
    checkReadable(entry, this.name);
    const state = this.#stateOf(entry);
    if (state.corrupt) throw state.corrupt;
    if (entry.method === METHOD_STORED && entry.compressedSize !== entry.size) {
      throw this.#corrupt(
        entry,
        `stored entry has ${entry.compressedSize} bytes, ${entry.size} declared`,
      );
    }
    // Deflate expands at most ~1032:1; a larger claim is a corrupt (or hostile) header.
    if (entry.method === METHOD_DEFLATED && entry.size > entry.compressedSize * 1032 + 1024) {
      throw this.#corrupt(
        entry,
        `claims ${entry.size} bytes from ${entry.compressedSize} compressed`,
      );
    }
    // An empty value is returned without reading, so its checksum is checked here:
    // a size of 0 with the CRC-32 of non-empty data is a damaged entry, not an empty one.
    if (entry.size === 0 && this.#verify && entry.crc32 !== 0) {
      throw this.#corrupt(entry, "declared empty, but its CRC-32 is not that of empty data");
    }
    const [start, end] = rangeBounds(range, entry.size);
    const maxBytes = options?.maxBytes;
    if (maxBytes !== undefined && end - start > maxBytes) {
      throw new ValueTooLargeError(
        `${this.name}: entry ${JSON.stringify(entry.name)}: ${end - start} bytes asked for, more than the caller's limit of ${maxBytes} (maxBytes)`,
        { path: key },
      );
    }
    if (end === start) return new Uint8Array(0);
    const signal = options?.signal;
    const whole = start === 0 && end === entry.size;
    if (whole) return this.#readWhole(entry, state, signal);
    // A range: check the whole entry first when it is small enough.
    if (this.#verify && !state.verified && entry.size <= this.#verifyRangesUpTo) {
      const value = await this.#verifyShared(entry, state, signal);
      return value.slice(start, end);
    }
    if (entry.method === METHOD_STORED) {
      const dataOffset = await this.#locate(entry, state, signal);
      return this.#source.read(dataOffset + start, end - start, signal);
    }
    if (this.#inflate) return (await this.#readWhole(entry, state, signal)).slice(start, end);
    // Streaming to the end costs the same as stopping there, and checks the CRC-32.
    return this.#inflateRange(entry, state, start, end, end === entry.size, signal);
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

  #stateOf(entry: ZipEntry): EntryState {
    let state = this.#states.get(entry);
    if (!state) {
      state = {};
      this.#states.set(entry, state);
    }
    return state;
  }

  /**
   * The whole entry, read once for concurrent ranged reads that must check it
   * first. The shared read runs without any one caller's signal; each caller
   * stops waiting when its own signal aborts.
   */
  #verifyShared(entry: ZipEntry, state: EntryState, signal?: AbortSignal): Promise<Uint8Array> {
    let pending = state.verifying;
    if (!pending) {
      const p = this.#readWhole(entry, state);
      state.verifying = p;
      p.then(
        () => {
          if (state.verifying === p) state.verifying = undefined;
        },
        () => {
          if (state.verifying === p) state.verifying = undefined;
        },
      );
      pending = p;
    }
    return untilAborted(pending, signal, entry.name);
  }

  /** Reads the entry's local header and checks it (once; shared by concurrent reads): where its data starts. */
  async #locate(entry: ZipEntry, state: EntryState, signal?: AbortSignal): Promise<number> {
    if (state.dataOffset !== undefined) return state.dataOffset;
    let pending = state.locating;
    if (!pending) {
      const p = (async () => {
        const span = Math.min(
          LOCAL_HEADER_SIZE + entry.nameBytes.length + LOCAL_SLACK,
          entry.limit - entry.localHeaderOffset,
        );
        let header = await this.#source.read(entry.localHeaderOffset, span);
        let parsed = this.#checkLocalHeader(entry, state, header);
        if (typeof parsed !== "number") {
          header = await this.#source.read(entry.localHeaderOffset, parsed.headerSize);
          parsed = this.#checkLocalHeader(entry, state, header);
        }
        return parsed as number;
      })();
      state.locating = p;
      p.catch(() => {
        if (state.locating === p) state.locating = undefined;
      });
      pending = p;
    }
    return untilAborted(pending, signal, entry.name);
  }

  /**
   * Bytes `[offset, offset + length)` of the entry's stored data. The first
   * read of an entry that starts at its data's start fetches the local header
   * with it (one request) and checks it.
   */
  async #readData(
    entry: ZipEntry,
    state: EntryState,
    offset: number,
    length: number,
    signal?: AbortSignal,
  ): Promise<Uint8Array> {
    if (state.dataOffset === undefined && state.locating === undefined && offset === 0) {
      const span = Math.min(
        LOCAL_HEADER_SIZE + entry.nameBytes.length + LOCAL_SLACK + length,
        entry.limit - entry.localHeaderOffset,
      );
      const bytes = await this.#source.read(entry.localHeaderOffset, span, signal);
      const parsed = this.#checkLocalHeader(entry, state, bytes);
      if (typeof parsed === "number") {
        const skip = parsed - entry.localHeaderOffset;
        if (skip + length <= bytes.length) return bytes.subarray(skip, skip + length);
      }
    }
    const dataOffset = await this.#locate(entry, state, signal);
    return this.#source.read(dataOffset + offset, length, signal);
  }

  /**
   * Checks the local header at the start of `bytes` against the central
   * directory: signature, name, method, flags, CRC-32 and sizes (zero when a
   * data descriptor follows the data), and that the data ends before the
   * next entry. Returns where the data starts (and remembers it), or the
   * header's size when `bytes` does not hold all of it.
   */
  #checkLocalHeader(
    entry: ZipEntry,
    state: EntryState,
    bytes: Uint8Array,
  ): number | { headerSize: number } {
    const at = entry.localHeaderOffset;
    const view = viewOf(bytes);
    if (bytes.length < LOCAL_HEADER_SIZE || view.getUint32(0, true) !== LOCAL_HEADER_SIG) {
      throw this.#corrupt(entry, `no local header at ${at}`);
    }
    const nameLength = view.getUint16(26, true);
    const extraLength = view.getUint16(28, true);
    const name = entry.nameBytes;
    if (nameLength !== name.length || LOCAL_HEADER_SIZE + nameLength > bytes.length) {
      throw this.#corrupt(
        entry,
        `its local header at ${at} names another entry (${nameLength}-byte name, ${name.length} in the central directory)`,
      );
    }
    for (let i = 0; i < nameLength; i++) {
      if (bytes[LOCAL_HEADER_SIZE + i] !== name[i]) {
        const other = new TextDecoder().decode(
          bytes.subarray(LOCAL_HEADER_SIZE, LOCAL_HEADER_SIZE + nameLength),
        );
        throw this.#corrupt(
          entry,
          `its local header at ${at} names another entry: ${JSON.stringify(other)}`,
        );
      }
    }
    const headerSize = LOCAL_HEADER_SIZE + nameLength + extraLength;
    const dataOffset = at + headerSize;
    if (dataOffset + entry.compressedSize > entry.limit) {
      const next =
        entry.limit === this.directory.start ? "the central directory" : "the next entry";
      throw this.#corrupt(
        entry,
        `its data (${entry.compressedSize} bytes at ${dataOffset}, after a ${extraLength}-byte local extra field) overlaps ${next}`,
      );
    }
    if (bytes.length < headerSize) return { headerSize };

    const method = view.getUint16(8, true);
    if (method !== entry.method) {
      throw this.#corrupt(
        entry,
        `its local header says compression method ${method}, the central directory ${entry.method}`,
      );
    }
    const flags = view.getUint16(6, true);
    if ((flags ^ entry.flags) & FLAGS_CHECKED) {
      throw this.#corrupt(
        entry,
        `its local header's flags (0x${hex4(flags)}) differ from the central directory's (0x${hex4(entry.flags)})`,
      );
    }
    // With a data descriptor (bit 3) the local header may leave CRC-32 and sizes at 0.
    const deferred = (flags & FLAG_DATA_DESCRIPTOR) !== 0;
    const crc = view.getUint32(14, true);
    if (crc !== entry.crc32 && !(deferred && crc === 0)) {
      throw this.#corrupt(
        entry,
        `its local header's CRC-32 (0x${crc.toString(16)}) differs from the central directory's (0x${entry.crc32.toString(16)})`,
      );
    }
    let compressedSize: number | undefined = view.getUint32(18, true);
    let size: number | undefined = view.getUint32(22, true);
    if (compressedSize === MAX32 || size === MAX32) {
      // Zip64 in a local header: both sizes, uncompressed first (APPNOTE 4.5.3).
      const extra = findExtra(view, LOCAL_HEADER_SIZE + nameLength, extraLength, ZIP64_EXTRA_ID);
      if (extra && extra.end - extra.start >= 16) {
        if (size === MAX32) size = getUint64(view, extra.start);
        if (compressedSize === MAX32) compressedSize = getUint64(view, extra.start + 8);
      }
    }
    for (const [what, local, central] of [
      ["compressed size", compressedSize, entry.compressedSize],
      ["size", size, entry.size],
    ] as const) {
      if (local !== central && !(deferred && local === 0)) {
        throw this.#corrupt(
          entry,
          `its local header declares ${what} ${local ?? "beyond 2^53"}, the central directory ${central}`,
        );
      }
    }
    state.dataOffset = dataOffset;
    return dataOffset;
  }

  /** The whole value: one read of local header and data (unless located), checked, inflated, CRC-checked. */
  async #readWhole(entry: ZipEntry, state: EntryState, signal?: AbortSignal): Promise<Uint8Array> {
    let value: Uint8Array;
    if (entry.method === METHOD_STORED) {
      value = await this.#readData(entry, state, 0, entry.compressedSize, signal);
    } else if (this.#inflate) {
      const data = await this.#readData(entry, state, 0, entry.compressedSize, signal);
      throwIfAborted(signal, entry.name);
      try {
        value = await this.#inflate(data, entry.size);
      } catch (cause) {
        if (cause instanceof ZarrError) throw cause;
        throw this.#corrupt(entry, `deflate data is corrupt: ${(cause as Error).message}`, cause);
      }
    } else {
      return this.#inflateRange(entry, state, 0, entry.size, true, signal);
    }
    if (this.#verify) {
      if (crc32(value) !== entry.crc32) throw this.#corrupt(entry, "CRC-32 mismatch");
      state.verified = true;
    }
    return value;
  }

  /**
   * Bytes `[start, end)` of a deflated entry, streamed: compressed data is read
   * in pieces as the inflater asks for it, and inflating stops at `end` unless
   * `toEnd` (then the CRC-32 is checked). Memory: the range, plus a piece.
   */
  async #inflateRange(
    entry: ZipEntry,
    state: EntryState,
    start: number,
    end: number,
    toEnd: boolean,
    signal?: AbortSignal,
  ): Promise<Uint8Array> {
    const csize = entry.compressedSize;
    // The first piece: everything for a whole value (one request, with the local header);
    // otherwise what the range needs at the entry's average ratio, and some.
    const first =
      start === 0 && end === entry.size
        ? csize
        : toEnd
          ? Math.min(csize, MAX_PIECE)
          : Math.min(csize, Math.ceil((end / entry.size) * csize * 1.25) + MIN_PIECE);
    const pieces = async function* (this: ZipStore): AsyncGenerator<Uint8Array> {
      let offset = 0;
      let want = first;
      while (offset < csize) {
        const n = Math.min(want, csize - offset);
        yield await this.#readData(entry, state, offset, n, signal);
        offset += n;
        want = Math.min(Math.max(want * 2, MIN_PIECE), MAX_PIECE);
      }
    }.call(this);
    const check = toEnd && this.#verify;
    let out: { value: Uint8Array; crc?: number };
    try {
      out = await inflateSlice(pieces, {
        size: entry.size,
        start,
        end,
        toEnd,
        crc: check,
        preallocate: end - start <= Math.max(PREALLOCATE, csize * 8),
        signal,
      });
    } catch (cause) {
      if (cause instanceof ZarrError) throw cause;
      throw this.#corrupt(entry, `deflate data is corrupt: ${(cause as Error).message}`, cause);
    }
    if (check) {
      if (out.crc !== entry.crc32) throw this.#corrupt(entry, "CRC-32 mismatch");
      state.verified = true;
    }
    return out.value;
  }

  /** A {@link ZipFormatError} for a damaged entry, remembered: every later read of the entry throws it. */
  #corrupt(entry: ZipEntry, reason: string, cause?: unknown): ZipFormatError {
    const error = new ZipFormatError(
      `${this.name}: entry ${JSON.stringify(entry.name)}: ${reason}`,
      {
        path: entry.name,
        cause,
      },
    );
    this.#stateOf(entry).corrupt ??= error;
    return error;
  }
}

function hex4(n: number): string {
  return n.toString(16).padStart(4, "0");
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

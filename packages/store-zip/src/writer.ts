/**
 * {@link ZipWriter}: a streaming zip writer. Each entry is written once, whole
 * (local header, data), in the order `add` is called; `close` appends the
 * central directory. Zip64 records are written only when needed (an entry or
 * offset of 4 GiB or more, 65,535 entries or more) unless forced.
 *
 * @module
 */

import { throwIfAborted } from "@zarr/core/store";
import { crc32 } from "./crc32.js";
import { type DeflateRaw, deflateRaw as defaultDeflateRaw } from "./deflate.js";
import { ZipFormatError } from "./errors.js";
import {
  CENTRAL_HEADER_SIG,
  CENTRAL_HEADER_SIZE,
  EOCD_SIG,
  EOCD_SIZE,
  FLAG_UTF8,
  LOCAL_HEADER_SIG,
  LOCAL_HEADER_SIZE,
  MAX16,
  MAX32,
  METHOD_DEFLATED,
  METHOD_STORED,
  setUint64,
  viewOf,
  ZIP64_EOCD_SIG,
  ZIP64_EOCD_SIZE,
  ZIP64_EXTRA_ID,
  ZIP64_LOCATOR_SIG,
  ZIP64_LOCATOR_SIZE,
} from "./format.js";
import { unsafeNameReason } from "./names.js";

/** Where a {@link ZipWriter} writes: receives the archive's bytes in order. */
export interface ZipSink {
  /** Appends `chunk`. The writer does not reuse `chunk` after the call resolves. */
  write(chunk: Uint8Array): Promise<void> | void;
  /** Called once by {@link ZipWriter.close} after the last write. */
  close?(): Promise<void> | void;
}

/** Options of {@link ZipWriter}. */
export interface ZipWriterOptions {
  /**
   * Deflate entries (default `true`); an entry is stored instead when deflate
   * does not make it smaller. Store (`false`) to keep byte-range reads of
   * entries cheap, e.g. for sharded arrays.
   */
  compress?: boolean;
  /** Compressor (default: `CompressionStream("deflate-raw")`). */
  deflateRaw?: DeflateRaw;
  /** Modification time of every entry (default: when the writer was created). */
  date?: Date;
  /** Write zip64 records for every entry and the end record even when not needed (default `false`). */
  forceZip64?: boolean;
  /**
   * Bytes already in the sink before the archive (default 0): offsets are
   * recorded relative to the start of the sink, as for an appended archive.
   */
  startOffset?: number;
}

/** Options of {@link ZipWriter.add}. */
export interface ZipAddOptions {
  /** Overrides the writer's `compress` for this entry. */
  compress?: boolean;
  /** Cancels the add while it compresses (nothing is written then). */
  signal?: AbortSignal;
}

interface Written {
  nameBytes: Uint8Array;
  utf8: boolean;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
}

const UTF8 = new TextEncoder();
/** Version needed to extract: 2.0 (deflate), 4.5 (zip64). Made by: Unix (3) so permissions apply. */
const VERSION_DEFAULT = 20;
const VERSION_ZIP64 = 45;
const MADE_BY_UNIX = 3 << 8;
/** Regular file, rw-r--r--, in the high 16 bits of the external attributes. */
const UNIX_FILE_ATTRS = (0o100644 << 16) >>> 0;

/**
 * Writes a zip archive to a {@link ZipSink}, one whole entry at a time.
 * Entries added concurrently are compressed in parallel and written in the
 * order their `add` calls were made. Names are validated (no `..`, absolute
 * paths, backslashes, empty segments) and must be unique.
 *
 * @example
 * const chunks: Uint8Array[] = [];
 * const zip = new ZipWriter({ write: (c) => void chunks.push(c) });
 * await zip.add("data.zarr/zarr.json", bytes);
 * await zip.close();
 * const blob = new Blob(chunks, { type: "application/zip" });
 */
export class ZipWriter {
  readonly #sink: ZipSink;
  readonly #compress: boolean;
  readonly #deflate: DeflateRaw;
  readonly #dos: { time: number; date: number };
  readonly #force: boolean;
  readonly #names = new Set<string>();
  readonly #written: Written[] = [];
  #position: number;
  #tail: Promise<void> = Promise.resolve();
  #closed = false;
  #failed: unknown;

  constructor(sink: ZipSink, options: ZipWriterOptions = {}) {
    this.#sink = sink;
    this.#compress = options.compress ?? true;
    this.#deflate = options.deflateRaw ?? defaultDeflateRaw;
    this.#dos = dosDateTime(options.date ?? new Date());
    this.#force = options.forceZip64 ?? false;
    const start = options.startOffset ?? 0;
    if (!Number.isSafeInteger(start) || start < 0) {
      throw new ZipFormatError(`startOffset must be a non-negative integer, got ${start}`);
    }
    this.#position = start;
  }

  /** Bytes written to the sink so far (including `startOffset`). */
  get position(): number {
    return this.#position;
  }

  /** Number of entries written (or being written). */
  get size(): number {
    return this.#names.size;
  }

  /** Names added so far (including adds still running). */
  names(): IterableIterator<string> {
    return this.#names.values();
  }

  /** True when `name` was added. */
  has(name: string): boolean {
    return this.#names.has(name);
  }

  /** Adds a file entry named `name` (a `/`-separated path) holding `data`. */
  async add(name: string, data: Uint8Array, options: ZipAddOptions = {}): Promise<void> {
    this.#checkOpen(name);
    const unsafe = unsafeNameReason(name);
    if (unsafe || name.endsWith("/")) {
      throw new ZipFormatError(
        `cannot add entry ${JSON.stringify(name)}: ${unsafe ?? "file names must not end with /"}`,
        { path: name },
      );
    }
    if (this.#names.has(name)) {
      throw new ZipFormatError(
        `entry ${JSON.stringify(name)} was already written: zip entries are write-once`,
        {
          path: name,
        },
      );
    }
    if (!(data instanceof Uint8Array)) {
      throw new ZipFormatError(`entry ${JSON.stringify(name)}: data must be a Uint8Array`, {
        path: name,
      });
    }
    this.#names.add(name);
    // Reserve the place in the write order now; compress while earlier entries are written.
    const previous = this.#tail;
    const job = (async () => {
      let body: Uint8Array = data;
      let method = METHOD_STORED;
      const crc = crc32(data);
      try {
        if ((options.compress ?? this.#compress) && data.length > 0) {
          const deflated = await this.#deflate(data);
          if (deflated.length < data.length) {
            body = deflated;
            method = METHOD_DEFLATED;
          }
        }
        await previous;
        throwIfAborted(options.signal, name);
      } catch (e) {
        this.#names.delete(name); // nothing written: the name is free again
        throw e;
      }
      await this.#writeEntry(name, body, method, crc, data.length);
    })();
    this.#tail = job.catch(() => {});
    await job;
  }

  /** Writes the central directory and end records, then closes the sink. Adds still running are awaited. */
  async close(): Promise<void> {
    this.#checkOpen();
    this.#closed = true;
    await this.#tail;
    this.#throwIfFailed();
    const cdOffset = this.#position;
    for (const entry of this.#written) await this.#emit(this.#centralHeader(entry));
    const cdSize = this.#position - cdOffset;
    const count = this.#written.length;
    const zip64 = this.#force || count >= MAX16 || cdSize >= MAX32 || cdOffset >= MAX32;
    if (zip64) {
      const recordOffset = this.#position;
      const record = new Uint8Array(ZIP64_EOCD_SIZE + ZIP64_LOCATOR_SIZE);
      const v = viewOf(record);
      v.setUint32(0, ZIP64_EOCD_SIG, true);
      setUint64(v, 4, ZIP64_EOCD_SIZE - 12);
      v.setUint16(12, MADE_BY_UNIX | VERSION_ZIP64, true);
      v.setUint16(14, VERSION_ZIP64, true);
      setUint64(v, 24, count);
      setUint64(v, 32, count);
      setUint64(v, 40, cdSize);
      setUint64(v, 48, cdOffset);
      v.setUint32(56, ZIP64_LOCATOR_SIG, true);
      setUint64(v, 64, recordOffset);
      v.setUint32(72, 1, true);
      await this.#emit(record);
    }
    const eocd = new Uint8Array(EOCD_SIZE);
    const v = viewOf(eocd);
    v.setUint32(0, EOCD_SIG, true);
    const count16 = zip64 && (this.#force || count >= MAX16) ? MAX16 : count;
    v.setUint16(8, count16, true);
    v.setUint16(10, count16, true);
    v.setUint32(12, zip64 && (this.#force || cdSize >= MAX32) ? MAX32 : cdSize, true);
    v.setUint32(16, zip64 && (this.#force || cdOffset >= MAX32) ? MAX32 : cdOffset, true);
    await this.#emit(eocd);
    await this.#sink.close?.();
  }

  #checkOpen(name?: string): void {
    this.#throwIfFailed();
    if (this.#closed) {
      throw new ZipFormatError(
        `cannot ${name === undefined ? "close" : `add ${JSON.stringify(name)}`}: the zip writer is closed`,
        { path: name },
      );
    }
  }

  #throwIfFailed(): void {
    if (this.#failed !== undefined) {
      throw new ZipFormatError("the zip writer failed earlier: the archive is incomplete", {
        cause: this.#failed,
      });
    }
  }

  async #emit(bytes: Uint8Array): Promise<void> {
    try {
      await this.#sink.write(bytes);
    } catch (cause) {
      this.#failed ??= cause;
      throw new ZipFormatError(`writing the zip archive failed: ${(cause as Error).message}`, {
        cause,
      });
    }
    this.#position += bytes.length;
  }

  async #writeEntry(name: string, body: Uint8Array, method: number, crc: number, size: number) {
    this.#throwIfFailed();
    const nameBytes = UTF8.encode(name);
    const utf8 = nameBytes.length !== name.length;
    const offset = this.#position;
    const zip64 = this.#force || size >= MAX32 || body.length >= MAX32;
    const header = new Uint8Array(LOCAL_HEADER_SIZE + nameBytes.length + (zip64 ? 20 : 0));
    const v = viewOf(header);
    v.setUint32(0, LOCAL_HEADER_SIG, true);
    v.setUint16(4, zip64 ? VERSION_ZIP64 : VERSION_DEFAULT, true);
    v.setUint16(6, utf8 ? FLAG_UTF8 : 0, true);
    v.setUint16(8, method, true);
    v.setUint16(10, this.#dos.time, true);
    v.setUint16(12, this.#dos.date, true);
    v.setUint32(14, crc, true);
    v.setUint32(18, zip64 ? MAX32 : body.length, true);
    v.setUint32(22, zip64 ? MAX32 : size, true);
    v.setUint16(26, nameBytes.length, true);
    v.setUint16(28, zip64 ? 20 : 0, true);
    header.set(nameBytes, LOCAL_HEADER_SIZE);
    if (zip64) {
      // In a local header the zip64 field holds both sizes (APPNOTE 4.5.3).
      const at = LOCAL_HEADER_SIZE + nameBytes.length;
      v.setUint16(at, ZIP64_EXTRA_ID, true);
      v.setUint16(at + 2, 16, true);
      setUint64(v, at + 4, size);
      setUint64(v, at + 12, body.length);
    }
    await this.#emit(header);
    await this.#emit(body);
    this.#written.push({ nameBytes, utf8, method, crc, compressedSize: body.length, size, offset });
  }

  #centralHeader(e: Written): Uint8Array {
    const big = (n: number) => this.#force || n >= MAX32;
    const fields = [e.size, e.compressedSize, e.offset].filter(big);
    const extraLength = fields.length > 0 ? 4 + 8 * fields.length : 0;
    const out = new Uint8Array(CENTRAL_HEADER_SIZE + e.nameBytes.length + extraLength);
    const v = viewOf(out);
    const zip64 = fields.length > 0;
    v.setUint32(0, CENTRAL_HEADER_SIG, true);
    v.setUint16(4, MADE_BY_UNIX | (zip64 ? VERSION_ZIP64 : VERSION_DEFAULT), true);
    v.setUint16(6, zip64 ? VERSION_ZIP64 : VERSION_DEFAULT, true);
    v.setUint16(8, e.utf8 ? FLAG_UTF8 : 0, true);
    v.setUint16(10, e.method, true);
    v.setUint16(12, this.#dos.time, true);
    v.setUint16(14, this.#dos.date, true);
    v.setUint32(16, e.crc, true);
    v.setUint32(20, big(e.compressedSize) ? MAX32 : e.compressedSize, true);
    v.setUint32(24, big(e.size) ? MAX32 : e.size, true);
    v.setUint16(28, e.nameBytes.length, true);
    v.setUint16(30, extraLength, true);
    v.setUint32(38, UNIX_FILE_ATTRS, true);
    v.setUint32(42, big(e.offset) ? MAX32 : e.offset, true);
    out.set(e.nameBytes, CENTRAL_HEADER_SIZE);
    if (zip64) {
      let at = CENTRAL_HEADER_SIZE + e.nameBytes.length;
      v.setUint16(at, ZIP64_EXTRA_ID, true);
      v.setUint16(at + 2, 8 * fields.length, true);
      at += 4;
      for (const n of fields) {
        setUint64(v, at, n);
        at += 8;
      }
    }
    return out;
  }
}

/** MS-DOS date and time fields (APPNOTE 4.4.6), local time, clamped to 1980..2107. */
function dosDateTime(d: Date): { time: number; date: number } {
  const year = Math.min(Math.max(d.getFullYear(), 1980), 2107);
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1),
    date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

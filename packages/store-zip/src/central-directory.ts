/**
 * Reading an archive's table of contents: the end of central directory record
 * (and its zip64 form), then the central directory, in as few reads as
 * possible (usually one: the archive's tail).
 *
 * @module
 */

import { UnsupportedError } from "@zarr/core";
import { ZipFormatError } from "./errors.js";
import {
  CENTRAL_HEADER_SIG,
  CENTRAL_HEADER_SIZE,
  EOCD_SIG,
  EOCD_SIZE,
  FLAG_UTF8,
  getUint64,
  LOCAL_HEADER_SIZE,
  MAX16,
  MAX32,
  viewOf,
  ZIP64_EOCD_SIG,
  ZIP64_EOCD_SIZE,
  ZIP64_EXTRA_ID,
  ZIP64_LOCATOR_SIG,
  ZIP64_LOCATOR_SIZE,
} from "./format.js";
import { decodeName, unsafeNameReason } from "./names.js";
import type { RangeSource } from "./source.js";

/** One entry of the central directory. */
export interface ZipEntry {
  /** The name in the archive (directories end with `/`). */
  readonly name: string;
  /** Compression method: 0 (stored) or 8 (deflated); others are rejected when read. */
  readonly method: number;
  /** General purpose bit flags. */
  readonly flags: number;
  /** CRC-32 of the uncompressed data. */
  readonly crc32: number;
  /** Size of the stored (compressed) data in bytes. */
  readonly compressedSize: number;
  /** Size of the uncompressed data in bytes. */
  readonly size: number;
  /** Position of the entry's local header in the source (after adjusting for prepended data). */
  readonly localHeaderOffset: number;
  /** The name as stored (its local header must hold the same bytes). */
  readonly nameBytes: Uint8Array;
  /**
   * Where the entry's space ends: the next local header in the archive (by
   * position), or the central directory. The local header, the data and any
   * data descriptor of the entry lie in `[localHeaderOffset, limit)`, so no two
   * entries share a byte.
   */
  readonly limit: number;
}

/** The central directory: entries in archive order, and where it starts. */
export interface CentralDirectory {
  readonly entries: ZipEntry[];
  /** Where the central directory starts in the source; entry data lies before it. */
  readonly start: number;
  /** Bytes before the archive proper (self-extractor stubs); already added to offsets. */
  readonly prepended: number;
}

/** How many tail bytes the first read fetches: the largest EOCD (with a 64 KiB comment) and then some, so that small archives need one read in all. */
const TAIL_READ = 128 * 1024;

/** Reads and validates the central directory of the archive in `source`. */
export async function readCentralDirectory(
  source: RangeSource,
  signal?: AbortSignal,
): Promise<CentralDirectory> {
  const name = source.name;
  const fail = (reason: string) => new ZipFormatError(`${name}: ${reason}`, { path: name });
  const size = await source.size(signal);
  if (size < EOCD_SIZE) throw fail(`not a zip archive (${size} bytes)`);

  const tailStart = Math.max(0, size - TAIL_READ);
  const tail = await source.read(tailStart, size - tailStart, signal);
  const tailView = viewOf(tail);
  const read = async (offset: number, length: number): Promise<Uint8Array> => {
    if (offset < 0 || offset + length > size) {
      throw fail(`record at ${offset} (+${length} bytes) lies outside the archive`);
    }
    if (offset >= tailStart) return tail.subarray(offset - tailStart, offset - tailStart + length);
    return source.read(offset, length, signal);
  };

  // End of central directory: scan back over a comment of up to 64 KiB.
  let eocd = -1;
  for (let i = tail.length - EOCD_SIZE; i >= 0 && i >= tail.length - EOCD_SIZE - MAX16; i--) {
    if (
      tailView.getUint32(i, true) === EOCD_SIG &&
      i + EOCD_SIZE + tailView.getUint16(i + 20, true) <= tail.length
    ) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw fail("not a zip archive (no end of central directory record)");
  const eocdPos = tailStart + eocd;
  const disk = tailView.getUint16(eocd + 4, true);
  const cdDisk = tailView.getUint16(eocd + 6, true);
  let count = tailView.getUint16(eocd + 10, true);
  let cdSize = tailView.getUint32(eocd + 12, true);
  let cdOffset = tailView.getUint32(eocd + 16, true);
  let cdEnd = eocdPos; // where the central directory should end

  const locatorPos = eocdPos - ZIP64_LOCATOR_SIZE;
  const locator = locatorPos >= 0 ? viewOf(await read(locatorPos, ZIP64_LOCATOR_SIZE)) : undefined;
  if (locator && locator.getUint32(0, true) === ZIP64_LOCATOR_SIG) {
    // Zip64: the locator points at the zip64 record. With prepended data the
    // recorded offset is off; the record then sits right before the locator.
    const recorded = getUint64(locator, 8);
    let recordPos = locatorPos - ZIP64_EOCD_SIZE;
    if (recorded !== undefined && recorded + ZIP64_EOCD_SIZE <= locatorPos) {
      const probe = viewOf(await read(recorded, 4));
      if (probe.getUint32(0, true) === ZIP64_EOCD_SIG) recordPos = recorded;
    }
    if (recordPos < 0) throw fail("zip64 end of central directory record is missing");
    const record = viewOf(await read(recordPos, ZIP64_EOCD_SIZE));
    if (record.getUint32(0, true) !== ZIP64_EOCD_SIG) {
      throw fail("zip64 end of central directory record is missing");
    }
    const count64 = getUint64(record, 32);
    const size64 = getUint64(record, 40);
    const offset64 = getUint64(record, 48);
    if (count64 === undefined || size64 === undefined || offset64 === undefined) {
      throw fail("zip64 end of central directory record has sizes beyond 2^53");
    }
    if (record.getUint32(16, true) !== 0 || record.getUint32(20, true) !== 0) {
      throw new UnsupportedError(`${name}: multi-disk (split) zip archives are not supported`, {
        path: name,
      });
    }
    count = count64;
    cdSize = size64;
    cdOffset = offset64;
    cdEnd = recordPos;
  } else if (disk !== 0 || cdDisk !== 0) {
    throw new UnsupportedError(`${name}: multi-disk (split) zip archives are not supported`, {
      path: name,
    });
  } else if (count === MAX16 || cdSize === MAX32 || cdOffset === MAX32) {
    throw fail("end of central directory record needs zip64 data, but there is no zip64 locator");
  }

  const prepended = cdEnd - cdSize - cdOffset;
  if (prepended < 0) {
    throw fail(
      `central directory (${cdSize} bytes at ${cdOffset}) overlaps its end record at ${cdEnd}: truncated or corrupt archive`,
    );
  }
  if (count * CENTRAL_HEADER_SIZE > cdSize) {
    throw fail(`central directory of ${cdSize} bytes cannot hold ${count} entries`);
  }
  const start = cdOffset + prepended;
  const cd = await read(start, cdSize);
  return { entries: parseEntries(cd, count, start, prepended, fail), start, prepended };
}

function parseEntries(
  cd: Uint8Array,
  count: number,
  cdStart: number,
  prepended: number,
  fail: (reason: string) => ZipFormatError,
): ZipEntry[] {
  const view = viewOf(cd);
  const entries: Omit<ZipEntry, "limit">[] = [];
  let at = 0;
  while (at < cd.length) {
    if (at + CENTRAL_HEADER_SIZE > cd.length || view.getUint32(at, true) !== CENTRAL_HEADER_SIG) {
      throw fail(`central directory entry ${entries.length} at ${cdStart + at} is malformed`);
    }
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const crc32 = view.getUint32(at + 16, true);
    let compressedSize = view.getUint32(at + 20, true);
    let size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const diskStart = view.getUint16(at + 34, true);
    let localOffset = view.getUint32(at + 42, true);
    const nameStart = at + CENTRAL_HEADER_SIZE;
    const extraStart = nameStart + nameLength;
    const next = extraStart + extraLength + commentLength;
    if (next > cd.length) {
      throw fail(`central directory entry ${entries.length} runs past the central directory`);
    }
    const name = decodeName(cd.subarray(nameStart, extraStart), (flags & FLAG_UTF8) !== 0);
    if (name === undefined) {
      throw fail(`entry ${entries.length} has a name flagged UTF-8 that is not valid UTF-8`);
    }
    const where = `entry ${JSON.stringify(name)}`;

    // Zip64 extended information: 64-bit values for the fields set to 0xFFFFFFFF, in this order.
    if (size === MAX32 || compressedSize === MAX32 || localOffset === MAX32) {
      const extra = findExtra(view, extraStart, extraLength, ZIP64_EXTRA_ID);
      if (!extra) throw fail(`${where} needs a zip64 extra field and has none`);
      let p = extra.start;
      const take = (): number => {
        if (p + 8 > extra.end) throw fail(`${where} has a truncated zip64 extra field`);
        const v = getUint64(view, p);
        p += 8;
        if (v === undefined) throw fail(`${where} has a size or offset beyond 2^53`);
        return v;
      };
      if (size === MAX32) size = take();
      if (compressedSize === MAX32) compressedSize = take();
      if (localOffset === MAX32) localOffset = take();
    } else if (diskStart !== 0) {
      throw fail(`${where} starts on disk ${diskStart}: split archives are not supported`);
    }

    const unsafe = unsafeNameReason(name);
    if (unsafe) throw fail(`${where} would escape the archive root: ${unsafe}`);
    const localHeaderOffset = localOffset + prepended;
    const nameBytes = cd.slice(nameStart, extraStart);
    if (localHeaderOffset + LOCAL_HEADER_SIZE + nameLength + compressedSize > cdStart) {
      throw fail(
        `${where}: its data (${compressedSize} bytes at ${localHeaderOffset}) overlaps the central directory`,
      );
    }
    entries.push({
      name,
      method,
      flags,
      crc32,
      compressedSize,
      size,
      localHeaderOffset,
      nameBytes,
    });
    at = next;
  }
  // Some writers store the entry count modulo 2^16 without zip64; accept that, nothing else.
  if (entries.length !== count && entries.length % 0x10000 !== count) {
    throw fail(`central directory declares ${count} entries but holds ${entries.length}`);
  }
  return withLimits(entries, cdStart, fail);
}

/**
 * Gives each entry its {@link ZipEntry.limit} (the next local header by
 * position, or the central directory), failing when one entry's smallest
 * possible extent (a local header with no extra field, then its data)
 * reaches past the next one's local header: overlapping entries (two entries
 * on one local header, an entry inside another's data) are how zip bombs
 * and "one archive, two contents" attacks are built. Checked here, from the
 * central directory alone (no reads); the rest of each local header is checked
 * when the entry is first read.
 */
function withLimits(
  entries: Omit<ZipEntry, "limit">[],
  cdStart: number,
  fail: (reason: string) => ZipFormatError,
): ZipEntry[] {
  const order = entries.map((_, i) => i);
  order.sort((a, b) => entries[a].localHeaderOffset - entries[b].localHeaderOffset);
  const limits = new Array<number>(entries.length);
  for (let k = 0; k < order.length; k++) {
    const e = entries[order[k]];
    const limit = k + 1 < order.length ? entries[order[k + 1]].localHeaderOffset : cdStart;
    const end = e.localHeaderOffset + LOCAL_HEADER_SIZE + e.nameBytes.length + e.compressedSize;
    if (end > limit) {
      const other = entries[order[k + 1]];
      throw fail(
        `entries ${JSON.stringify(e.name)} (${e.compressedSize} bytes at ${e.localHeaderOffset}) and ${JSON.stringify(other.name)} (local header at ${other.localHeaderOffset}) overlap`,
      );
    }
    limits[order[k]] = limit;
  }
  return entries.map((e, i) => ({ ...e, limit: limits[i] }));
}

/** Finds extra field `id` in `[start, start + length)`; returns its data range. */
export function findExtra(
  view: DataView,
  start: number,
  length: number,
  id: number,
): { start: number; end: number } | undefined {
  let p = start;
  const end = start + length;
  while (p + 4 <= end) {
    const fieldId = view.getUint16(p, true);
    const fieldSize = view.getUint16(p + 2, true);
    if (p + 4 + fieldSize > end) return undefined;
    if (fieldId === id) return { start: p + 4, end: p + 4 + fieldSize };
    p += 4 + fieldSize;
  }
  return undefined;
}

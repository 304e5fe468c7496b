/**
 * Walks the frames of a zstd stream (RFC 8878 section 3.1) without decoding
 * them: frame boundaries, declared content sizes, checksum flags, and an upper
 * bound on each frame's output computed from its block headers. The decoder
 * uses it to size output buffers from what the metadata allows, never from
 * what an untrusted header claims.
 *
 * @module
 */

/** Magic number of a zstd frame (RFC 8878 3.1.1). */
export const ZSTD_MAGIC = 0xfd2fb528;
/** Skippable frames use magic numbers 0x184D2A50..0x184D2A5F (RFC 8878 3.1.2). */
const SKIPPABLE_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;
/** Block_Maximum_Size cap (RFC 8878 3.1.1.2.3). */
const MAX_BLOCK = 128 * 1024;

/** One zstd frame found in a stream. */
export interface FrameInfo {
  /** Offset of the magic number. */
  readonly start: number;
  /** Offset just past the frame (after the checksum, if any). */
  readonly end: number;
  /** Frame_Content_Size when the header has it. */
  readonly contentSize: number | undefined;
  /** Upper bound of the decoded size, from the block headers (equals contentSize when known). */
  readonly maxSize: number;
  readonly hasChecksum: boolean;
  /** Dictionary_ID (RFC 8878 3.1.1.1.3); 0 when the header names none. */
  readonly dictionaryId: number;
  /** Offset of the Frame_Header_Descriptor byte. */
  readonly descriptorOffset: number;
}

/** A malformed stream; the message says what and where. */
export class FrameError extends Error {}

function u32(data: Uint8Array, at: number): number {
  return (data[at]! | (data[at + 1]! << 8) | (data[at + 2]! << 16) | (data[at + 3]! << 24)) >>> 0;
}

function need(data: Uint8Array, at: number, n: number, what: string): void {
  if (at + n > data.length) {
    throw new FrameError(
      `truncated: ${what} at byte ${at} needs ${n} bytes, ${data.length - at} left`,
    );
  }
}

/**
 * Lists the zstd frames of `data`, skipping skippable frames. Throws
 * {@link FrameError} for anything that is not a sequence of complete frames,
 * and for a frame naming a dictionary unless `allowDictionaries` is set.
 */
export function scanFrames(data: Uint8Array, allowDictionaries = false): FrameInfo[] {
  if (data.length === 0) throw new FrameError("empty input: no zstd frame");
  const frames: FrameInfo[] = [];
  let at = 0;
  while (at < data.length) {
    need(data, at, 4, "magic number");
    const magic = u32(data, at);
    if ((magic & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_MAGIC) {
      need(data, at + 4, 4, "skippable frame size");
      const size = u32(data, at + 4);
      need(data, at + 8, size, "skippable frame");
      at += 8 + size;
      continue;
    }
    if (magic !== ZSTD_MAGIC) {
      throw new FrameError(
        `bad magic number 0x${magic.toString(16)} at byte ${at} (expected 0x${ZSTD_MAGIC.toString(16)})`,
      );
    }
    const frame = scanFrame(data, at, allowDictionaries);
    frames.push(frame);
    at = frame.end;
  }
  if (frames.length === 0) throw new FrameError("no zstd frame (only skippable frames)");
  return frames;
}

function scanFrame(data: Uint8Array, start: number, allowDictionaries: boolean): FrameInfo {
  let at = start + 4;
  need(data, at, 1, "frame header descriptor");
  const descriptorOffset = at;
  const fhd = data[at++]!;
  const fcsFlag = fhd >>> 6;
  const singleSegment = (fhd & 0x20) !== 0;
  const hasChecksum = (fhd & 0x04) !== 0;
  const dictFlag = fhd & 0x03;
  if (fhd & 0x08) throw new FrameError(`reserved bit set in frame header at byte ${start}`);
  let windowSize = 0;
  if (!singleSegment) {
    need(data, at, 1, "window descriptor");
    const wd = data[at++]!;
    const windowLog = 10 + (wd >>> 3);
    const base = 2 ** windowLog;
    windowSize = base + (base / 8) * (wd & 7);
  }
  const dictSize = [0, 1, 2, 4][dictFlag]!;
  need(data, at, dictSize, "dictionary id");
  let dictId = 0;
  for (let i = 0; i < dictSize; i++) dictId += data[at + i]! * 2 ** (8 * i);
  at += dictSize;
  if (dictId !== 0 && !allowDictionaries) {
    throw new FrameError(
      `frame at byte ${start} needs dictionary ${dictId}; dictionaries are not supported`,
    );
  }
  const fcsSize = [singleSegment ? 1 : 0, 2, 4, 8][fcsFlag]!;
  need(data, at, fcsSize, "frame content size");
  let contentSize: number | undefined;
  if (fcsSize > 0) {
    let v = 0;
    for (let i = 0; i < fcsSize; i++) v += data[at + i]! * 2 ** (8 * i);
    contentSize = fcsSize === 2 ? v + 256 : v;
    at += fcsSize;
  }
  if (singleSegment) windowSize = contentSize!;
  const blockMax = Math.min(windowSize, MAX_BLOCK);

  let bound = 0;
  for (;;) {
    need(data, at, 3, "block header");
    const header = data[at]! | (data[at + 1]! << 8) | (data[at + 2]! << 16);
    at += 3;
    const last = header & 1;
    const type = (header >>> 1) & 3;
    const size = header >>> 3;
    if (type === 3) throw new FrameError(`reserved block type at byte ${at - 3}`);
    if (size > blockMax && type !== 1) {
      throw new FrameError(
        `block of ${size} bytes at byte ${at - 3} exceeds the maximum ${blockMax}`,
      );
    }
    if (type === 0) {
      need(data, at, size, "raw block");
      at += size;
      bound += size;
    } else if (type === 1) {
      need(data, at, 1, "RLE block");
      if (size > blockMax) throw new FrameError(`RLE block of ${size} bytes exceeds ${blockMax}`);
      at += 1;
      bound += size;
    } else {
      need(data, at, size, "compressed block");
      at += size;
      bound += blockMax;
    }
    if (last) break;
  }
  if (hasChecksum) {
    need(data, at, 4, "content checksum");
    at += 4;
  }
  if (contentSize !== undefined && contentSize > bound) {
    throw new FrameError(
      `frame at byte ${start} declares ${contentSize} bytes but its blocks hold at most ${bound}`,
    );
  }
  return {
    start,
    end: at,
    contentSize,
    maxSize: contentSize ?? bound,
    hasChecksum,
    dictionaryId: dictId,
    descriptorOffset,
  };
}

/**
 * The same frame without Frame_Content_Size (RFC 8878 3.1.1.1.1), so that a
 * decoder sizes its output from the caller's capacity instead of allocating
 * what the header claims. A single-segment frame (whose window is its content
 * size) gets a Window_Descriptor instead: the smallest power of two >= the
 * content size (at least 1 KiB), with Single_Segment_flag cleared. The blocks
 * and the checksum are unchanged; the caller must check the output length
 * against `info.contentSize` itself.
 */
export function withoutContentSize(data: Uint8Array, info: FrameInfo): Uint8Array {
  const frame = data.subarray(info.start, info.end);
  const at = info.descriptorOffset - info.start;
  const fhd = frame[at]!;
  const fcsFlag = fhd >>> 6;
  const singleSegment = (fhd & 0x20) !== 0;
  const fcsSize = [singleSegment ? 1 : 0, 2, 4, 8][fcsFlag]!;
  if (fcsSize === 0) return frame;
  const dictSize = [0, 1, 2, 4][fhd & 0x03]!;
  let windowDescriptor: number;
  if (singleSegment) {
    const size = info.contentSize ?? 0;
    let log = 10;
    while (2 ** log < size) log++;
    windowDescriptor = (log - 10) << 3;
  } else {
    windowDescriptor = frame[at + 1]!;
  }
  const dictStart = at + 1 + (singleSegment ? 0 : 1);
  const rest = dictStart + dictSize + fcsSize;
  const out = new Uint8Array(at + 2 + dictSize + (frame.length - rest));
  out.set(frame.subarray(0, at));
  out[at] = fhd & 0x1f; // FCS_flag 0, Single_Segment_flag 0
  out[at + 1] = windowDescriptor;
  out.set(frame.subarray(dictStart, dictStart + dictSize), at + 2);
  out.set(frame.subarray(rest), at + 2 + dictSize);
  return out;
}

/**
 * Decompression bombs: small, valid-looking compressed values that expand to
 * huge outputs, built without ever holding the output (or compressing it), so
 * a test can make a 1 GiB bomb in milliseconds. Every builder is checked
 * against the real decoders in tools/attacks/test/codec-bombs.test.ts (small
 * sizes decode to exactly the promised zeros).
 *
 * @module
 */

import { constants, crc32, createDeflate, createGzip, deflateRawSync } from "node:zlib";

/** 1 MiB. */
export const MiB = 1 << 20;
/** 1 GiB. */
export const GiB = 1 << 30;

/** Concatenates byte arrays. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** `n` copies of `part`. */
export function repeatBytes(part: Uint8Array, n: number): Uint8Array {
  return concatBytes(Array.from({ length: n }, () => part));
}

const SEGMENT = 16 * MiB;
let segment: Uint8Array | undefined;

/**
 * A raw deflate stream (RFC 1951) of `size` zero bytes (a multiple of 16 MiB,
 * or less than that): 16 MiB of zeros compressed and ended with a full flush
 * (byte-aligned, nothing refers back past it) repeated, then an empty final
 * block.
 */
export function deflateZeros(size: number): Uint8Array {
  const parts: Uint8Array[] = [];
  let left = size;
  if (left >= SEGMENT) {
    segment ??= deflateRawSync(new Uint8Array(SEGMENT), {
      level: 9,
      finishFlush: constants.Z_FULL_FLUSH,
    });
    const n = Math.floor(left / SEGMENT);
    parts.push(repeatBytes(segment, n));
    left -= n * SEGMENT;
  }
  if (left > 0) {
    parts.push(
      deflateRawSync(new Uint8Array(left), { level: 9, finishFlush: constants.Z_FULL_FLUSH }),
    );
  }
  parts.push(Uint8Array.of(0x03, 0x00)); // BFINAL=1, fixed Huffman, end of block
  return concatBytes(parts);
}

/** CRC-32 of `size` zero bytes (needs no buffer of that size). */
function crc32OfZeros(size: number): number {
  const block = new Uint8Array(Math.min(size, SEGMENT));
  let crc = 0;
  for (let left = size; left > 0; left -= block.length) {
    crc = crc32(left >= block.length ? block : block.subarray(0, left), crc);
  }
  return crc;
}

/**
 * A gzip member (RFC 1952) of `size` zeros with a correct CRC-32 and ISIZE
 * (or `members` such members, concatenated). `header` adds optional fields
 * (FNAME, FCOMMENT, FEXTRA) of that many bytes each.
 */
export function gzipZeros(size: number, members = 1, headerField = 0): Uint8Array {
  const body = deflateZeros(size);
  const flags = headerField > 0 ? 0x04 | 0x08 | 0x10 : 0;
  const head: number[] = [0x1f, 0x8b, 8, flags, 0, 0, 0, 0, 0, 0xff];
  if (headerField > 0) {
    const extra = Math.min(headerField, 0xffff);
    head.push(extra & 0xff, extra >>> 8, ...new Array<number>(extra).fill(0x41));
    head.push(...new Array<number>(headerField).fill(0x61), 0); // FNAME
    head.push(...new Array<number>(headerField).fill(0x62), 0); // FCOMMENT
  }
  const trailer = new Uint8Array(8);
  const view = new DataView(trailer.buffer);
  view.setUint32(0, crc32OfZeros(size), true);
  view.setUint32(4, size % 2 ** 32, true);
  return repeatBytes(concatBytes([Uint8Array.from(head), body, trailer]), members);
}

/** A zlib stream (RFC 1950) of `size` zeros with a correct Adler-32. */
export function zlibZeros(size: number): Uint8Array {
  const adler = ((size % 65521) * 65536 + 1) >>> 0;
  const trailer = new Uint8Array(4);
  new DataView(trailer.buffer).setUint32(0, adler, false);
  return concatBytes([Uint8Array.of(0x78, 0xda), deflateZeros(size), trailer]);
}

/** Options of {@link zstdZeros}. */
export interface ZstdBombOptions {
  /** Frame_Content_Size to declare: a number (true or not), or none (default). */
  readonly contentSize?: number;
  /** Set Single_Segment_flag (needs `contentSize`). */
  readonly singleSegment?: boolean;
}

/**
 * A zstd frame (RFC 8878) of `size` zero bytes as RLE blocks of 128 KiB (4
 * bytes each: 1 GiB is a 32 KiB frame), window 128 KiB.
 */
export function zstdZeros(size: number, options: ZstdBombOptions = {}): Uint8Array {
  const { contentSize, singleSegment = false } = options;
  const head: number[] = [0x28, 0xb5, 0x2f, 0xfd];
  if (contentSize === undefined) {
    head.push(0x00, (17 - 10) << 3);
  } else {
    head.push(0xc0 | (singleSegment ? 0x20 : 0));
    if (!singleSegment) head.push((17 - 10) << 3);
    for (let i = 0; i < 8; i++) head.push(Math.floor(contentSize / 2 ** (8 * i)) & 0xff);
  }
  const block = 128 * 1024;
  const nblocks = Math.max(1, Math.ceil(size / block));
  const out = new Uint8Array(head.length + 4 * nblocks);
  out.set(head);
  let at = head.length;
  for (let b = 0; b < nblocks; b++) {
    const n = Math.min(block, size - b * block);
    const last = b === nblocks - 1 ? 1 : 0;
    const h = last | (1 << 1) | (n << 3);
    out[at++] = h & 0xff;
    out[at++] = (h >>> 8) & 0xff;
    out[at++] = h >>> 16;
    out[at++] = 0;
  }
  return out;
}

/**
 * A zstd frame declaring `contentSize` bytes whose blocks are `nblocks`
 * two-byte compressed blocks of garbage: the header claims far more than the
 * data can produce, but its block count makes the claim look possible.
 */
export function zstdLyingFrame(contentSize: number, nblocks: number): Uint8Array {
  const head = [0x28, 0xb5, 0x2f, 0xfd, 0xc0, (27 - 10) << 3];
  for (let i = 0; i < 8; i++) head.push(Math.floor(contentSize / 2 ** (8 * i)) & 0xff);
  const out = new Uint8Array(head.length + 5 * nblocks);
  out.set(head);
  let at = head.length;
  for (let b = 0; b < nblocks; b++) {
    const h = (b === nblocks - 1 ? 1 : 0) | (2 << 1) | (2 << 3);
    out.set([h & 0xff, (h >>> 8) & 0xff, h >>> 16, 0x01, 0x00], at);
    at += 5;
  }
  return out;
}

/**
 * An LZ4 block (the format of numcodecs' LZ4 after its 4-byte size header)
 * of `size` >= 25 zero bytes: one literal, one match of `size - 6` bytes at
 * offset 1 (its length in 255-byte extensions: 1 GiB is a 4 MiB block), then
 * five literals.
 */
export function lz4BlockZeros(size: number): Uint8Array {
  const matchLen = size - 6;
  const ext = matchLen - 4 - 15;
  const full = Math.floor(ext / 255);
  const out = new Uint8Array(4 + full + 1 + 6);
  out.set([0x1f, 0x00, 0x01, 0x00]);
  out.fill(255, 4, 4 + full);
  out[4 + full] = ext % 255;
  out[5 + full] = 0x50; // five literals, the end of the block
  return out;
}

/** numcodecs' LZ4: little-endian `declared` size (default: the real size), then the block. */
export function numcodecsLz4Zeros(size: number, declared = size): Uint8Array {
  const header = new Uint8Array(4);
  new DataView(header.buffer).setUint32(0, declared, true);
  return concatBytes([header, lz4BlockZeros(size)]);
}

/**
 * A Blosc 1 chunk (header version 2) declaring `nbytes` zeros in zstd streams
 * (one block of up to 256 MiB per stream, each an RLE zstd frame with its
 * content size): 1 GiB is a 32 KiB chunk that passes every layout check.
 */
export function bloscZstdZeros(nbytes: number): Uint8Array {
  const blocksize = Math.min(nbytes, 256 * MiB);
  const nblocks = Math.ceil(nbytes / blocksize);
  const streams: Uint8Array[] = [];
  for (let b = 0; b < nblocks; b++) {
    const n = Math.min(blocksize, nbytes - b * blocksize);
    const frame = zstdZeros(n, { contentSize: n });
    const s = new Uint8Array(4 + frame.length);
    new DataView(s.buffer).setInt32(0, frame.length, true);
    s.set(frame, 4);
    streams.push(s);
  }
  const header = new Uint8Array(16 + 4 * nblocks);
  const view = new DataView(header.buffer);
  header.set([2, 1, (4 << 5) | 0x10, 1]); // version 2, zstd, don't split, typesize 1
  view.setUint32(4, nbytes, true);
  view.setUint32(8, blocksize, true);
  let pos = header.length;
  for (let b = 0; b < nblocks; b++) {
    view.setUint32(16 + 4 * b, pos, true);
    pos += streams[b]!.length;
  }
  view.setUint32(12, pos, true);
  return concatBytes([header, ...streams]);
}

// Stream-built bombs and hand-made zstd frames (array-level attacks).
/**
 * A zstd frame of RLE blocks (format: RFC 8878 §3.1.1): no content size in the
 * header, so a decoder learns the output size only by decoding. Each 4-byte
 * block regenerates 128 KiB of `byte`.
 */
export function zstdRleBomb(decodedBytes: number, byte = 0x61): Uint8Array {
  const block = 128 * 1024;
  const blocks = Math.ceil(decodedBytes / block);
  const out = new Uint8Array(6 + blocks * 4);
  new DataView(out.buffer).setUint32(0, 0xfd2fb528, true);
  out[4] = 0x00; // no content size, not single-segment, no checksum, no dictionary
  out[5] = 7 << 3; // window 2^(10+7) = 128 KiB
  for (let i = 0; i < blocks; i++) {
    const size = Math.min(block, decodedBytes - i * block);
    const header = (size << 3) | (1 << 1) | (i === blocks - 1 ? 1 : 0); // RLE block
    const at = 6 + i * 4;
    out[at] = header & 0xff;
    out[at + 1] = (header >>> 8) & 0xff;
    out[at + 2] = (header >>> 16) & 0xff;
    out[at + 3] = byte;
  }
  return out;
}

/** A zlib (`deflate`) or gzip stream of `decodedBytes` copies of `byte`, compressed at level 9. */
export async function zlibBomb(
  format: "zlib" | "gzip",
  decodedBytes: number,
  byte = 0,
): Promise<Uint8Array> {
  const stream = format === "gzip" ? createGzip({ level: 9 }) : createDeflate({ level: 9 });
  const parts: Buffer[] = [];
  stream.on("data", (b: Buffer) => parts.push(b));
  const done = new Promise<void>((resolve, reject) => {
    stream.on("end", resolve);
    stream.on("error", reject);
  });
  const piece = Buffer.alloc(16 << 20, byte);
  for (let left = decodedBytes; left > 0; left -= piece.length) {
    const part = left >= piece.length ? piece : piece.subarray(0, left);
    if (!stream.write(part)) await new Promise((r) => stream.once("drain", r));
  }
  stream.end();
  await done;
  return new Uint8Array(Buffer.concat(parts));
}

/** A zstd frame holding `payload` in raw (uncompressed) blocks, with its content size declared. */
export function zstdRawFrame(payload: Uint8Array): Uint8Array {
  const block = 128 * 1024;
  const blocks = Math.max(1, Math.ceil(payload.length / block));
  const out = new Uint8Array(5 + 8 + blocks * 3 + payload.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0xfd2fb528, true);
  out[4] = (3 << 6) | (1 << 5); // 8-byte content size, single segment
  view.setBigUint64(5, BigInt(payload.length), true);
  let at = 13;
  for (let i = 0; i < blocks; i++) {
    const part = payload.subarray(i * block, (i + 1) * block);
    const header = (part.length << 3) | (i === blocks - 1 ? 1 : 0); // raw block
    out[at] = header & 0xff;
    out[at + 1] = (header >>> 8) & 0xff;
    out[at + 2] = (header >>> 16) & 0xff;
    out.set(part, at + 3);
    at += 3 + part.length;
  }
  return out;
}

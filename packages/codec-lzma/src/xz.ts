/**
 * The .xz container (xz file format 1.0.4): stream header, blocks with their
 * filter chains (LZMA2, optionally after Delta) and integrity checks (none,
 * CRC32, CRC64, SHA-256), the index and the stream footer, concatenated
 * streams with stream padding. Every size in the index and block headers is
 * checked against what was decoded.
 *
 * @module
 */
import { UnsupportedError } from "@zarr/core";
import { crc32, crc64, sha256 } from "./checksums.js";
import { decodeLzma2, LzmaDecoder, windowOf } from "./lzma-decode.js";
import { corrupt, Output } from "./output.js";

const CODEC = "lzma";
const HEADER_MAGIC = [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00];
/** Check type ids of liblzma. */
export const CHECK_NONE = 0;
export const CHECK_CRC32 = 1;
export const CHECK_CRC64 = 4;
export const CHECK_SHA256 = 10;
/** Filter ids. */
export const FILTER_DELTA = 0x03;
export const FILTER_LZMA2 = 0x21;
export const FILTER_LZMA1 = 0x4000000000000001n;

const CHECK_SIZES: Record<number, number> = { 0: 0, 1: 4, 4: 8, 10: 32 };

/** LZMA2's dictionary size from its one-byte property. */
export function lzma2DictSize(b: number, path: string): number {
  if (b > 40) throw corrupt(path, CODEC, `LZMA2 dictionary size property ${b} (<= 40)`);
  if (b === 40) return 0xffffffff;
  return (2 | (b & 1)) * 2 ** (Math.floor(b / 2) + 11);
}

/** A variable-length integer reader over a bounded slice. */
class Cursor {
  constructor(
    readonly input: Uint8Array,
    public pos: number,
    readonly end: number,
    readonly path: string,
  ) {}

  byte(): number {
    if (this.pos >= this.end) throw corrupt(this.path, CODEC, "unexpected end of xz data");
    return this.input[this.pos++];
  }

  u32(): number {
    const v = this.byte() | (this.byte() << 8) | (this.byte() << 16) | (this.byte() << 24);
    return v >>> 0;
  }

  /** An xz variable-length integer (at most 9 bytes, no redundant trailing zero). */
  vli(): number {
    let v = 0;
    for (let i = 0; i < 9; i++) {
      const b = this.byte();
      if (i > 0 && b === 0) throw corrupt(this.path, CODEC, "non-minimal variable-length integer");
      v += (b & 0x7f) * 2 ** (7 * i);
      if (!(b & 0x80)) {
        if (v > Number.MAX_SAFE_INTEGER) throw corrupt(this.path, CODEC, "integer too large");
        return v;
      }
    }
    throw corrupt(this.path, CODEC, "variable-length integer longer than 9 bytes");
  }
}

/** One decoding filter of a block's chain (LZMA2 is always last). */
type Filter = { id: "delta"; dist: number } | { id: "lzma2"; dictSize: number };

/** Undoes the Delta filter over `buf[start..end)`. */
export function undoDelta(buf: Uint8Array, start: number, end: number, dist: number): void {
  for (let i = start + dist; i < end; i++) buf[i] = (buf[i] + buf[i - dist]) & 0xff;
}

function checkMatches(
  input: Uint8Array,
  pos: number,
  type: number,
  data: Uint8Array,
  path: string,
): void {
  let expected: Uint8Array;
  if (type === CHECK_NONE) return;
  if (type === CHECK_CRC32) {
    expected = new Uint8Array(4);
    new DataView(expected.buffer).setUint32(0, crc32(data), true);
  } else if (type === CHECK_CRC64) {
    const [lo, hi] = crc64(data);
    expected = new Uint8Array(8);
    const v = new DataView(expected.buffer);
    v.setUint32(0, lo, true);
    v.setUint32(4, hi, true);
  } else expected = sha256(data);
  for (let i = 0; i < expected.length; i++) {
    if (input[pos + i] !== expected[i]) throw corrupt(path, CODEC, "block check mismatch");
  }
}

function readBlockHeader(
  c: Cursor,
  first: number,
): { filters: Filter[]; compressed?: number; uncompressed?: number } {
  const path = c.path;
  const start = c.pos - 1;
  const size = (first + 1) * 4;
  if (c.end - start < size) throw corrupt(path, CODEC, "truncated block header");
  const stored = new DataView(c.input.buffer, c.input.byteOffset + start + size - 4, 4).getUint32(
    0,
    true,
  );
  if (crc32(c.input.subarray(start, start + size - 4)) !== stored)
    throw corrupt(path, CODEC, "block header CRC mismatch");
  const h = new Cursor(c.input, c.pos, start + size - 4, path);
  const flags = h.byte();
  if (flags & 0x3c) throw corrupt(path, CODEC, "reserved block flags set");
  const compressed = flags & 0x40 ? h.vli() : undefined;
  const uncompressed = flags & 0x80 ? h.vli() : undefined;
  if (compressed === 0) throw corrupt(path, CODEC, "block compressed size 0");
  const count = (flags & 3) + 1;
  const filters: Filter[] = [];
  for (let i = 0; i < count; i++) {
    const id = h.vli();
    const propsSize = h.vli();
    if (propsSize > h.end - h.pos) throw corrupt(path, CODEC, "truncated filter properties");
    const last = i === count - 1;
    if (id === FILTER_LZMA2 && last && propsSize === 1) {
      filters.push({ id: "lzma2", dictSize: lzma2DictSize(h.byte(), path) });
    } else if (id === FILTER_DELTA && !last && propsSize === 1) {
      filters.push({ id: "delta", dist: h.byte() + 1 });
    } else if (id === FILTER_LZMA2 || id === FILTER_DELTA) {
      throw corrupt(
        path,
        CODEC,
        `filter 0x${id.toString(16)} misplaced or with ${propsSize} property bytes`,
      );
    } else {
      throw new UnsupportedError(
        `${path}: ${CODEC}: xz filter 0x${id.toString(16)} is not supported (LZMA2 and Delta are)`,
        { path },
      );
    }
  }
  if (filters[filters.length - 1].id !== "lzma2")
    throw new UnsupportedError(`${path}: ${CODEC}: xz filter chains must end with LZMA2`, { path });
  while (h.pos < h.end)
    if (h.byte() !== 0) throw corrupt(path, CODEC, "nonzero block header padding");
  c.pos = start + size;
  return { filters, compressed, uncompressed };
}

function decodeStream(c: Cursor, out: Output): void {
  const path = c.path;
  const input = c.input;
  const streamStart = c.pos;
  for (const m of HEADER_MAGIC)
    if (c.byte() !== m) throw corrupt(path, CODEC, "missing the xz stream header");
  const flags0 = c.byte();
  const flags1 = c.byte();
  if (crc32(input.subarray(c.pos - 2, c.pos)) !== c.u32())
    throw corrupt(path, CODEC, "stream header CRC mismatch");
  if (flags0 !== 0 || flags1 > 0x0f) throw corrupt(path, CODEC, "reserved stream flags set");
  const checkSize = CHECK_SIZES[flags1];
  if (checkSize === undefined)
    throw new UnsupportedError(`${path}: ${CODEC}: xz check type ${flags1} is not supported`, {
      path,
    });
  void streamStart;

  const records: [number, number][] = [];
  for (;;) {
    const first = c.byte();
    if (first === 0) break;
    const blockStart = c.pos - 1;
    const header = readBlockHeader(c, first);
    const dataStart = c.pos;
    const outStart = out.length;
    const lzma2 = header.filters[header.filters.length - 1] as { dictSize: number };
    const dec = new LzmaDecoder(out, windowOf(lzma2.dictSize), path, CODEC);
    const dataEnd =
      header.compressed === undefined ? c.end : Math.min(c.end, dataStart + header.compressed);
    c.pos = decodeLzma2(dec, input, dataStart, dataEnd);
    const compressed = c.pos - dataStart;
    const produced = out.length - outStart;
    if (header.compressed !== undefined && compressed !== header.compressed)
      throw corrupt(path, CODEC, "block compressed size differs from its header");
    if (header.uncompressed !== undefined && produced !== header.uncompressed)
      throw corrupt(path, CODEC, "block uncompressed size differs from its header");
    for (let i = header.filters.length - 2; i >= 0; i--) {
      const f = header.filters[i] as { dist: number };
      undoDelta(out.buf, outStart, out.length, f.dist);
    }
    while ((c.pos - dataStart) % 4)
      if (c.byte() !== 0) throw corrupt(path, CODEC, "nonzero block padding");
    if (c.end - c.pos < checkSize) throw corrupt(path, CODEC, "truncated block check");
    checkMatches(input, c.pos, flags1, out.buf.subarray(outStart, out.length), path);
    c.pos += checkSize;
    records.push([dataStart - blockStart + compressed + checkSize, produced]);
  }

  // Index: must list exactly the blocks read.
  const indexStart = c.pos - 1;
  const n = c.vli();
  if (n !== records.length)
    throw corrupt(path, CODEC, `index lists ${n} blocks, the stream has ${records.length}`);
  for (const [unpadded, uncompressed] of records) {
    if (c.vli() !== unpadded || c.vli() !== uncompressed)
      throw corrupt(path, CODEC, "index record differs from its block");
  }
  while ((c.pos - indexStart) % 4)
    if (c.byte() !== 0) throw corrupt(path, CODEC, "nonzero index padding");
  const indexCrc = crc32(input.subarray(indexStart, c.pos));
  if (c.u32() !== indexCrc) throw corrupt(path, CODEC, "index CRC mismatch");
  const indexSize = c.pos - indexStart;

  // Footer.
  const footerCrc = c.u32();
  if (crc32(input.subarray(c.pos, Math.min(c.pos + 6, c.end))) !== footerCrc)
    throw corrupt(path, CODEC, "stream footer CRC mismatch");
  const backward = (c.u32() + 1) * 4;
  if (backward !== indexSize)
    throw corrupt(path, CODEC, "stream footer index size differs from the index");
  if (c.byte() !== flags0 || c.byte() !== flags1)
    throw corrupt(path, CODEC, "stream footer flags differ from the header");
  if (c.byte() !== 0x59 || c.byte() !== 0x5a)
    throw corrupt(path, CODEC, "missing the xz stream footer magic");
}

/**
 * Decompresses .xz data: one or more streams, separated by stream padding.
 * More than `limit` decoded bytes is a `CodecError`.
 */
export function xzDecompress(
  input: Uint8Array,
  limit: number,
  path: string,
  exact?: number,
): Uint8Array {
  const out = new Output(limit, path, CODEC, exact);
  const c = new Cursor(input, 0, input.length, path);
  do {
    decodeStream(c, out);
    const padStart = c.pos;
    while (c.pos < input.length && input[c.pos] === 0) c.pos++;
    if ((c.pos - padStart) % 4)
      throw corrupt(path, CODEC, "stream padding is not a multiple of 4 bytes");
  } while (c.pos < input.length);
  return out.result();
}

function vliBytes(v: number): number[] {
  const out: number[] = [];
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return out;
}

function le32(v: number): number[] {
  return [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff];
}

/** The integrity check bytes of `data` for check type `check`. */
function checkBytes(check: number, data: Uint8Array): Uint8Array {
  if (check === CHECK_CRC32) return Uint8Array.from(le32(crc32(data)));
  if (check === CHECK_CRC64) {
    const [lo, hi] = crc64(data);
    return Uint8Array.from([...le32(lo), ...le32(hi)]);
  }
  if (check === CHECK_SHA256) return sha256(data);
  return new Uint8Array(0);
}

/** Filter flags of an xz block header: the id, its property size and properties. */
export type FilterFlags = readonly [id: number, props: readonly number[]];

/**
 * Wraps one block of filtered, compressed data in an .xz stream. `payload` is
 * the LZMA2 chunk sequence, `filters` the block's chain (ending with LZMA2),
 * `data` the uncompressed bytes (for the check and the sizes).
 */
export function xzWrap(
  payload: Uint8Array,
  data: Uint8Array,
  filters: readonly FilterFlags[],
  check: number,
): Uint8Array {
  const checkSize = CHECK_SIZES[check];
  const parts: Uint8Array[] = [];
  const flags = [0, check];
  parts.push(Uint8Array.from([...HEADER_MAGIC, ...flags, ...le32(crc32(Uint8Array.from(flags)))]));
  const records: number[] = [];
  if (data.length > 0) {
    const body = [
      0xc0 | (filters.length - 1),
      ...vliBytes(payload.length),
      ...vliBytes(data.length),
    ];
    for (const [id, props] of filters)
      body.push(...vliBytes(id), ...vliBytes(props.length), ...props);
    const size = Math.ceil((body.length + 1 + 4) / 4) * 4;
    const header = new Uint8Array(size);
    header[0] = size / 4 - 1;
    header.set(body, 1);
    header.set(le32(crc32(header.subarray(0, size - 4))), size - 4);
    parts.push(
      header,
      payload,
      new Uint8Array((4 - (payload.length % 4)) % 4),
      checkBytes(check, data),
    );
    records.push(...vliBytes(size + payload.length + checkSize), ...vliBytes(data.length));
  }
  const index = [0, records.length ? 1 : 0, ...records];
  while ((index.length + 4) % 4) index.push(0);
  index.push(...le32(crc32(Uint8Array.from(index))));
  parts.push(Uint8Array.from(index));
  const tail = [...le32(index.length / 4 - 1), ...flags];
  parts.push(Uint8Array.from([...le32(crc32(Uint8Array.from(tail))), ...tail, 0x59, 0x5a]));
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** LZMA2 data made of uncompressed chunks (valid LZMA2 that stores `data` as is). */
export function lzma2Stored(data: Uint8Array): Uint8Array {
  const n = Math.ceil(data.length / 65536);
  const out = new Uint8Array(data.length + 3 * n + 1);
  let o = 0;
  for (let i = 0; i < n; i++) {
    const chunk = data.subarray(i * 65536, (i + 1) * 65536);
    out[o++] = i === 0 ? 1 : 2;
    out[o++] = (chunk.length - 1) >>> 8;
    out[o++] = (chunk.length - 1) & 0xff;
    out.set(chunk, o);
    o += chunk.length;
  }
  out[o] = 0;
  return out;
}

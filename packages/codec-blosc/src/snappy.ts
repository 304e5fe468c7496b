/**
 * Snappy raw format (google/snappy "format_description.txt"), as c-blosc's
 * snappy compressor stores it: a varint of the uncompressed length, then
 * elements whose tag's low 2 bits say: 0 literal (length - 1 in the upper 6
 * bits, or 60..63 meaning 1..4 little-endian length bytes follow), 1 copy with
 * length 4..11 and an 11-bit offset, 2 copy with length 1..64 and a u16
 * offset, 3 copy with length 1..64 and a u32 offset.
 *
 * @module
 */

import { CodecError } from "@zarr/core";
import { copyBytes, copyMatch, viewOf } from "./bytes.js";

const HASH_LOG = 14;
const table = new Int32Array(1 << HASH_LOG);

/** The largest snappy stream `n` input bytes can produce with this encoder. */
export function snappyCompressBound(n: number): number {
  return 32 + n + Math.ceil(n / 6);
}

function read32(a: Uint8Array, i: number): number {
  return a[i] | (a[i + 1] << 8) | (a[i + 2] << 16) | (a[i + 3] << 24);
}

function writeLiteral(src: Uint8Array, from: number, to: number, dst: Uint8Array, op: number) {
  // Lengths up to 2^32 fit the 4-byte form; blocks are far smaller.
  const n = to - from - 1;
  if (n < 60) {
    dst[op++] = n << 2;
  } else if (n < 0x100) {
    dst[op++] = 60 << 2;
    dst[op++] = n;
  } else if (n < 0x10000) {
    dst[op++] = 61 << 2;
    dst[op++] = n & 255;
    dst[op++] = n >>> 8;
  } else if (n < 0x1000000) {
    dst[op++] = 62 << 2;
    dst[op++] = n & 255;
    dst[op++] = (n >>> 8) & 255;
    dst[op++] = n >>> 16;
  } else {
    dst[op++] = 63 << 2;
    dst[op++] = n & 255;
    dst[op++] = (n >>> 8) & 255;
    dst[op++] = (n >>> 16) & 255;
    dst[op++] = n >>> 24;
  }
  if (to - from > 64) {
    dst.set(src.subarray(from, to), op);
    return op + (to - from);
  }
  while (from < to) dst[op++] = src[from++];
  return op;
}

function writeCopy(dst: Uint8Array, op: number, offset: number, len: number): number {
  while (len > 0) {
    // Keep at least 4 bytes for the last piece so it stays encodable.
    let piece = len > 64 ? (len - 64 < 4 ? 60 : 64) : len;
    if (piece >= 4 && piece <= 11 && offset < 2048) {
      dst[op++] = 1 | ((piece - 4) << 2) | ((offset >>> 8) << 5);
      dst[op++] = offset & 255;
    } else {
      piece = Math.min(piece, 64);
      dst[op++] = 2 | ((piece - 1) << 2);
      dst[op++] = offset & 255;
      dst[op++] = offset >>> 8;
    }
    len -= piece;
  }
  return op;
}

/**
 * Compresses `src` into `dst` from `dstOff` (`dst` needs
 * {@link snappyCompressBound}(src.length) bytes there). Returns the length.
 */
export function snappyCompressInto(src: Uint8Array, dst: Uint8Array, dstOff = 0): number {
  const n = src.length;
  let op = dstOff;
  for (let v = n; ; ) {
    if (v < 0x80) {
      dst[op++] = v;
      break;
    }
    dst[op++] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 128);
  }
  let anchor = 0;
  if (n >= 16) {
    const shift = 32 - HASH_LOG;
    table.fill(-1);
    const sv = viewOf(src);
    const ipBound = n - 4;
    let ip = 0;
    while (ip < ipBound) {
      const seq = sv.getInt32(ip, true);
      const h = Math.imul(seq, 0x1e35a7bd) >>> shift;
      const ref = table[h];
      table[h] = ip;
      if (ref >= 0 && ip - ref < 65536 && sv.getInt32(ref, true) === seq) {
        let len = 4;
        while (ip + len + 4 <= n && sv.getInt32(ip + len, true) === sv.getInt32(ref + len, true)) {
          len += 4;
        }
        while (ip + len < n && src[ip + len] === src[ref + len]) len++;
        if (anchor < ip) op = writeLiteral(src, anchor, ip, dst, op);
        op = writeCopy(dst, op, ip - ref, len);
        ip += len;
        anchor = ip;
        continue;
      }
      ip += 1 + ((ip - anchor) >>> 5);
    }
  }
  if (anchor < n) op = writeLiteral(src, anchor, n, dst, op);
  return op - dstOff;
}

/**
 * Reads the uncompressed length a snappy stream declares. Throws
 * {@link CodecError} when the varint is malformed.
 */
export function snappyDecodedLength(
  src: Uint8Array,
  path?: string,
): { length: number; pos: number } {
  let length = 0;
  let mul = 1;
  for (let i = 0; i < 5; i++) {
    if (i >= src.length) break;
    const b = src[i];
    length += (b & 0x7f) * mul;
    mul *= 128;
    if (b < 0x80) {
      if (length > 0xffffffff) break;
      return { length, pos: i + 1 };
    }
  }
  throw new CodecError("snappy: malformed length header", { path });
}

/**
 * Decompresses the snappy stream `src` into `dst`. The declared length must
 * fit `dst`; returns the number of bytes written (the declared length).
 * Throws {@link CodecError} on any malformed element.
 */
export function snappyDecompressInto(src: Uint8Array, dst: Uint8Array, path?: string): number {
  const fail = (why: string): never => {
    throw new CodecError(`snappy: malformed stream: ${why}`, { path });
  };
  const { length, pos } = snappyDecodedLength(src, path);
  if (length > dst.length) fail(`declares ${length} bytes, more than ${dst.length}`);
  const iend = src.length;
  const sv = viewOf(src);
  const dv = viewOf(dst);
  let ip = pos;
  let op = 0;
  while (ip < iend) {
    const tag = src[ip++];
    const kind = tag & 3;
    if (kind === 0) {
      let n = tag >>> 2;
      if (n >= 60) {
        const extra = n - 59;
        if (ip + extra > iend) fail("truncated literal length");
        n = 0;
        for (let k = extra - 1; k >= 0; k--) n = n * 256 + src[ip + k];
        ip += extra;
      }
      n += 1;
      if (n > iend - ip) fail("literal past the input");
      if (n > length - op) fail("literal past the declared length");
      copyBytes(dst, dv, op, src, sv, ip, n);
      ip += n;
      op += n;
      continue;
    }
    let len: number;
    let offset: number;
    if (kind === 1) {
      if (ip + 1 > iend) fail("truncated copy");
      len = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | src[ip++];
    } else if (kind === 2) {
      if (ip + 2 > iend) fail("truncated copy");
      len = (tag >>> 2) + 1;
      offset = src[ip] | (src[ip + 1] << 8);
      ip += 2;
    } else {
      if (ip + 4 > iend) fail("truncated copy");
      len = (tag >>> 2) + 1;
      offset = read32(src, ip) >>> 0;
      ip += 4;
    }
    if (offset === 0 || offset > op) fail("copy offset out of range");
    if (len > length - op) fail("copy past the declared length");
    op = copyMatch(dst, dv, op, offset, len);
  }
  if (op !== length) fail(`decodes to ${op} bytes, declared ${length}`);
  return op;
}

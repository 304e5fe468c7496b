/**
 * BloscLZ, the FastLZ-derived default codec of c-blosc.
 *
 * Stream format: a sequence of instructions; the first is always a literal run
 * (only its low 5 bits count). `ctrl < 32`: copy the next `ctrl + 1` literal
 * bytes. Otherwise a match of length `(ctrl >> 5) + 2` (7 means 9 plus the
 * following bytes, continued while a byte is 255) at distance
 * `((ctrl & 31) << 8 | lo) + 1`; `ctrl & 31 == 31` with `lo == 255` is followed
 * by a big-endian u16 `D` and means distance `D + 8192`. Matches may overlap
 * their output. c-blosc's decoder needs one more instruction after a match, so
 * this encoder always ends a stream with literals.
 *
 * @module
 */

import { CodecError } from "@zarr/core";
import { copyBytes, copyMatch, viewOf } from "./bytes.js";

const MAX_NEAR = 8191;
const MAX_FAR = 8192 + 65535;
const MIN_FAR_LEN = 6;
const MAX_HASH_LOG = 14;

const table = new Int32Array(1 << MAX_HASH_LOG);

/** The largest BloscLZ stream `n` input bytes can produce with this encoder. */
export function blosclzCompressBound(n: number): number {
  return n + Math.ceil(n / 32) + 16;
}

function writeLiterals(
  src: Uint8Array,
  from: number,
  to: number,
  dst: Uint8Array,
  op: number,
): number {
  while (from < to) {
    const run = Math.min(32, to - from);
    dst[op++] = run - 1;
    for (const e = from + run; from < e; ) dst[op++] = src[from++];
  }
  return op;
}

function writeMatch(dst: Uint8Array, op: number, len: number, dist: number): number {
  const far = dist > MAX_NEAR;
  const code = len - 2;
  const hi = far ? 31 : (dist - 1) >>> 8;
  if (code < 7) {
    dst[op++] = (code << 5) | hi;
  } else {
    dst[op++] = (7 << 5) | hi;
    let r = len - 9;
    while (r >= 255) {
      dst[op++] = 255;
      r -= 255;
    }
    dst[op++] = r;
  }
  if (far) {
    const d = dist - 8192;
    dst[op++] = 255;
    dst[op++] = d >>> 8;
    dst[op++] = d & 255;
  } else {
    dst[op++] = (dist - 1) & 255;
  }
  return op;
}

/**
 * Compresses `src` into `dst` from `dstOff` (`dst` needs
 * {@link blosclzCompressBound}(src.length) bytes there). Returns the stream
 * length, or 0 when the input is too small to compress (under 16 bytes), in
 * which case Blosc stores the bytes raw.
 */
export function blosclzCompressInto(
  src: Uint8Array,
  dst: Uint8Array,
  dstOff = 0,
  clevel = 5,
): number {
  const n = src.length;
  if (n < 16) return 0;
  // Like c-blosc, probe the last quarter first and store the stream raw when
  // it compresses less than the level asks for: far cheaper on noisy streams
  // (e.g. the low mantissa bytes of shuffled floats), and faster to decode.
  const probe = n >>> 2;
  if (probe >= 16) {
    const c = compressStream(src.subarray(n - probe), dst, dstOff, clevel);
    if (probe < c * MIN_RATIO[Math.max(0, Math.min(9, clevel))]) return 0;
  }
  return compressStream(src, dst, dstOff, clevel);
}

/** Smallest probe compression ratio per clevel for the stream to be compressed. */
const MIN_RATIO = [0, 2, 1.5, 1.2, 1.2, 1.2, 1.2, 1.15, 1.1, 1.0];

function compressStream(src: Uint8Array, dst: Uint8Array, dstOff: number, clevel: number): number {
  const n = src.length;
  const hashLog = clevel < 3 ? 12 : clevel < 6 ? 13 : MAX_HASH_LOG;
  const shift = 32 - hashLog;
  table.fill(-1, 0, 1 << hashLog);
  const sv = viewOf(src);
  // No match starts in the last 12 bytes nor reaches into the last 4: the
  // stream always ends with a literal run.
  const ipBound = n - 12;
  const ipLimit = n - 4;
  let op = dstOff;
  let anchor = 0;
  let ip = 1;
  table[Math.imul(sv.getInt32(0, true), 0x9e3779b1) >>> shift] = 0;
  while (ip < ipBound) {
    const seq = sv.getInt32(ip, true);
    const h = Math.imul(seq, 0x9e3779b1) >>> shift;
    const ref = table[h];
    table[h] = ip;
    const dist = ip - ref;
    if (ref >= 0 && dist <= MAX_FAR && sv.getInt32(ref, true) === seq) {
      let len = 4;
      while (
        ip + len + 4 <= ipLimit &&
        sv.getInt32(ip + len, true) === sv.getInt32(ref + len, true)
      )
        len += 4;
      while (ip + len < ipLimit && src[ip + len] === src[ref + len]) len++;
      if (dist <= MAX_NEAR || len >= MIN_FAR_LEN) {
        op = writeLiterals(src, anchor, ip, dst, op);
        op = writeMatch(dst, op, len, dist);
        ip += len;
        anchor = ip;
        // Index the last matched position so runs continue to match.
        table[Math.imul(sv.getInt32(ip - 1, true), 0x9e3779b1) >>> shift] = ip - 1;
        continue;
      }
    }
    // Skip faster through data that does not compress.
    ip += 1 + ((ip - anchor) >>> 6);
  }
  return writeLiterals(src, anchor, n, dst, op) - dstOff;
}

/**
 * Decompresses the BloscLZ stream `src` into `dst` (at most `dst.length`
 * bytes). Returns the number of bytes written; throws {@link CodecError} on a
 * truncated stream, a distance before the start of the output, or output past
 * `dst`.
 */
export function blosclzDecompressInto(src: Uint8Array, dst: Uint8Array, path?: string): number {
  const iend = src.length;
  const oend = dst.length;
  const fail = (why: string): never => {
    throw new CodecError(`blosclz: malformed stream: ${why}`, { path });
  };
  if (iend === 0) fail("empty stream");
  const sv = viewOf(src);
  const dv = viewOf(dst);
  let ip = 1;
  let op = 0;
  let ctrl = src[0] & 31;
  while (true) {
    if (ctrl < 32) {
      const run = ctrl + 1;
      if (run > iend - ip) fail("literal run past the input");
      if (run > oend - op) fail("literal run past the output size");
      copyBytes(dst, dv, op, src, sv, ip, run);
      ip += run;
      op += run;
    } else {
      let len = ctrl >>> 5;
      const hi = ctrl & 31;
      if (len === 7) {
        let b: number;
        do {
          if (ip >= iend) fail("truncated match length");
          b = src[ip++];
          len += b;
        } while (b === 255);
      }
      len += 2;
      if (ip >= iend) fail("truncated match distance");
      const lo = src[ip++];
      let dist: number;
      if (hi === 31 && lo === 255) {
        if (ip + 2 > iend) fail("truncated far match distance");
        dist = ((src[ip] << 8) | src[ip + 1]) + 8192;
        ip += 2;
      } else {
        dist = ((hi << 8) | lo) + 1;
      }
      if (dist > op) fail("match distance before the start of the output");
      if (len > oend - op) fail("match past the output size");
      op = copyMatch(dst, dv, op, dist, len);
    }
    if (ip >= iend) return op;
    ctrl = src[ip++];
  }
}

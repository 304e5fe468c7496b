/**
 * LZ4 block format (no frame, no size prefix): a fast compressor with
 * acceleration, a hash-chain ("HC") compressor with a better match finder
 * that still writes standard LZ4 blocks, and a strictly bounded decompressor.
 *
 * Block format (lz4 "Block Format Description"): sequences of a token (high
 * nibble literal length, low nibble match length - 4, 15 meaning "more bytes
 * follow"), the literals, a 2-byte little-endian offset (1..65535) and the
 * extra match length bytes. The last sequence holds literals only. Encoders
 * keep the last 5 bytes as literals and start no match within the last 12
 * bytes, which is what C decoders (`LZ4_decompress_safe`) require.
 *
 * @module
 */

import { CodecError } from "@zarr/core";
import { copyBytes, copyMatch, viewOf } from "./bytes.js";
import { blockKernels, MAX_KERNEL_BYTES } from "./kernels.js";

const MIN_MATCH = 4;
const LAST_LITERALS = 5;
const MF_LIMIT = 12;
const MAX_DISTANCE = 65535;
const HASH_LOG = 12;
const HC_HASH_LOG = 15;
const HC_WINDOW = 1 << 16;

/** The largest LZ4 block `n` input bytes can produce. */
export function lz4CompressBound(n: number): number {
  return n + Math.floor(n / 255) + 16;
}

/** Options of {@link lz4Compress}. */
export interface Lz4CompressOptions {
  /**
   * Fast mode: skip ahead faster through incompressible data (1 = best ratio,
   * larger = faster). Default 1.
   */
  acceleration?: number;
  /** Use the hash-chain compressor at this level (1..12); absent = fast mode. */
  hcLevel?: number;
}

/** Compresses `src` to a new LZ4 block. */
export function lz4Compress(src: Uint8Array, options: Lz4CompressOptions = {}): Uint8Array {
  const dst = new Uint8Array(lz4CompressBound(src.length));
  const n =
    options.hcLevel === undefined
      ? lz4CompressInto(src, dst, 0, options.acceleration ?? 1)
      : lz4CompressHCInto(src, dst, 0, options.hcLevel);
  return dst.slice(0, n);
}

/**
 * Decompresses an LZ4 block that must decode to exactly `decodedSize` bytes.
 * Throws {@link CodecError} on malformed input or any other size.
 */
export function lz4Decompress(src: Uint8Array, decodedSize: number, path?: string): Uint8Array {
  const dst = new Uint8Array(decodedSize);
  const n = lz4DecompressInto(src, dst, path);
  if (n !== decodedSize) {
    throw new CodecError(`lz4: block decodes to ${n} bytes, expected ${decodedSize}`, { path });
  }
  return dst;
}

const fastTable = new Int32Array(1 << HASH_LOG);

/** Writes one sequence: literals [anchor, ip), then a match (len >= 4, or 0 for none). */
function writeSequence(
  src: Uint8Array,
  anchor: number,
  ip: number,
  dst: Uint8Array,
  op: number,
  offset: number,
  matchLen: number,
): number {
  const lit = ip - anchor;
  const tokenPos = op++;
  let token: number;
  if (lit >= 15) {
    token = 0xf0;
    let r = lit - 15;
    while (r >= 255) {
      dst[op++] = 255;
      r -= 255;
    }
    dst[op++] = r;
  } else {
    token = lit << 4;
  }
  if (lit > 64) {
    dst.set(src.subarray(anchor, ip), op);
    op += lit;
  } else {
    for (let i = anchor; i < ip; i++) dst[op++] = src[i];
  }
  if (matchLen > 0) {
    dst[op++] = offset & 255;
    dst[op++] = offset >>> 8;
    const m = matchLen - MIN_MATCH;
    if (m >= 15) {
      token |= 15;
      let r = m - 15;
      while (r >= 255) {
        dst[op++] = 255;
        r -= 255;
      }
      dst[op++] = r;
    } else {
      token |= m;
    }
  }
  dst[tokenPos] = token;
  return op;
}

/**
 * Fast LZ4 compression of `src` into `dst` at `dstOff`; `dst` needs
 * {@link lz4CompressBound}(src.length) bytes from `dstOff`. Returns the
 * number of bytes written.
 */
export function lz4CompressInto(
  src: Uint8Array,
  dst: Uint8Array,
  dstOff = 0,
  acceleration = 1,
): number {
  const n = src.length;
  let op = dstOff;
  if (n < MF_LIMIT + 1) return writeSequence(src, 0, n, dst, op, 0, 0) - dstOff;
  const sv = viewOf(src);
  const table = fastTable;
  table.fill(-1);
  const shift = 32 - HASH_LOG;
  const mfLimit = n - MF_LIMIT;
  const matchLimit = n - LAST_LITERALS;
  const accel = Math.max(1, Math.min(65537, acceleration | 0));
  let anchor = 0;
  let ip = 0;
  table[Math.imul(sv.getInt32(0, true), 0x9e3779b1) >>> shift] = 0;
  ip = 1;
  while (ip <= mfLimit) {
    // Search for a 4-byte match, stepping faster the longer nothing is found.
    let searchNb = accel << 6;
    let step = accel;
    let ref = -1;
    let seq = 0;
    while (true) {
      seq = sv.getInt32(ip, true);
      const h = Math.imul(seq, 0x9e3779b1) >>> shift;
      ref = table[h];
      table[h] = ip;
      if (ref >= 0 && ip - ref <= MAX_DISTANCE && sv.getInt32(ref, true) === seq) break;
      ip += step;
      step = searchNb++ >> 6;
      if (ip > mfLimit) {
        ref = -1;
        break;
      }
    }
    if (ref < 0) break;
    // Extend backwards over pending literals, then forwards.
    while (ip > anchor && ref > 0 && src[ip - 1] === src[ref - 1]) {
      ip--;
      ref--;
    }
    let len = MIN_MATCH;
    while (
      ip + len + 4 <= matchLimit &&
      sv.getInt32(ip + len, true) === sv.getInt32(ref + len, true)
    )
      len += 4;
    while (ip + len < matchLimit && src[ip + len] === src[ref + len]) len++;
    op = writeSequence(src, anchor, ip, dst, op, ip - ref, len);
    ip += len;
    anchor = ip;
    if (ip > mfLimit) break;
    // Index a position inside the match so runs and repeats are found again.
    table[Math.imul(sv.getInt32(ip - 2, true), 0x9e3779b1) >>> shift] = ip - 2;
  }
  op = writeSequence(src, anchor, n, dst, op, 0, 0);
  return op - dstOff;
}

const hcHead = new Int32Array(1 << HC_HASH_LOG);
const hcChain = new Int32Array(HC_WINDOW);

/**
 * LZ4 compression with hash chains and lazy matching (`level` 1..12 sets the
 * search depth, 2^(level-1) candidates). Output is a standard LZ4 block.
 * `dst` needs {@link lz4CompressBound}(src.length) bytes from `dstOff`.
 */
export function lz4CompressHCInto(src: Uint8Array, dst: Uint8Array, dstOff = 0, level = 9): number {
  const n = src.length;
  let op = dstOff;
  if (n < MF_LIMIT + 1) return writeSequence(src, 0, n, dst, op, 0, 0) - dstOff;
  const head = hcHead;
  const chain = hcChain;
  head.fill(-1);
  const maxAttempts = 1 << (Math.max(1, Math.min(12, level | 0)) - 1);
  const mfLimit = n - MF_LIMIT;
  const matchLimit = n - LAST_LITERALS;
  const hc = new HashChain(src, head, chain, maxAttempts, matchLimit);
  let anchor = 0;
  let ip = 0;
  while (ip <= mfLimit) {
    let len = hc.find(ip);
    if (len < MIN_MATCH) {
      // Step faster through literal runs: incompressible data stays cheap.
      ip += 1 + ((ip - anchor) >>> 7);
      continue;
    }
    let ref = hc.ref;
    // Lazy step: prefer a longer match starting one byte later.
    while (ip + 1 <= mfLimit && len < 64) {
      const len2 = hc.find(ip + 1);
      if (len2 <= len + 1) break;
      ip++;
      len = len2;
      ref = hc.ref;
    }
    op = writeSequence(src, anchor, ip, dst, op, ip - ref, len);
    ip += len;
    anchor = ip;
  }
  op = writeSequence(src, anchor, n, dst, op, 0, 0);
  return op - dstOff;
}

/** The match finder of {@link lz4CompressHCInto}: hash heads and a 64 KiB chain window. */
class HashChain {
  /** Start of the best match found by the last {@link HashChain.find}. */
  ref = 0;
  readonly sv: DataView;
  #next = 0;

  constructor(
    readonly src: Uint8Array,
    readonly head: Int32Array,
    readonly chain: Int32Array,
    readonly maxAttempts: number,
    readonly matchLimit: number,
  ) {
    this.sv = viewOf(src);
  }

  /** Length of the longest match at `ip` (0 when under MIN_MATCH); sets `ref`. */
  find(ip: number): number {
    const { src, sv, head, chain } = this;
    const shift = 32 - HC_HASH_LOG;
    for (let p = this.#next; p < ip; p++) {
      const h = Math.imul(sv.getInt32(p, true), 0x9e3779b1) >>> shift;
      chain[p & (HC_WINDOW - 1)] = head[h];
      head[h] = p;
    }
    if (this.#next < ip) this.#next = ip;
    const seq = sv.getInt32(ip, true);
    let ref = head[Math.imul(seq, 0x9e3779b1) >>> shift];
    let best = 0;
    let attempts = this.maxAttempts;
    const maxLen = this.matchLimit - ip;
    while (ref >= 0 && ip - ref <= MAX_DISTANCE && attempts-- > 0) {
      if (src[ref + best] === src[ip + best] && sv.getInt32(ref, true) === seq) {
        let len = MIN_MATCH;
        while (len + 4 <= maxLen && sv.getInt32(ref + len, true) === sv.getInt32(ip + len, true))
          len += 4;
        while (len < maxLen && src[ref + len] === src[ip + len]) len++;
        if (len > best) {
          best = len;
          this.ref = ref;
          if (len >= maxLen) break;
        }
      }
      const next = chain[ref & (HC_WINDOW - 1)];
      if (next >= ref) break;
      ref = next;
    }
    return best;
  }
}

/**
 * Decompresses the LZ4 block `src` into `dst` (at most `dst.length` bytes).
 * Returns the number of bytes written. Throws {@link CodecError} when the
 * block is truncated, refers before the start of the output, or would write
 * past `dst`. Runs in the WebAssembly kernel when it has loaded (see
 * kernels.ts; the same bytes), else in TypeScript; a block the kernel refuses
 * is decoded again in TypeScript, whose error is thrown.
 */
export function lz4DecompressInto(src: Uint8Array, dst: Uint8Array, path?: string): number {
  const kernels = blockKernels();
  if (kernels !== undefined && src.length + dst.length <= MAX_KERNEL_BYTES) {
    const n = kernels.lz4Decode(src, dst);
    if (n >= 0) return n;
    // Malformed: decoded again below, whose error (and partial output) are the reference.
  }
  const iend = src.length;
  const oend = dst.length;
  const sv = viewOf(src);
  const dv = viewOf(dst);
  let ip = 0;
  let op = 0;
  const fail = (why: string): never => {
    throw new CodecError(`lz4: malformed block: ${why}`, { path });
  };
  while (true) {
    if (ip >= iend) fail("truncated (missing token)");
    const token = src[ip++];
    let lit = token >>> 4;
    if (lit === 15) {
      let b: number;
      do {
        if (ip >= iend) fail("truncated literal length");
        b = src[ip++];
        lit += b;
      } while (b === 255);
    }
    if (lit > iend - ip) fail("literals run past the input");
    if (lit > oend - op) fail("literals run past the output size");
    copyBytes(dst, dv, op, src, sv, ip, lit);
    ip += lit;
    op += lit;
    if (ip === iend) return op;
    if (ip + 2 > iend) fail("truncated match offset");
    const offset = src[ip] | (src[ip + 1] << 8);
    ip += 2;
    if (offset === 0) fail("zero match offset");
    if (offset > op) fail("match offset before the start of the output");
    let len = token & 15;
    if (len === 15) {
      let b: number;
      do {
        if (ip >= iend) fail("truncated match length");
        b = src[ip++];
        len += b;
      } while (b === 255);
    }
    len += MIN_MATCH;
    if (len > oend - op) fail("match runs past the output size");
    op = copyMatch(dst, dv, op, offset, len);
    // A block must end with a literals-only sequence.
    if (ip === iend) fail("block ends with a match");
  }
}

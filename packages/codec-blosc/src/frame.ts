/**
 * The Blosc 1 chunk ("frame") format of c-blosc 1.x: the 16-byte header,
 * memcpyed chunks, blocks with their `bstarts` table, splits into streams,
 * per-block shuffles, and c-blosc's default block size.
 *
 * Compression and decompression are written once, as generators that yield
 * each inner (de)compression; {@link runSync} drives them for the built-in
 * synchronous engines and {@link runAsync} for zlib/zstd.
 *
 * @module
 */

import { CodecError } from "@zarr/core";
import { type BlockEngine, type Cname, FORMAT_CODES } from "./engines.js";
import { blockKernels } from "./kernels.js";
import { bitshuffle, bitunshuffle, shuffle, unshuffle } from "./shuffle.js";

/** Header length in bytes (also the largest overhead of a chunk over its data). */
export const HEADER_SIZE = 16;
/** The header version this implementation reads and writes. */
export const VERSION_FORMAT = 2;
/** The largest uncompressed size of one Blosc 1 chunk. */
export const MAX_BUFFER_SIZE = 0x7fffffff - HEADER_SIZE;
/** Inputs smaller than this are stored memcpyed. */
export const MIN_BUFFER_SIZE = 128;
/** The largest typesize recorded in a header (larger ones are written as 1). */
export const MAX_TYPESIZE = 255;
/** The largest block size c-blosc accepts. */
export const MAX_BLOCKSIZE = Math.floor((0x7fffffff - MAX_TYPESIZE * 4) / 3);
const MAX_SPLITS = 16;
const L1 = 32 * 1024;

/** Header flag bits. */
export const FLAG_SHUFFLE = 0x01;
export const FLAG_MEMCPYED = 0x02;
export const FLAG_BITSHUFFLE = 0x04;
export const FLAG_RESERVED = 0x08;
export const FLAG_DONT_SPLIT = 0x10;

/** Shuffle filter: 0 none, 1 byte shuffle, 2 bitshuffle (as in c-blosc's API). */
export type ShuffleMode = 0 | 1 | 2;

/** The parsed 16-byte header. */
export interface BloscHeader {
  readonly version: number;
  readonly versionlz: number;
  readonly flags: number;
  readonly typesize: number;
  /** Uncompressed size. */
  readonly nbytes: number;
  readonly blocksize: number;
  /** Compressed size including the header. */
  readonly cbytes: number;
  /** Compressor format code (`flags >> 5`): 0 blosclz, 1 lz4, 2 snappy, 3 zlib, 4 zstd. */
  readonly format: number;
}

/** Parameters of {@link compressGen}. */
export interface CompressParams {
  readonly cname: Cname;
  /** 0..9; 0 stores the data memcpyed. */
  readonly clevel: number;
  readonly shuffle: ShuffleMode;
  /** Element size in bytes (>= 1; values over 255 are recorded as 1). */
  readonly typesize: number;
  /** Forced block size, or 0 for c-blosc's automatic choice. */
  readonly blocksize: number;
}

function fail(message: string, path: string | undefined): never {
  throw new CodecError(`blosc: ${message}`, { path });
}

function u32(b: Uint8Array, i: number): number {
  return (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> 0;
}

function i32(b: Uint8Array, i: number): number {
  return b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24);
}

function put32(b: Uint8Array, i: number, v: number): void {
  b[i] = v;
  b[i + 1] = v >>> 8;
  b[i + 2] = v >>> 16;
  b[i + 3] = v >>> 24;
}

/**
 * Parses and validates the header of `bytes`. `decodedSize`, when given, is
 * the largest uncompressed size the caller accepts. Throws {@link CodecError}
 * naming the field when the header is malformed or inconsistent.
 */
export function parseHeader(bytes: Uint8Array, decodedSize?: number, path?: string): BloscHeader {
  if (bytes.length < HEADER_SIZE) {
    fail(`chunk of ${bytes.length} bytes is shorter than the 16-byte header`, path);
  }
  const h: BloscHeader = {
    version: bytes[0],
    versionlz: bytes[1],
    flags: bytes[2],
    typesize: bytes[3],
    nbytes: u32(bytes, 4),
    blocksize: u32(bytes, 8),
    cbytes: u32(bytes, 12),
    format: bytes[2] >>> 5,
  };
  if (h.version !== VERSION_FORMAT) {
    fail(`header version ${h.version} is not supported (Blosc 1 writes ${VERSION_FORMAT})`, path);
  }
  if (h.flags & FLAG_RESERVED) fail("header flag 0x08 (reserved) is set", path);
  if (h.format > 4) fail(`unknown compressor format code ${h.format} in the header flags`, path);
  if (h.typesize === 0) fail("header typesize is 0", path);
  if (h.nbytes > MAX_BUFFER_SIZE) fail(`header nbytes ${h.nbytes} exceeds the Blosc limit`, path);
  if (decodedSize !== undefined && h.nbytes > decodedSize) {
    fail(`header nbytes ${h.nbytes} exceeds the expected decoded size ${decodedSize}`, path);
  }
  if (h.cbytes < HEADER_SIZE) fail(`header cbytes ${h.cbytes} is smaller than the header`, path);
  if (h.cbytes > bytes.length) {
    fail(`header cbytes ${h.cbytes} exceeds the chunk length ${bytes.length} (truncated?)`, path);
  }
  if (h.nbytes > 0 && h.blocksize === 0) fail("header blocksize is 0", path);
  if (h.flags & FLAG_MEMCPYED && h.cbytes !== h.nbytes + HEADER_SIZE) {
    fail(`memcpyed chunk has cbytes ${h.cbytes}, expected nbytes + 16 = ${h.nbytes + 16}`, path);
  }
  return h;
}

/** True when the chunk needs an inner engine to decode (not memcpyed, not empty). */
export function needsEngine(h: BloscHeader): boolean {
  return h.nbytes > 0 && (h.flags & FLAG_MEMCPYED) === 0;
}

/** c-blosc's `split_block` in its default "forward compat" mode. */
function splitRule(format: number, typesize: number, blocksize: number): boolean {
  return format !== FORMAT_CODES.zstd && typesize <= MAX_SPLITS && blocksize / typesize >= 128;
}

/** Streams per block as c-blosc >= 1.13 decides when decoding. */
function decodeSplits(h: BloscHeader, leftover: boolean): number {
  const split =
    (h.flags & FLAG_DONT_SPLIT) === 0 &&
    h.typesize <= MAX_SPLITS &&
    h.blocksize / h.typesize >= 128 &&
    !leftover;
  return split ? h.typesize : 1;
}

/** The typesize c-blosc records for `typesize` (1 when over 255). */
export function headerTypesize(typesize: number): number {
  return typesize > MAX_TYPESIZE ? 1 : typesize;
}

/**
 * c-blosc 1.x `compute_blocksize`: the block size used for `nbytes` bytes.
 * `typesize` is the header typesize (see {@link headerTypesize}).
 */
export function computeBlocksize(
  cname: Cname,
  clevel: number,
  typesize: number,
  nbytes: number,
  forced: number,
): number {
  if (nbytes < typesize) return 1;
  const hcr = cname === "lz4hc" || cname === "zlib" || cname === "zstd";
  let bs = nbytes;
  if (forced > 0) {
    bs = Math.min(Math.max(forced, MIN_BUFFER_SIZE), MAX_BLOCKSIZE);
  } else if (nbytes >= L1) {
    bs = hcr ? 2 * L1 : L1;
    const scale = [0.25, 0.5, 1, 2, 4, 4, 8, 8, 8, 8][clevel] ?? 1;
    bs *= scale;
    if (clevel === 9 && hcr) bs *= 2;
  }
  if (clevel > 0 && splitRule(FORMAT_CODES[cname], typesize, bs)) {
    bs = Math.min(bs, 1 << 18) * typesize;
    bs = Math.min(Math.max(bs, 1 << 16), 1 << 20);
  }
  if (bs > nbytes) bs = nbytes;
  if (bs > typesize) bs = Math.floor(bs / typesize) * typesize;
  return bs;
}

function writeHeader(
  out: Uint8Array,
  flags: number,
  typesize: number,
  nbytes: number,
  blocksize: number,
  cbytes: number,
): void {
  out[0] = VERSION_FORMAT;
  out[1] = 1;
  out[2] = flags;
  out[3] = typesize;
  put32(out, 4, nbytes);
  put32(out, 8, blocksize);
  put32(out, 12, cbytes);
}

function memcpyed(src: Uint8Array, flags: number, typesize: number, blocksize: number) {
  const out = new Uint8Array(src.length + HEADER_SIZE);
  writeHeader(out, flags | FLAG_MEMCPYED, typesize, src.length, blocksize, out.length);
  out.set(src, HEADER_SIZE);
  return out;
}

type Maybe<T> = T | Promise<T>;

// Reusable work buffers for jobs driven by runSync, which cannot interleave.
// Slot 0: the shuffle buffer of a block; slot 1: the compressed output.
const pool: Uint8Array[] = [new Uint8Array(0), new Uint8Array(0)];

/** A work buffer of `n` bytes: pooled for synchronous jobs, fresh otherwise. */
function workBuffer(slot: 0 | 1, n: number, pooled: boolean): Uint8Array {
  if (!pooled) return new Uint8Array(n);
  if (pool[slot].length < n) pool[slot] = new Uint8Array(Math.max(n, 2 * pool[slot].length));
  return pool[slot].subarray(0, n);
}

/** Below this many bytes, a block is (un)shuffled in TypeScript: copying it into the kernels' memory costs more. */
const KERNEL_SHUFFLE_MIN_BYTES = 4096;

/**
 * Byte shuffle (`mode` 1) or bitshuffle (2) of `src` into `dst` (same length),
 * or the inverse when `inverse`: in the WebAssembly kernels when they are
 * loaded (SIMD; the same bytes), else shuffle.ts. For blocks whose streams
 * zstd, zlib or another engine outside the kernels compresses.
 */
function reshuffle(
  mode: 1 | 2,
  ts: number,
  src: Uint8Array,
  dst: Uint8Array,
  inverse: boolean,
): void {
  const kernels = src.length >= KERNEL_SHUFFLE_MIN_BYTES ? blockKernels() : undefined;
  if (kernels !== undefined) {
    const done = inverse
      ? kernels.unshuffleBlock(src, dst, ts, mode)
      : kernels.shuffleBlock(src, dst, ts, mode);
    if (done) return;
  }
  const run = mode === 1 ? (inverse ? unshuffle : shuffle) : inverse ? bitunshuffle : bitshuffle;
  run(ts, src, 0, dst, 0, src.length);
}

/** A (de)compression in progress: yields inner engine calls, receives their results. */
export type FrameJob<R> = Generator<Maybe<unknown>, R, unknown>;

/**
 * Compresses `src` into one Blosc 1 chunk, as c-blosc would lay it out
 * (header fields, block size, splits, memcpyed fallback). Drive it with
 * {@link runSync} or {@link runAsync}; `pooled` (reuse module work buffers)
 * is only safe with {@link runSync} and a synchronous engine.
 */
export function* compressGen(
  src: Uint8Array,
  params: CompressParams,
  engine: BlockEngine,
  path?: string,
  pooled = false,
): FrameJob<Uint8Array> {
  const nbytes = src.length;
  if (nbytes > MAX_BUFFER_SIZE) fail(`input of ${nbytes} bytes exceeds the Blosc limit`, path);
  const ts = headerTypesize(params.typesize);
  const format = FORMAT_CODES[params.cname];
  const blocksize = computeBlocksize(params.cname, params.clevel, ts, nbytes, params.blocksize);
  let flags = format << 5;
  if (params.shuffle === 1) flags |= FLAG_SHUFFLE;
  if (params.shuffle === 2) flags |= FLAG_BITSHUFFLE;
  const split = splitRule(format, ts, blocksize);
  if (!split) flags |= FLAG_DONT_SPLIT;
  if (params.clevel === 0 || nbytes < MIN_BUFFER_SIZE) return memcpyed(src, flags, ts, blocksize);

  const nblocks = Math.ceil(nbytes / blocksize);
  const leftover = nbytes % blocksize;
  const maxOut = nbytes + HEADER_SIZE;
  let pos = HEADER_SIZE + 4 * nblocks;
  if (pos > maxOut) return memcpyed(src, flags, ts, blocksize);
  const byteShuffle = params.shuffle === 1 && ts > 1;
  const bitShuffle = params.shuffle === 2;
  // lz4 and blosclz: the whole chunk shuffles and compresses in the
  // WebAssembly kernels when they are loaded (the same bytes as below).
  const encoded = engine.encoder
    ? blockKernels()?.bloscEncode(
        src,
        { blocksize, ts, mode: byteShuffle ? 1 : bitShuffle ? 2 : 0, split },
        engine.encoder,
      )
    : undefined;
  if (encoded === null) return memcpyed(src, flags, ts, blocksize);
  if (encoded !== undefined) {
    writeHeader(encoded, flags, ts, nbytes, blocksize, encoded.length);
    return encoded;
  }
  const out = workBuffer(1, maxOut, pooled);
  const tmp = byteShuffle || bitShuffle ? workBuffer(0, blocksize, pooled) : null;

  for (let b = 0; b < nblocks; b++) {
    const isLeftover = b === nblocks - 1 && leftover > 0;
    const bsize = isLeftover ? leftover : blocksize;
    const start = b * blocksize;
    put32(out, HEADER_SIZE + 4 * b, pos);
    let block: Uint8Array;
    if (tmp !== null) {
      block = tmp.subarray(0, bsize);
      reshuffle(byteShuffle ? 1 : 2, ts, src.subarray(start, start + bsize), block, false);
    } else {
      block = src.subarray(start, start + bsize);
    }
    const nsplits = split && !isLeftover ? ts : 1;
    const neblock = bsize / nsplits;
    for (let j = 0; j < nsplits; j++) {
      const stream = block.subarray(j * neblock, (j + 1) * neblock);
      const packed = (yield engine.compress(stream)) as Uint8Array | null;
      const raw = packed === null || packed.length >= neblock;
      const len = raw ? neblock : packed.length;
      // Incompressible overall: c-blosc falls back to a memcpyed chunk.
      if (pos + 4 + len > maxOut) return memcpyed(src, flags, ts, blocksize);
      put32(out, pos, len);
      out.set(raw ? stream : packed, pos + 4);
      pos += 4 + len;
    }
  }
  writeHeader(out, flags, ts, nbytes, blocksize, pos);
  return out.slice(0, pos);
}

/**
 * How a chunk's blocks are unshuffled once decompressed: 1 (byte shuffle,
 * element size above 1), 2 (bitshuffle) or 0 (neither).
 */
export function unshuffleMode(h: BloscHeader): ShuffleMode {
  if ((h.flags & FLAG_SHUFFLE) !== 0 && h.typesize > 1) return 1;
  return (h.flags & FLAG_BITSHUFFLE) !== 0 ? 2 : 0;
}

/**
 * Decompresses the chunk `src` whose header `h` was parsed (and validated
 * against the expected size) by {@link parseHeader}. `engine` decodes the
 * header's format; it is not used for memcpyed or empty chunks. Every offset
 * and length is checked against the chunk before use. `pooled` as for
 * {@link compressGen}; `into`, when given, receives the output (it must hold
 * the header's nbytes; the result is its prefix). With `range` ([start, end)
 * of the decoded bytes), only the blocks overlapping it are decompressed; the
 * other bytes of the output are left as they are.
 */
export function* decompressGen(
  src: Uint8Array,
  h: BloscHeader,
  engine: BlockEngine | undefined,
  path?: string,
  pooled = false,
  into?: Uint8Array,
  range?: readonly [number, number],
): FrameJob<Uint8Array> {
  const { nbytes, blocksize, cbytes, typesize: ts } = h;
  const [from, to] = range ?? [0, nbytes];
  if (into !== undefined && into.length < nbytes) {
    fail(`output buffer of ${into.length} bytes is smaller than the chunk's ${nbytes}`, path);
  }
  if (
    into !== undefined &&
    into.buffer === src.buffer &&
    into.byteOffset < src.byteOffset + src.length &&
    src.byteOffset < into.byteOffset + nbytes
  ) {
    fail("the output buffer overlaps the compressed chunk", path);
  }
  if (nbytes === 0) return into?.subarray(0, 0) ?? new Uint8Array(0);
  if (h.flags & FLAG_MEMCPYED) {
    const raw = src.subarray(HEADER_SIZE, HEADER_SIZE + nbytes);
    if (into === undefined) return raw.slice();
    into.set(raw.subarray(from, to), from);
    return into.subarray(0, nbytes);
  }
  if (engine === undefined) fail("no engine for the chunk's compressor", path);
  const nblocks = Math.ceil(nbytes / blocksize);
  const dataStart = HEADER_SIZE + 4 * nblocks;
  if (dataStart > cbytes) {
    fail(`${nblocks} block offsets do not fit in a chunk of ${cbytes} bytes`, path);
  }
  const leftover = nbytes % blocksize;
  // Walk every block and stream header first, so that nothing is allocated
  // for sizes the chunk's bytes cannot back.
  const blockEnds = checkLayout(src, h, nblocks, leftover, path);
  const mode = unshuffleMode(h);
  const out = into?.subarray(0, nbytes) ?? new Uint8Array(nbytes);
  // lz4 and blosclz streams: the whole chunk decodes and unshuffles in the
  // WebAssembly kernels when they are loaded (the same bytes as below).
  const firstBlock = Math.floor(from / blocksize);
  const endBlock = Math.min(nblocks, Math.ceil(to / blocksize));
  let kernel = engine.kernel
    ? blockKernels()?.bloscChunk(
        src.subarray(0, h.cbytes),
        nbytes,
        blocksize,
        engine.kernel,
        firstBlock > 0 || endBlock < nblocks
          ? blockSpans(src, blockEnds, firstBlock, endBlock)
          : undefined,
      )
    : undefined;
  const shuffled = mode !== 0;
  let tmp =
    kernel === undefined && shuffled ? workBuffer(0, Math.min(blocksize, nbytes), pooled) : null;

  for (let b = firstBlock; b < endBlock; b++) {
    const isLeftover = b === nblocks - 1 && leftover > 0;
    const bsize = isLeftover ? leftover : blocksize;
    const start = b * blocksize;
    const nsplits = decodeSplits(h, isLeftover);
    const neblock = Math.floor(bsize / nsplits);
    if (neblock * nsplits !== bsize) {
      fail(`block ${b} of ${bsize} bytes does not split into ${nsplits} streams`, path);
    }
    let pos = u32(src, HEADER_SIZE + 4 * b);
    if (pos < dataStart || pos > cbytes) {
      fail(`block ${b} offset ${pos} is outside the chunk data [${dataStart}, ${cbytes})`, path);
    }
    if (kernel !== undefined) {
      if (kernel.block(pos, nsplits, neblock, start, bsize, ts, mode)) continue;
      // A block the kernels cannot decode: keep the blocks decoded before it,
      // and decode it (and the rest) below, whose error, and whatever it
      // leaves in `out`, are the reference.
      kernel.finish(out, firstBlock * blocksize, start);
      kernel = undefined;
      tmp = shuffled ? workBuffer(0, Math.min(blocksize, nbytes), pooled) : null;
    }
    const target = tmp ?? out;
    const base = tmp === null ? start : 0;
    for (let j = 0; j < nsplits; j++) {
      if (pos + 4 > cbytes) fail(`block ${b} stream ${j} header is past the chunk end`, path);
      const csize = i32(src, pos);
      pos += 4;
      if (csize <= 0 || csize > cbytes - pos) {
        fail(
          `block ${b} stream ${j} size ${csize} is outside the chunk (${cbytes - pos} left)`,
          path,
        );
      }
      const stream = src.subarray(pos, pos + csize);
      const dst = target.subarray(base + j * neblock, base + (j + 1) * neblock);
      if (csize === neblock) dst.set(stream);
      else yield engine.decompress(stream, dst);
      pos += csize;
    }
    if (shuffled)
      reshuffle(
        mode as 1 | 2,
        ts,
        tmp!.subarray(0, bsize),
        out.subarray(start, start + bsize),
        true,
      );
  }
  kernel?.finish(out, firstBlock * blocksize, Math.min(endBlock * blocksize, nbytes));
  return out;
}

/**
 * The bytes of the chunk that blocks [first, end) occupy: one [start, end)
 * per block, from its offset to the end of its last stream (`blockEnds`, from
 * {@link checkLayout}); blocks may lie anywhere in the chunk, in any order.
 * For decoding a range: only these are copied into the kernels' memory.
 */
function blockSpans(
  src: Uint8Array,
  blockEnds: Uint32Array,
  first: number,
  end: number,
): [number, number][] {
  const spans: [number, number][] = [];
  for (let b = first; b < end; b++) spans.push([u32(src, HEADER_SIZE + 4 * b), blockEnds[b]]);
  return spans;
}

/**
 * The most one compressed byte can stand for, per format code (blosclz, lz4:
 * 255-byte length extensions; snappy: 64-byte copies in 2 bytes; zlib: 1032:1
 * deflate limit; zstd: RLE blocks), used to reject implausible stream sizes.
 */
const MAX_EXPANSION = [256, 256, 64, 1100, 32768];

/**
 * Checks the bstarts table and every stream header against the chunk, and
 * that each stream's compressed size can plausibly produce its share of the
 * block, without decoding anything. Returns where each block's last stream
 * ends.
 */
function checkLayout(
  src: Uint8Array,
  h: BloscHeader,
  nblocks: number,
  leftover: number,
  path: string | undefined,
): Uint32Array {
  const dataStart = HEADER_SIZE + 4 * nblocks;
  const expansion = MAX_EXPANSION[h.format];
  const ends = new Uint32Array(nblocks);
  for (let b = 0; b < nblocks; b++) {
    const isLeftover = b === nblocks - 1 && leftover > 0;
    const bsize = isLeftover ? leftover : h.blocksize;
    const nsplits = decodeSplits(h, isLeftover);
    const neblock = Math.floor(bsize / nsplits);
    if (neblock * nsplits !== bsize) {
      fail(`block ${b} of ${bsize} bytes does not split into ${nsplits} streams`, path);
    }
    let pos = u32(src, HEADER_SIZE + 4 * b);
    if (pos < dataStart || pos > h.cbytes) {
      fail(`block ${b} offset ${pos} is outside the chunk data [${dataStart}, ${h.cbytes})`, path);
    }
    for (let j = 0; j < nsplits; j++) {
      if (pos + 4 > h.cbytes) fail(`block ${b} stream ${j} header is past the chunk end`, path);
      const csize = i32(src, pos);
      pos += 4;
      if (csize <= 0 || csize > h.cbytes - pos) {
        fail(
          `block ${b} stream ${j} size ${csize} is outside the chunk (${h.cbytes - pos} left)`,
          path,
        );
      }
      if (csize !== neblock && neblock > csize * expansion + 65536) {
        fail(`block ${b} stream ${j} of ${csize} bytes cannot decode to ${neblock} bytes`, path);
      }
      pos += csize;
    }
    ends[b] = pos;
  }
  return ends;
}

/** Runs a job whose engine calls are all synchronous. */
export function runSync<R>(job: FrameJob<R>): R {
  let step = job.next();
  while (!step.done) {
    if (step.value instanceof Promise) {
      throw new CodecError("blosc: an asynchronous engine was used synchronously");
    }
    step = job.next(step.value);
  }
  return step.value;
}

/** Runs a job, awaiting engine calls that return promises. */
export async function runAsync<R>(job: FrameJob<R>): Promise<R> {
  let step = job.next();
  while (!step.done) {
    step = job.next(step.value instanceof Promise ? await step.value : step.value);
  }
  return step.value;
}

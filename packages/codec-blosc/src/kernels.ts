/**
 * Block kernels compiled to WebAssembly from `wasm/kernels.c`: LZ4 block
 * decoding (2 to 4 times the speed of the TypeScript decoder here), whole
 * Blosc blocks of lz4 or blosclz streams decoded and unshuffled in the
 * module's memory (SIMD128 byte unshuffles of 2-, 4- and 8-byte elements and
 * bitunshuffle), and
 * whole chunks shuffled or bitshuffled and compressed with LZ4 or blosclz
 * there (the same bytes as the TypeScript encoders). The module (13.0 kB)
 * loads with `import()` the first time a kernel is asked for. The TypeScript
 * implementation serves until it is ready, and for good where
 * WebAssembly, its SIMD or its bulk-memory instructions are missing (the
 * module then does not compile), when the module's memory cannot grow, and
 * for any block the kernels refuse: the bytes are the same, and errors are
 * always the TypeScript decoders'.
 *
 * @module
 */

/** The most bytes (input and output of one call) handed to the module: its memory only grows. */
export const MAX_KERNEL_BYTES = 64 * 2 ** 20;

/** A loaded instance. */
export interface BlockKernels {
  /**
   * Decodes the LZ4 block `src` into `dst`; returns the bytes written, or a
   * negative code (the block is malformed, or the module's memory cannot hold
   * it: `dst` is untouched).
   * `src.length + dst.length` must be at most {@link MAX_KERNEL_BYTES}.
   */
  lz4Decode(src: Uint8Array, dst: Uint8Array): number;
  /**
   * Starts decoding the Blosc 1 chunk `chunk` (`codec` streams) of `nbytes`
   * decoded bytes in blocks of `blocksize`; `undefined` when the chunk and
   * its output would take more than {@link MAX_KERNEL_BYTES}. With `spans`
   * ([start, end) offsets in the chunk), only those bytes are copied into the
   * module: the blocks decoded must lie inside them.
   */
  bloscChunk(
    chunk: Uint8Array,
    nbytes: number,
    blocksize: number,
    codec: KernelCodec,
    spans?: readonly (readonly [number, number])[],
  ): BloscChunkSession | undefined;
  /**
   * Shuffles and compresses the blocks of the Blosc 1 chunk of `src` as
   * frame.ts `compressGen` does, in one call. Returns the chunk with its 16
   * header bytes left for the caller; `null` when it would not be smaller
   * than a memcpyed chunk; `undefined` when the module's memory cannot hold
   * it (more than {@link MAX_KERNEL_BYTES}, or it cannot grow).
   */
  bloscEncode(
    src: Uint8Array,
    layout: EncodeLayout,
    encoder: KernelEncoder,
  ): Uint8Array | null | undefined;
  /**
   * shuffle.ts's `shuffle` (`mode` 1) or `bitshuffle` (2) of `src` into `dst`
   * (the same length, another buffer) with element size `ts`: the same bytes.
   * False, with nothing written, when the module's memory cannot hold them.
   * For blocks whose streams another engine (zstd, zlib) compresses.
   */
  shuffleBlock(src: Uint8Array, dst: Uint8Array, ts: number, mode: 1 | 2): boolean;
  /** The inverse: shuffle.ts's `unshuffle` or `bitunshuffle`, as {@link shuffleBlock}. */
  unshuffleBlock(src: Uint8Array, dst: Uint8Array, ts: number, mode: 1 | 2): boolean;
}

/** The stream formats the kernels decode and encode. */
export type KernelCodec = "blosclz" | "lz4";

/** A stream compressor of the kernels and its setting. */
export interface KernelEncoder {
  readonly codec: KernelCodec;
  /** LZ4: the acceleration (1 = best ratio); blosclz: the clevel. */
  readonly level: number;
}

/** How a chunk's blocks are laid out (see frame.ts `compressGen`). */
export interface EncodeLayout {
  readonly blocksize: number;
  /** Element size (the header's typesize). */
  readonly ts: number;
  /** 0: no shuffle, 1: byte shuffle, 2: bitshuffle. */
  readonly mode: 0 | 1 | 2;
  /** Whether full blocks are split into `ts` streams. */
  readonly split: boolean;
}

/**
 * A Blosc 1 chunk of lz4 or blosclz streams copied into the module's memory
 * once, its blocks decoded and unshuffled there, and the result copied out
 * once.
 */
export interface BloscChunkSession {
  /**
   * Decodes the block of `bsize` bytes at output offset `start` whose
   * `nsplits` streams of `neblock` bytes begin at chunk offset `pos`, then
   * unshuffles it (`mode` 1: byte shuffle, 2: bitshuffle, 0: none) with
   * element size `ts`. False when a stream is malformed or decodes to another
   * size: the caller decodes that block in TypeScript, whose errors are the
   * reference.
   */
  block(
    pos: number,
    nsplits: number,
    neblock: number,
    start: number,
    bsize: number,
    ts: number,
    mode: 0 | 1 | 2,
  ): boolean;
  /** Copies decoded bytes [from, to) into `out` at the same offsets. */
  finish(out: Uint8Array, from: number, to: number): void;
}

interface Exports {
  memory: WebAssembly.Memory;
  __heap_base: WebAssembly.Global;
  shuffle(src: number, dst: number, size: number, ts: number): void;
  bitshuffle(src: number, dst: number, size: number, ts: number, scratch: number): void;
  unshuffle_block(src: number, dst: number, size: number, ts: number, mode: number): void;
  lz4_decode(src: number, srcLen: number, dst: number, dstCap: number): number;
  blosc_block(
    chunk: number,
    cbytes: number,
    pos: number,
    nsplits: number,
    neblock: number,
    tmp: number,
    out: number,
    bsize: number,
    ts: number,
    mode: number,
    codec: number,
    failed: number,
  ): number;
  blosc_encode(
    src: number,
    nbytes: number,
    blocksize: number,
    ts: number,
    mode: number,
    split: number,
    codec: number,
    level: number,
    tmp: number,
    scratch: number,
    out: number,
  ): number;
}

/** What `lz4Decode` returns when the module's memory cannot grow enough. */
const NO_MEMORY = -1000;

/** What the C encoders may write or read past their buffers (see kernels.c). */
const SLACK = 64;

/**
 * Chunks encoded and decoded (whole, or up to a refused block) in the
 * kernels, and blocks of other engines' streams unshuffled there.
 */
const counts = { encoded: 0, decoded: 0, unshuffled: 0 };

/** How many chunks the kernels have encoded and decoded, and blocks unshuffled: tests check that they run. */
export function kernelChunkCounts(): { encoded: number; decoded: number; unshuffled: number } {
  return { ...counts };
}

let kernels: BlockKernels | undefined;
let loading: Promise<BlockKernels | undefined> | undefined;
let settled = false;
let enabled = true;

function wrap(exports: Exports): BlockKernels {
  const base = (Number(exports.__heap_base.value) + 15) & ~15;
  /** Whether the module's memory holds `bytes` past `base` (growing it if need be). */
  const ensure = (bytes: number): boolean => {
    const need = base + bytes - exports.memory.buffer.byteLength;
    if (need <= 0) return true;
    try {
      exports.memory.grow(Math.ceil(need / 65536));
      return true;
    } catch {
      return false; // no address space or memory left: the caller uses TypeScript
    }
  };
  /** Copies `src` in, runs `kernel` (pointers to it, the output and one block of scratch), copies the output to `dst`. */
  const throughModule = (
    src: Uint8Array,
    dst: Uint8Array,
    kernel: (from: number, to: number, scratch: number) => void,
  ): boolean => {
    const size = src.length;
    const to = (base + size + 15) & ~15;
    const scratch = (to + size + 15) & ~15;
    const total = scratch + size - base;
    if (dst.length !== size || total > MAX_KERNEL_BYTES || !ensure(total)) return false;
    new Uint8Array(exports.memory.buffer).set(src, base);
    kernel(base, to, scratch);
    dst.set(new Uint8Array(exports.memory.buffer, to, size));
    return true;
  };
  return {
    lz4Decode(src, dst) {
      const dstPtr = (base + src.length + 15) & ~15;
      // 16 bytes of slack after the output: the kernel's wide copies stay inside it.
      if (!ensure(dstPtr - base + dst.length + 16)) return NO_MEMORY;
      const memory = new Uint8Array(exports.memory.buffer);
      memory.set(src, base);
      const n = exports.lz4_decode(base, src.length, dstPtr, dst.length);
      if (n > 0) dst.set(memory.subarray(dstPtr, dstPtr + n));
      return n;
    },
    bloscChunk(chunk, nbytes, blocksize, codec, spans) {
      // [failed slot: 16][chunk][tmp: one block + 16][out: nbytes + 16]
      const align = (n: number) => (n + 15) & ~15;
      const chunkPtr = base + 16;
      const tmpPtr = align(chunkPtr + chunk.length);
      const outPtr = align(tmpPtr + blocksize + 16);
      const total = outPtr + nbytes + 16 - base;
      if (total > MAX_KERNEL_BYTES || !ensure(total)) return undefined;
      const memory = new Uint8Array(exports.memory.buffer);
      if (spans === undefined) memory.set(chunk, chunkPtr);
      else for (const [from, to] of spans) memory.set(chunk.subarray(from, to), chunkPtr + from);
      counts.decoded++;
      return {
        block(pos, nsplits, neblock, start, bsize, ts, mode) {
          const r = exports.blosc_block(
            chunkPtr,
            chunk.length,
            pos,
            nsplits,
            neblock,
            tmpPtr,
            outPtr + start,
            bsize,
            ts,
            mode,
            codec === "lz4" ? 1 : 0,
            base,
          );
          return r === 0;
        },
        finish(out, from, to) {
          out.set(new Uint8Array(exports.memory.buffer, outPtr + from, to - from), from);
        },
      };
    },
    shuffleBlock(src, dst, ts, mode) {
      return throughModule(src, dst, (from, to, scratch) =>
        mode === 1
          ? exports.shuffle(from, to, src.length, ts)
          : exports.bitshuffle(from, to, src.length, ts, scratch),
      );
    },
    unshuffleBlock(src, dst, ts, mode) {
      const done = throughModule(src, dst, (from, to) =>
        exports.unshuffle_block(from, to, src.length, ts, mode),
      );
      if (done) counts.unshuffled++;
      return done;
    },
    bloscEncode(src, { blocksize, ts, mode, split }, { codec, level }) {
      // [src][tmp: one block][scratch: one block][out: a memcpyed chunk + one stream's bound]
      const align = (n: number) => (n + 15) & ~15;
      const tmpPtr = align(base + src.length + SLACK);
      const scratchPtr = align(tmpPtr + blocksize + SLACK);
      const outPtr = align(scratchPtr + blocksize + SLACK);
      const bound = blocksize + Math.ceil(blocksize / 32) + 16; // blosclz's, above LZ4's
      const total = outPtr + src.length + 16 + bound + SLACK - base;
      if (total > MAX_KERNEL_BYTES || !ensure(total)) return undefined;
      new Uint8Array(exports.memory.buffer).set(src, base);
      counts.encoded++;
      const n = exports.blosc_encode(
        base,
        src.length,
        blocksize,
        ts,
        mode,
        split ? 1 : 0,
        codec === "lz4" ? 1 : 0,
        level,
        tmpPtr,
        scratchPtr,
        outPtr,
      );
      return n === 0 ? null : new Uint8Array(exports.memory.buffer).slice(outPtr, outPtr + n);
    },
  };
}

async function load(): Promise<BlockKernels | undefined> {
  if (typeof WebAssembly !== "object" || WebAssembly === null) return undefined;
  try {
    const { KERNELS_WASM_BASE64 } = await import("./kernels-wasm.generated.js");
    const bytes = Uint8Array.from(atob(KERNELS_WASM_BASE64), (c) => c.charCodeAt(0));
    const { instance } = await WebAssembly.instantiate(bytes);
    return wrap(instance.exports as unknown as Exports);
  } catch {
    // No SIMD or bulk memory, a Content-Security-Policy without
    // 'wasm-unsafe-eval', a chunk that cannot be fetched: the TypeScript
    // kernels serve.
    return undefined;
  }
}

/**
 * The kernels when loaded, else `undefined` (the first call starts loading
 * them; callers use their TypeScript code meanwhile).
 */
export function blockKernels(): BlockKernels | undefined {
  if (!enabled) return undefined;
  if (kernels === undefined && loading === undefined) {
    loading = load().then((k) => {
      kernels = k;
      settled = true;
      return k;
    });
  }
  return kernels;
}

/**
 * The load in progress (the first call starts it), or `undefined` once it has
 * settled or when the kernels are off: a decoder waits for it once, so that
 * even the first chunk runs in the kernel.
 */
export function kernelsLoading(): Promise<unknown> | undefined {
  blockKernels();
  return enabled && !settled ? loading : undefined;
}

/**
 * Waits until the kernels are loaded (or known to be unavailable); resolves
 * whether they are in use. For tests and benchmarks, and for callers that want
 * the fast path from the first chunk on.
 */
export async function loadBlockKernels(): Promise<boolean> {
  blockKernels();
  await loading;
  return enabled && kernels !== undefined;
}

/**
 * Turns the WebAssembly kernels off (`false`: the TypeScript ones only) or on
 * again. For tests and benchmarks that compare the two.
 */
export function useBlockKernels(on: boolean): void {
  enabled = on;
}

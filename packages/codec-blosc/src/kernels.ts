/**
 * Block kernels compiled to WebAssembly from `wasm/kernels.c` (LZ4 block
 * decoding, 2 to 4 times the speed of the TypeScript decoder here). The module
 * (under 1 kB) loads with `import()` the first time a kernel is asked for, and
 * the TypeScript implementation serves until it is ready, and for good where
 * WebAssembly, its SIMD or its bulk-memory instructions are missing (the
 * module then does not compile): the two give the same bytes and the same
 * errors.
 *
 * @module
 */

/** The most bytes (input and output of one call) handed to the module: its memory only grows. */
export const MAX_KERNEL_BYTES = 64 * 2 ** 20;

/** A loaded instance. */
export interface BlockKernels {
  /**
   * Decodes the LZ4 block `src` into `dst`; returns the bytes written, or a
   * negative error code (see `LZ4_ERRORS` in lz4.ts). `src.length +
   * dst.length` must be at most {@link MAX_KERNEL_BYTES}.
   */
  lz4Decode(src: Uint8Array, dst: Uint8Array): number;
}

interface Exports {
  memory: WebAssembly.Memory;
  __heap_base: WebAssembly.Global;
  lz4_decode(src: number, srcLen: number, dst: number, dstCap: number): number;
}

let kernels: BlockKernels | undefined;
let loading: Promise<BlockKernels | undefined> | undefined;
let settled = false;
let enabled = true;

function wrap(exports: Exports): BlockKernels {
  const base = (Number(exports.__heap_base.value) + 15) & ~15;
  const ensure = (bytes: number) => {
    const need = base + bytes - exports.memory.buffer.byteLength;
    if (need > 0) exports.memory.grow(Math.ceil(need / 65536));
  };
  return {
    lz4Decode(src, dst) {
      const dstPtr = (base + src.length + 15) & ~15;
      // 16 bytes of slack after the output: the kernel's wide copies stay inside it.
      ensure(dstPtr - base + dst.length + 16);
      const memory = new Uint8Array(exports.memory.buffer);
      memory.set(src, base);
      const n = exports.lz4_decode(base, src.length, dstPtr, dst.length);
      if (n > 0) dst.set(memory.subarray(dstPtr, dstPtr + n));
      return n;
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

/**
 * Our glue for libzstd's WebAssembly builds, inlined gzipped and
 * base64-encoded by `scripts/embed-wasm.mjs`:
 *
 * - the encoder, the `zstd.wasm` of the published @bokuweb/zstd-wasm 0.0.27,
 *   built with Emscripten and minified names: it imports five functions
 *   (`a.a`..`a.e`) and exports its memory and the libzstd functions under
 *   one-letter names;
 * - the decoder, the decompression-only module of the published
 *   @oneidentity/zstd-js 1.0.3 (libzstd 1.4.7, Emscripten 2.0.14), which
 *   exports libzstd's functions by name and imports three `env` functions.
 *
 * This file maps them (the build script checks the signatures), supplies the
 * imports, and instantiates with plain `WebAssembly.instantiate`, so every
 * failure (decoding, compiling, instantiating, a trap in the constructors)
 * is a rejected promise: nothing waits on a callback that may never come.
 *
 * @module
 */

/** The libzstd functions a decode calls. Pointers and sizes are 32-bit. */
export interface ZstdDecoderWasm {
  readonly memory: WebAssembly.Memory;
  malloc(size: number): number;
  free(pointer: number): void;
  /** `ZSTD_isError(code)`: 1 for an error code, else 0. */
  isError(code: number): number;
  /** `ZSTD_decompress(dst, dstCapacity, src, srcSize)`. */
  decompress(dst: number, dstCapacity: number, src: number, srcSize: number): number;
}

/** The libzstd functions this package calls to encode (and decode). */
export interface ZstdWasm extends ZstdDecoderWasm {
  compressBound(size: number): number;
  /** `ZSTD_compress(dst, dstCapacity, src, srcSize, level)`. */
  compress(dst: number, dstCapacity: number, src: number, srcSize: number, level: number): number;
}

/** libzstd called `abort()` or `exit()`: the instance must not be used again. */
export class WasmAbort extends Error {}

/** The most memory the module may grow to (it is compiled for a 2 GiB heap). */
const MAX_HEAP = 2 ** 31;
const PAGE = 65536;

/** Bytes from base64 (native `Uint8Array.fromBase64` where present). */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const native = (Uint8Array as { fromBase64?: (s: string) => Uint8Array<ArrayBuffer> }).fromBase64;
  if (typeof native === "function") return native(text);
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

type Decompressor = new (format: "gzip") => TransformStream<Uint8Array, Uint8Array>;

/** Inflates gzip data with the platform's `DecompressionStream` (browsers, Node >= 18, Deno, Bun). */
export async function gunzip(data: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const Native = (globalThis as { DecompressionStream?: Decompressor }).DecompressionStream;
  if (typeof Native !== "function") {
    throw new Error("this JavaScript engine has no DecompressionStream to unpack it");
  }
  const stream = new Native("gzip");
  const writer = stream.writable.getWriter();
  // Errors surface on the reader; the writer's promises are only observed.
  writer.write(data).catch(() => {});
  writer.close().catch(() => {});
  const reader = stream.readable.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    total += value.length;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

type Fn = (...args: number[]) => number;

function exported<T>(exports: WebAssembly.Exports, name: string, kind: "function" | "memory"): T {
  const value = exports[name];
  const ok = kind === "memory" ? value instanceof WebAssembly.Memory : typeof value === "function";
  if (!ok) throw new Error(`the zstd WebAssembly module has no ${kind} export "${name}"`);
  return value as T;
}

/**
 * Emscripten's `emscripten_resize_heap(requested)`: grows `memory` to at
 * least `requested` bytes (by at least a fifth, to amortize); 1 on success.
 */
function resizeHeap(memory: WebAssembly.Memory | undefined, requested: number): number {
  if (!memory) return 0;
  requested >>>= 0;
  if (requested > MAX_HEAP) return 0;
  const old = memory.buffer.byteLength;
  for (const extra of [0.2, 0.1, 0.05, 0]) {
    const wanted = Math.max(requested, Math.min(old * (1 + extra), requested + 96 * 2 ** 20));
    const size = Math.min(MAX_HEAP, Math.ceil(wanted / PAGE) * PAGE);
    try {
      memory.grow(Math.max(0, (size - old) / PAGE));
      return 1;
    } catch {
      // try a smaller step
    }
  }
  return 0;
}

/**
 * Compiles and instantiates the encoder module from its bytes and checks that
 * the mapped exports behave as libzstd's (`ZSTD_compressBound`, `ZSTD_isError`).
 * `reuseContext: false` (for tests) keeps `ZSTD_compress`, a context per frame.
 */
export async function instantiateZstd(
  bytes: Uint8Array<ArrayBuffer>,
  { reuseContext: reuse = true }: { reuseContext?: boolean } = {},
): Promise<ZstdWasm> {
  let memory: WebAssembly.Memory | undefined;
  const fail = (what: string) => () => {
    throw new WasmAbort(`libzstd called ${what}`);
  };
  const imports = {
    a: {
      a: fail("exit()"), // proc_exit
      b: () => {}, // emscripten_runtime_keepalive_clear
      c: fail("abort()"), // _abort_js
      d: () => 0, // _setitimer_js (libzstd sets no timers)
      e: (requested: number) => resizeHeap(memory, requested),
    },
  };
  const { instance } = await WebAssembly.instantiate(bytes, imports);
  const x = instance.exports;
  memory = exported<WebAssembly.Memory>(x, "f", "memory");
  const zstd: ZstdWasm = {
    memory,
    isError: exported<Fn>(x, "h", "function"),
    compressBound: exported<Fn>(x, "i", "function"),
    compress: exported<Fn>(x, "m", "function"),
    decompress: exported<Fn>(x, "r", "function"),
    malloc: exported<Fn>(x, "s", "function"),
    free: exported<Fn>(x, "t", "function"),
  };
  exported<Fn>(x, "g", "function")(); // __wasm_call_ctors
  // ZSTD_COMPRESSBOUND(1000) = 1000 + 1000/256 + (128 KiB - 1000)/2048; (size_t)-1 is an error.
  if (zstd.compressBound(1000) !== 1066 || zstd.isError(-1) !== 1 || zstd.isError(0) !== 0) {
    throw new Error("the zstd WebAssembly module does not behave as libzstd (wrong build?)");
  }
  if (reuse) reuseContext(zstd, exported<Fn>(x, "j", "function"), exported<Fn>(x, "l", "function"));
  return zstd;
}

/**
 * Makes `zstd.compress` reuse one compression context for every frame:
 * `ZSTD_compress` creates and frees a context per call, which sets up its
 * match-finder tables each time (10-20% of a 64-256 KiB block at level 9).
 * `ZSTD_compress_usingDict(cctx, ..., NULL, 0, level)` is what
 * `ZSTD_compress` runs on its own context: the frames are byte for byte the
 * same (test/context-reuse.test.ts checks this build against `ZSTD_compress`).
 */
function reuseContext(zstd: ZstdWasm, createCCtx: Fn, compressUsingDict: Fn): void {
  const cctx = createCCtx();
  if (cctx === 0) return; // out of memory: keep a context per call
  zstd.compress = (dst, capacity, src, size, level) =>
    compressUsingDict(cctx, dst, capacity, src, size, 0, 0, level);
}

/**
 * Compiles and instantiates the decoder module from its bytes and checks
 * that its `ZSTD_isError` behaves as libzstd's.
 */
export async function instantiateZstdDecoder(
  bytes: Uint8Array<ArrayBuffer>,
): Promise<ZstdDecoderWasm> {
  let memory: WebAssembly.Memory | undefined;
  const imports = {
    env: {
      emscripten_resize_heap: (requested: number) => resizeHeap(memory, requested),
      // memcpy of large blocks, done by the host.
      emscripten_memcpy_big: (dest: number, src: number, length: number) => {
        new Uint8Array(memory!.buffer).copyWithin(
          dest >>> 0,
          src >>> 0,
          (src >>> 0) + (length >>> 0),
        );
        return dest;
      },
      // The high half of 64-bit results (ZSTD_getFrameContentSize), which no call here reads.
      setTempRet0: () => {},
    },
  };
  const { instance } = await WebAssembly.instantiate(bytes, imports);
  const x = instance.exports;
  memory = exported<WebAssembly.Memory>(x, "memory", "memory");
  const zstd: ZstdDecoderWasm = {
    memory,
    isError: exported<Fn>(x, "ZSTD_isError", "function"),
    decompress: exported<Fn>(x, "ZSTD_decompress", "function"),
    malloc: exported<Fn>(x, "malloc", "function"),
    free: exported<Fn>(x, "free", "function"),
  };
  exported<Fn>(x, "emscripten_stack_init", "function")(); // the stack bounds, before any call
  exported<Fn>(x, "__wasm_call_ctors", "function")();
  if (zstd.isError(-1) !== 1 || zstd.isError(0) !== 0) {
    throw new Error("the zstd WebAssembly decoder does not behave as libzstd (wrong build?)");
  }
  return zstd;
}

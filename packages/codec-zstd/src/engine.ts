/**
 * The zstd engine: the platform's libzstd where there is one (Node ≥ 22.15's
 * `node:zlib`), else libzstd compiled to WebAssembly, loaded once on first
 * use and shared; calls are synchronous inside it. Two WebAssembly modules:
 * a decoder-only build that decodes 1.4-1.8x faster (47.8 kB as served with
 * gzip), loaded by the first decode, and a full build (80.5 kB) loaded by the
 * first encode; a reader never loads the second.
 *
 * Each module's bytes are inlined (gzipped, base64) in a separate module
 * (about the size of the .wasm file as served with gzip) loaded with
 * `import()`: bundlers put it in its own chunk, fetched only when a zstd
 * chunk is first decoded (or encoded), and none needs a loader, a plugin or an
 * asset rule for it (esbuild, Vite, webpack, Rollup, or none: Node and
 * browsers import the dist files as they are); the platform's
 * `DecompressionStream` unpacks them. Every failure to load (the
 * chunk cannot be fetched, WebAssembly is missing or blocked by a
 * Content-Security-Policy, the module does not compile) rejects
 * {@link loadZstd}, and a load that has not settled after
 * {@link LOAD_TIMEOUT_MS} rejects too, so a read never hangs on it.
 *
 * @module
 */
import { releaseBuffer } from "@zarr/core/codec";
import { nativeZstd } from "#native";
import { type NativeZstd, OutputTooLarge } from "./native/types.js";
import {
  decodeBase64,
  gunzip,
  instantiateZstd,
  instantiateZstdDecoder,
  WasmAbort,
  type ZstdDecoderWasm,
  type ZstdWasm,
} from "./wasm.js";
import { xxh64Low32 } from "./xxh64.js";

/** The platform's zstd (Node's node:zlib from 22.15), used instead of WebAssembly where present. */
let native: NativeZstd | undefined = nativeZstd;

/**
 * Which engine encodes and decodes: `"native"` (the platform's libzstd) when
 * there is one, else `"wasm"`.
 */
export function zstdEngine(): "native" | "wasm" {
  return native ? "native" : "wasm";
}

/**
 * Chooses the WebAssembly build even where a native zstd exists (`false`),
 * or the native one again (`true`, where there is one). For tests and the
 * bench, which compare the two; not part of the package's entry points.
 */
export function useNativeZstd(on: boolean): void {
  native = on ? nativeZstd : undefined;
}

/** How long {@link loadZstd} waits for the module before it rejects. */
export const LOAD_TIMEOUT_MS = 30_000;

/** Why the module could not be loaded; `cause` has the underlying error. */
export class ZstdLoadError extends Error {}

/** One WebAssembly module: loaded once, shared, forgotten when a load fails or it traps. */
interface ModuleSlot<T> {
  instance?: T;
  ready?: Promise<T>;
  /** A fresh instance is loading to replace one whose memory grew too large. */
  replacing?: boolean;
}

const encoder: ModuleSlot<ZstdWasm> = {};
const decoder: ModuleSlot<ZstdDecoderWasm> = {};

function checkWebAssembly(): void {
  if (typeof WebAssembly !== "object" || WebAssembly === null) {
    throw new Error("this JavaScript engine has no WebAssembly");
  }
}

async function loadEncoder(): Promise<ZstdWasm> {
  checkWebAssembly();
  const { ZSTD_WASM_GZIP_BASE64 } = await import("./zstd-wasm.generated.js");
  return instantiateZstd(await gunzip(decodeBase64(ZSTD_WASM_GZIP_BASE64)));
}

async function loadDecoder(): Promise<ZstdDecoderWasm> {
  checkWebAssembly();
  const { ZSTD_DECODER_WASM_GZIP_BASE64 } = await import("./zstd-decoder-wasm.generated.js");
  return instantiateZstdDecoder(await gunzip(decodeBase64(ZSTD_DECODER_WASM_GZIP_BASE64)));
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the module did not load within ${ms / 1000} s`)),
      ms,
    );
    (timer as { unref?: () => void }).unref?.();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

/**
 * node:zlib takes a parameter of -1 for "not set": level -1 would compress at
 * libzstd's default level (3). That level alone encodes with the WebAssembly
 * build where the native engine is used.
 */
const NATIVE_UNSET_LEVEL = -1;

/**
 * Loads the WebAssembly module a decode (`level` undefined) or an encode at
 * `level` needs, once; nothing where the native engine does it (it encodes
 * at every level but {@link NATIVE_UNSET_LEVEL}). Rejects with a
 * {@link ZstdLoadError} (and forgets the attempt, so a later call tries
 * again) when it cannot be loaded within `timeoutMs`. `loader` replaces the
 * module import in tests.
 */
export function loadZstd(
  timeoutMs = LOAD_TIMEOUT_MS,
  loader?: () => Promise<ZstdWasm>,
  level?: number,
): Promise<void> {
  if (level === undefined) {
    return native ? Promise.resolve() : loadModule(decoder, loader ?? loadDecoder, timeoutMs);
  }
  if (native && level !== NATIVE_UNSET_LEVEL) return Promise.resolve();
  return loadModule(encoder, loader ?? loadEncoder, timeoutMs);
}

/**
 * A module whose memory grew past this (WebAssembly memory never shrinks:
 * one decode of a 1 GiB chunk would keep 2 GiB for the life of the process)
 * is replaced by a fresh instance, loaded in the background by the next call;
 * calls until then still use the old one.
 */
let retainLimit = 256 * 1024 * 1024;

/** Sets the memory past which a module is replaced (tests). */
export function setRetainLimit(bytes: number): void {
  retainLimit = bytes;
}

function loadModule<T extends ZstdDecoderWasm>(
  slot: ModuleSlot<T>,
  loader: () => Promise<T>,
  timeoutMs: number,
): Promise<void> {
  const current = slot.instance;
  if (current && !slot.replacing && current.memory.buffer.byteLength > retainLimit) {
    slot.replacing = true;
    withTimeout(Promise.resolve().then(loader), timeoutMs).then(
      (fresh) => {
        slot.replacing = false;
        // Unless a trap discarded it meanwhile (the next load starts afresh).
        if (slot.instance === current) {
          slot.instance = fresh;
          slot.ready = Promise.resolve(fresh);
        }
      },
      () => {
        slot.replacing = false; // keep the old one; the next call tries again
      },
    );
  }
  if (slot.instance) return Promise.resolve();
  slot.ready ??= withTimeout(Promise.resolve().then(loader), timeoutMs).then(
    (zstd) => {
      slot.instance = zstd;
      return zstd;
    },
    (e: unknown) => {
      slot.ready = undefined;
      const reason = (e instanceof Error ? e.message : String(e)).replace(/\.+$/, "");
      throw new ZstdLoadError(`cannot load libzstd's WebAssembly module: ${reason}`, {
        cause: e,
      });
    },
  );
  return slot.ready.then(() => undefined);
}

/** A loaded module; throws when {@link loadZstd} has not resolved for it. */
function loaded<T>(slot: ModuleSlot<T>): T {
  if (!slot.instance) throw new ZstdLoadError("libzstd's WebAssembly module is not loaded");
  return slot.instance;
}

/** libzstd's error names by code (zstd_errors.h), for messages. */
const ERROR_NAMES: Record<number, string> = {
  1: "generic error",
  10: "unknown frame descriptor",
  12: "version not supported",
  14: "unsupported frame parameter",
  16: "frame requires too much memory",
  20: "data corrupted",
  22: "checksum mismatch (restored data does not match the frame's XXH64 checksum)",
  24: "corrupted literals header",
  30: "dictionary corrupted",
  32: "dictionary mismatch",
  42: "parameter out of bound",
  64: "memory allocation failed",
  70: "destination buffer too small",
  72: "source size wrong",
};

/** A libzstd failure, with its error code (e.g. 70: destination too small). */
export class ZstdError extends Error {
  constructor(readonly code: number) {
    super(`libzstd: ${ERROR_NAMES[code] ?? `error ${code}`}`);
  }
}

/** A `size_t` result of libzstd (an i32 in WebAssembly) as an error code, or -1 if it is none. */
function errorCode(z: ZstdDecoderWasm, result: number): number {
  if (!z.isError(result)) return -1;
  const unsigned = result >>> 0;
  return 0x100000000 - unsigned; // (size_t)-code
}

/**
 * Runs `body` with `sizes.length` buffers allocated in the WebAssembly heap
 * and frees them after. A trap or an abort inside libzstd discards the
 * instance (its heap may be inconsistent); the next load makes a new one.
 */
function withBuffers<M extends ZstdDecoderWasm, T>(
  slot: ModuleSlot<M>,
  sizes: number[],
  body: (z: M, pointers: number[]) => T,
): T {
  const z = loaded(slot);
  const pointers: number[] = [];
  try {
    for (const size of sizes) {
      const p = z.malloc(Math.max(size, 1));
      if (p === 0) throw new ZstdError(64);
      pointers.push(p);
    }
    return body(z, pointers);
  } catch (e) {
    if (e instanceof WasmAbort || e instanceof WebAssembly.RuntimeError) {
      slot.instance = undefined;
      slot.ready = undefined;
    }
    throw e;
  } finally {
    if (slot.instance === z) for (const p of pointers) z.free(p);
  }
}

/**
 * Compresses `data` into one frame (with its content size) at `level`, with
 * the content checksum when `checksum` is set. Call {@link loadZstd} first.
 */
export function compressFrame(data: Uint8Array, level: number, checksum = false): Uint8Array {
  if (native && level !== NATIVE_UNSET_LEVEL) return native.compress(data, level, checksum);
  const bound = loaded(encoder).compressBound(data.length);
  const frame = withBuffers(encoder, [data.length, bound], (z, [src, dst]) => {
    new Uint8Array(z.memory.buffer).set(data, src!);
    const result = z.compress(dst!, bound, src!, data.length, level);
    const code = errorCode(z, result);
    if (code >= 0) throw new ZstdError(code);
    return new Uint8Array(z.memory.buffer, dst!, result >>> 0).slice();
  });
  if (!checksum) return frame;
  // ZSTD_compress writes no checksum: set Content_Checksum_flag (bit 2 of the
  // frame header descriptor, right after the magic) and append the low 32
  // bits of XXH64 of the content, little-endian (RFC 8878 3.1.1).
  const out = new Uint8Array(frame.length + 4);
  out.set(frame);
  out[4]! |= 0x04;
  new DataView(out.buffer).setUint32(frame.length, xxh64Low32(data), true);
  return out;
}

/**
 * Decompresses exactly one frame (as delimited by `scanFrames`) into a buffer
 * of `capacity` bytes; libzstd fails with code 70 rather than write past it.
 * Call {@link loadZstd} first.
 */
export function decompressFrame(frame: Uint8Array, capacity: number): Uint8Array {
  return decompressWith(frame, capacity, (decoded, owned) => (owned ? decoded : decoded.slice()));
}

/**
 * Decompresses exactly one frame into `dst` (its capacity: libzstd fails with
 * code 70 rather than write past it); returns the bytes written. Nothing is
 * left behind for the garbage collector: the WebAssembly build's output is
 * copied straight from its memory, and the native engine's buffer is freed
 * once copied (core's `releaseBuffer`). Call {@link loadZstd} first.
 */
export function decompressFrameInto(frame: Uint8Array, dst: Uint8Array): number {
  return decompressWith(frame, dst.length, (decoded, owned) => {
    const written = decoded.length;
    dst.set(decoded);
    if (owned) releaseBuffer(decoded); // detached: its length is 0 from here on
    return written;
  });
}

/**
 * Runs the engine on one frame and hands its output to `take`: `owned` when
 * it is a buffer of its own (the native engine's), otherwise a view of the
 * WebAssembly memory, valid only during the call.
 */
function decompressWith<T>(
  frame: Uint8Array,
  capacity: number,
  take: (decoded: Uint8Array, owned: boolean) => T,
): T {
  if (native) {
    let decoded: Uint8Array;
    try {
      decoded = native.decompress(frame, capacity);
    } catch (e) {
      if (e instanceof OutputTooLarge) throw new ZstdError(70);
      // node:zlib reports libzstd's error code as errno: the same messages as
      // the WebAssembly build.
      const code = (e as { errno?: unknown }).errno;
      if (typeof code === "number" && ERROR_NAMES[code]) throw new ZstdError(code);
      throw new Error(`${native.name}: ${(e as Error).message}`, { cause: e });
    }
    return take(decoded, true);
  }
  return withBuffers(decoder, [frame.length, capacity], (z, [src, dst]) => {
    new Uint8Array(z.memory.buffer).set(frame, src!);
    const result = z.decompress(dst!, capacity, src!, frame.length);
    const code = errorCode(z, result);
    if (code >= 0) throw new ZstdError(code);
    return take(new Uint8Array(z.memory.buffer, dst!, result >>> 0), false);
  });
}

/**
 * libzstd compiled to WebAssembly (@bokuweb/zstd-wasm: the .wasm ships inside
 * the package; Node reads it from disk, browsers fetch it next to the module).
 * One instance is loaded lazily and shared; calls are synchronous inside it.
 *
 * @module
 */
import { compress, decompress, init } from "@bokuweb/zstd-wasm";

let ready: Promise<void> | undefined;

/** Loads the WebAssembly module once. */
export function loadZstd(): Promise<void> {
  ready ??= init().catch((e: unknown) => {
    ready = undefined;
    throw e;
  });
  return ready;
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

/** zstd returns errors as (size_t)-code, which the wrapper reports as a negative number. */
function toZstdError(e: unknown): unknown {
  const match = /code (-?\d+)/.exec(String((e as Error)?.message ?? e));
  if (!match) return e;
  const value = Number(match[1]);
  return new ZstdError(value < 0 ? -value : value > 0x80000000 ? 0x100000000 - value : value);
}

/** Compresses `data` into one frame (with its content size) at `level`. Call {@link loadZstd} first. */
export function compressFrame(data: Uint8Array, level: number): Uint8Array {
  try {
    return compress(data, level);
  } catch (e) {
    throw toZstdError(e);
  }
}

/**
 * Decompresses exactly one frame (as delimited by `scanFrames`). `capacity`
 * is the output buffer size when the frame has no content size; libzstd fails
 * with code 70 rather than write past it. Call {@link loadZstd} first.
 */
export function decompressFrame(frame: Uint8Array, capacity: number): Uint8Array {
  try {
    return decompress(frame, { defaultHeapSize: Math.max(capacity, 1) });
  } catch (e) {
    throw toZstdError(e);
  }
}

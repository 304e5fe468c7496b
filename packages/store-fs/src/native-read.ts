/**
 * Whole-value reads in one job of libuv's thread pool, through this package's
 * Node-API addon (`native/read-value.c`, x86-64 Linux): open, the confinement
 * check on the open descriptor, fstat, the reads and close, which through
 * `node:fs` take four jobs, each a round trip through the pool and the event
 * loop (about 40 µs of the calling thread per small chunk).
 *
 * Used only where the store's Linux mechanism is (`/proc/self/fd`), and never
 * under Node's permission model (`--permission`: its file system rules apply
 * to `node:fs` only), with `ZARR_FS_NATIVE=0` (or `false`, `off`, `no`) in the
 * environment, or where the addon cannot load; `node:fs` serves then, with
 * the same results.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { getSystemErrorMap, types } from "node:util";
import { loadPackageAddon, turnedOff } from "@zarr/core/internal";

/** What the addon settled with (see `native/read-value.c`). */
export const READ_DONE = 0;
export const READ_DIRECTORY = 1;
export const READ_NOT_REGULAR = 2;
export const READ_SIZE_DIFFERS = 3;
export const READ_MEMORY_GONE = 4;

/** The system calls a negative status names (`result[0]`). */
const CALLS = ["", "open", "readlink", "fstat", "read"] as const;

export type ReadValue = (
  path: string,
  expected: string,
  memory: Uint8Array,
  spans: Float64Array,
  exact: boolean,
  result: Float64Array,
  bounce: Uint8Array | null,
) => Promise<number | string>;

/** Where this module lies in the package: the built bundle, the per-module build, the source (tests). */
const OWN_FILES = ["/dist/node-bundle.js", "/dist/native-read.js", "/src/native-read.ts"];

/** Path length the addon takes (bytes of UTF-8, its buffers less a NUL and a spare byte). */
const MAX_PATH_BYTES = 4094;
/** Views per call the addon takes. */
const MAX_VIEWS = 65536;

/**
 * A typed array's own buffer, offset and length, read through the intrinsic
 * getters: an own property or a changed prototype cannot make a view claim
 * other memory than its own.
 */
const typedArrayProto = Object.getPrototypeOf(Uint8Array.prototype) as object;
const intrinsic = (name: string) =>
  Object.getOwnPropertyDescriptor(typedArrayProto, name)!.get! as (this: Uint8Array) => never;
const bufferGetter = intrinsic("buffer") as (this: Uint8Array) => ArrayBufferLike;
const offsetGetter = intrinsic("byteOffset") as (this: Uint8Array) => number;
const lengthGetter = intrinsic("byteLength") as (this: Uint8Array) => number;

/** `view`'s own memory (not what a property of it may claim). */
export const bufferOf = (view: Uint8Array): ArrayBufferLike => bufferGetter.call(view);
/** `view`'s own length in bytes. */
export const byteLengthOf = (view: Uint8Array): number => lengthGetter.call(view);

/**
 * `into` as a fresh list of `Uint8Array`s (checked by brand), each element
 * read once, so that a getter cannot show one view to the checks and another
 * to the read; `undefined` when it is not a list of `Uint8Array`s.
 */
export function ownViews(into: readonly Uint8Array[]): Uint8Array[] | undefined {
  if (!Array.isArray(into)) return undefined;
  const count = into.length;
  const views = new Array<Uint8Array>(count);
  for (let i = 0; i < count; i++) {
    const view: unknown = into[i];
    if (!types.isUint8Array(view)) return undefined;
    views[i] = view;
  }
  return views;
}

/** Whether `memory` is a `SharedArrayBuffer` (by brand), which cannot be detached or shrunk. */
export const isShared = (memory: ArrayBufferLike): boolean => types.isSharedArrayBuffer(memory);

/** Spans passed to the addon, which copies them during the call: reused. */
let spanScratch = new Float64Array(128);

/**
 * The views as the addon takes them: one memory (they must share their
 * `ArrayBuffer`) and their (offset, length) pairs in it; `undefined` when
 * they do not share one.
 */
function spansOf(views: readonly Uint8Array[]): [Uint8Array, Float64Array] | undefined {
  if (!types.isUint8Array(views[0])) return undefined;
  const buffer = bufferOf(views[0]);
  if (spanScratch.length < views.length * 2) spanScratch = new Float64Array(views.length * 2);
  const spans = spanScratch;
  for (let i = 0; i < views.length; i++) {
    const view = views[i];
    if (!types.isUint8Array(view) || bufferOf(view) !== buffer) return undefined;
    spans[2 * i] = offsetGetter.call(view);
    spans[2 * i + 1] = lengthGetter.call(view);
  }
  let memory: Uint8Array;
  try {
    memory = new Uint8Array(buffer);
  } catch {
    return undefined; // detached: node:fs reports what it always did
  }
  return [memory, spans.subarray(0, views.length * 2)];
}

let addon: ReadValue | null | undefined;
let enabled = true;

/** The addon's function; `null` where it cannot load; `undefined` while a startup snapshot is built. */
function load(): ReadValue | null | undefined {
  const proc = process as { permission?: unknown };
  if (proc.permission !== undefined || turnedOff(process.env.ZARR_FS_NATIVE)) return null;
  const exports = loadPackageAddon(
    import.meta.url,
    OWN_FILES,
    "@zarr/store-fs",
    "/native/linux-x64/read-value.node",
  );
  if (exports === undefined) return undefined; // a startup snapshot: load once it is restored
  const fn = exports?.readValue;
  return typeof fn === "function" ? (fn as ReadValue) : null;
}

/** Reads this thread handed to the addon (tests check that it serves). */
export const nativeReadStats = { calls: 0 };

/** The addon's function, loaded on first use; `null` where it cannot load (tests). */
export function nativeAddon(): ReadValue | null {
  if (addon === undefined) addon = load();
  return addon ?? null;
}

/**
 * Turns native reads on or off for this thread (tests compare both paths);
 * returns the previous setting.
 */
export function setNativeReads(on: boolean): boolean {
  const previous = enabled;
  enabled = on;
  return previous;
}

/** The outcome of {@link readNative}. */
export type NativeOutcome =
  /** `bytesRead` of the file's `size` (fewer when it was truncated meanwhile). */
  | { readonly status: typeof READ_DONE; readonly size: number; readonly bytesRead: number }
  | { readonly status: typeof READ_DIRECTORY }
  | { readonly status: typeof READ_NOT_REGULAR; readonly mode: number }
  /** Nothing read: the size does not equal (`exact`) or exceeds the views' total. */
  | { readonly status: typeof READ_SIZE_DIFFERS; readonly size: number }
  /** Read into the bounce memory, but the views' memory was detached or shrunk meanwhile. */
  | { readonly status: typeof READ_MEMORY_GONE }
  /** The descriptor's real path is not the expected one (a link on the way). */
  | { readonly status: "elsewhere"; readonly actual: string };

/**
 * Reads the regular file at `path` into `views` (end to end, from its start)
 * in one thread-pool job, after checking that the open descriptor's real path
 * is `expected`; `undefined` when native reads are unavailable or cannot take
 * these arguments (the caller uses `node:fs`). A failed system call rejects
 * with an error like `node:fs`'s (`code`, `errno`, `syscall`, `path`).
 *
 * The job writes into `views` from another thread, so their memory must stay
 * in place until it settles: pass `bounce` (memory only the caller holds, at
 * least the views' total) unless nothing else can detach, transfer or shrink
 * it (a `SharedArrayBuffer`, the caller's own buffers); the bytes are then
 * copied into `views` on this thread when the job completes.
 */
export function readNative(
  path: string,
  expected: string,
  views: readonly Uint8Array[],
  exact: boolean,
  bounce: Uint8Array | null,
): Promise<NativeOutcome> | undefined {
  if (!enabled) return undefined;
  const read = nativeAddon();
  if (read === null || views.length === 0 || views.length > MAX_VIEWS) return undefined;
  // UTF-8 takes at most 3 bytes per UTF-16 unit; longer paths are measured.
  if (
    (path.length * 3 > MAX_PATH_BYTES && Buffer.byteLength(path) > MAX_PATH_BYTES) ||
    (expected.length * 3 > MAX_PATH_BYTES && Buffer.byteLength(expected) > MAX_PATH_BYTES) ||
    path.includes("\0") ||
    expected.includes("\0")
  ) {
    return undefined;
  }
  const target = spansOf(views);
  if (target === undefined) return undefined;
  const result = new Float64Array(3);
  nativeReadStats.calls++;
  return read(path, expected, target[0], target[1], exact, result, bounce).then((status) => {
    if (typeof status === "string") {
      return { status: "elsewhere", actual: result[1] === 1 ? `${status}…` : status };
    }
    if (status < 0) throw systemError(-status, CALLS[result[0]] ?? "read", path);
    switch (status) {
      case READ_DONE:
        return { status, size: result[0], bytesRead: result[1] };
      case READ_DIRECTORY:
        return { status };
      case READ_NOT_REGULAR:
        return { status, mode: result[2] };
      case READ_SIZE_DIFFERS:
        return { status, size: result[0] };
      case READ_MEMORY_GONE:
        return { status };
      default:
        throw new Error(`read-value addon: unknown status ${status}`);
    }
  });
}

let errorMap: Map<number, [string, string]> | undefined;

/** An error as `node:fs` makes them: `ENOENT: no such file or directory, open '/a/b'`. */
function systemError(errno: number, syscall: string, path: string): Error {
  errorMap ??= getSystemErrorMap();
  const [code, description] = errorMap.get(-errno) ?? [`Unknown system error ${errno}`, ""];
  const error = new Error(`${code}: ${description || "unknown error"}, ${syscall} '${path}'`);
  return Object.assign(error, { errno: -errno, code, syscall, path });
}

/**
 * libzstd as Node's `node:zlib` ships it (Node ≥ 22.15 and 24): 2 to 3.5 times
 * the speed of the WebAssembly build on this project's bench machines
 * (`bench/codecs/gzip-zstd.mjs`). Absent on Node 20, where the WebAssembly
 * build is used.
 *
 * @module
 */
import * as zlib from "node:zlib";
import { type DictionaryZstd, type NativeZstd, OutputTooLarge } from "./types.js";

// @types/node 20 does not declare the zstd API; this is the part used here.
interface ZlibZstd {
  zstdCompressSync(data: Uint8Array, options: object): Buffer;
  zstdDecompressSync(data: Uint8Array, options: object): Buffer;
  constants: {
    ZSTD_c_compressionLevel: number;
    ZSTD_c_checksumFlag: number;
    ZSTD_d_windowLogMax: number;
  };
}

const api = zlib as unknown as Partial<ZlibZstd>;

/**
 * The output as a Uint8Array of its own memory when it fills less than half
 * of the buffer node:zlib allocated for it (a bounded decode starts with a
 * large buffer): a chunk cache must not keep the slack alive.
 */
function trimmed(out: Buffer): Uint8Array {
  const view = new Uint8Array(out.buffer, out.byteOffset, out.length);
  return out.buffer.byteLength > 2 * out.length + 4096 ? view.slice() : view;
}

function make(z: ZlibZstd): NativeZstd {
  const LEVEL = z.constants.ZSTD_c_compressionLevel;
  const CHECKSUM = z.constants.ZSTD_c_checksumFlag;
  const WINDOW_LOG_MAX = z.constants.ZSTD_d_windowLogMax;
  return {
    name: "node:zlib",
    compress(data, level, checksum) {
      // One output buffer of the frame's bound: no chunk list to concatenate.
      const bound = data.length + (data.length >> 7) + 1024;
      return trimmed(
        z.zstdCompressSync(data, {
          params: { [LEVEL]: level, [CHECKSUM]: checksum ? 1 : 0 },
          chunkSize: Math.max(64, bound),
        }),
      );
    },
    decompress(frame, capacity) {
      return decompressBounded(
        () =>
          trimmed(
            z.zstdDecompressSync(frame, {
              // One output buffer when the size is known; node:zlib refuses to
              // produce more than maxOutputLength (a RangeError). One byte more
              // than the output: a buffer that fills up makes node:zlib
              // allocate the next one, which would be garbage at once.
              chunkSize: Math.max(64, Math.min(capacity + 1, 64 * 2 ** 20)),
              maxOutputLength: Math.max(1, capacity),
              // libzstd's default refuses windows above 128 MiB (zstd --long=28
              // writes 256 MiB). Up to 1 GiB, as the 32-bit WebAssembly build
              // accepts; memory follows the output, bounded by maxOutputLength.
              params: { [WINDOW_LOG_MAX]: 30 },
            }),
          ),
        capacity,
      );
    },
  };
}

/** Runs a bounded decode, node:zlib's refusal to pass `capacity` becoming {@link OutputTooLarge}. */
function decompressBounded(decode: () => Uint8Array, capacity: number): Uint8Array {
  try {
    return decode();
  } catch (e) {
    if ((e as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
      throw new OutputTooLarge(`the frame holds more than ${capacity} bytes`, { cause: e });
    }
    throw e;
  }
}

/**
 * Whether node:zlib honours the `dictionary` option of its zstd functions
 * (Node 22.19 and 24.6 on; earlier versions ignore it silently): 64 bytes
 * that are not compressible on their own, compressed with themselves as a
 * raw-content dictionary, must shrink to a reference into the dictionary and
 * come back with it.
 */
function honoursDictionaries(z: ZlibZstd): boolean {
  const sample = new Uint8Array(64);
  let x = 0x9e3779b9;
  for (let i = 0; i < sample.length; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    sample[i] = x >>> 24;
  }
  try {
    const frame = z.zstdCompressSync(sample, { dictionary: sample });
    if (frame.length >= sample.length / 2) return false;
    const back = z.zstdDecompressSync(frame, { dictionary: sample });
    return back.length === sample.length && back.every((b, i) => b === sample[i]);
  } catch {
    return false;
  }
}

let dictionaries: DictionaryZstd | null | undefined;

/** node:zlib's zstd with dictionaries, when this Node has it (probed once, on first use). */
export function dictionaryZstd(): DictionaryZstd | undefined {
  if (dictionaries === undefined) {
    const z = nativeZstd ? (api as ZlibZstd) : undefined;
    dictionaries =
      z && honoursDictionaries(z)
        ? {
            name: "node:zlib",
            decompress: (frame, dictionary, capacity, firstBuffer) =>
              decompressBounded(
                () =>
                  trimmed(
                    z.zstdDecompressSync(frame, {
                      dictionary,
                      // small outputs (URLs) are the common case: a buffer of the
                      // capacity each time would cost more than the decoding
                      chunkSize: Math.max(64, Math.min(firstBuffer, capacity, 64 * 2 ** 20)),
                      maxOutputLength: Math.max(1, capacity),
                      params: { [z.constants.ZSTD_d_windowLogMax]: 30 },
                    }),
                  ),
                capacity,
              ),
          }
        : null;
  }
  return dictionaries ?? undefined;
}

/** node:zlib's zstd, when this Node has it. */
export const nativeZstd: NativeZstd | undefined =
  typeof api.zstdDecompressSync === "function" &&
  typeof api.zstdCompressSync === "function" &&
  api.constants?.ZSTD_c_compressionLevel !== undefined &&
  api.constants?.ZSTD_c_checksumFlag !== undefined &&
  api.constants?.ZSTD_d_windowLogMax !== undefined
    ? make(api as ZlibZstd)
    : undefined;

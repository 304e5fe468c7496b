/**
 * Inner compressors ("engines") of a Blosc chunk: one per compressor format
 * code. blosclz, lz4, lz4hc and snappy are built in and synchronous; zlib and
 * zstd wrap the bytes-to-bytes codecs of @zarr/codec-gzip and
 * @zarr/codec-zstd, looked up in core's codec registry only when a chunk
 * needs them.
 *
 * @module
 */

import { CodecError, type JsonObject } from "@zarr/core";
import { type BytesToBytesCodec, type CodecContext, codecRegistry } from "@zarr/core/codec";
import { blosclzCompressBound, blosclzCompressInto, blosclzDecompressInto } from "./blosclz.js";
import type { KernelCodec, KernelEncoder } from "./kernels.js";
import { lz4CompressBound, lz4CompressHCInto, lz4CompressInto, lz4DecompressInto } from "./lz4.js";
import { snappyCompressBound, snappyCompressInto, snappyDecompressInto } from "./snappy.js";

/** Compressor names of Blosc 1. */
export type Cname = "blosclz" | "lz4" | "lz4hc" | "snappy" | "zlib" | "zstd";

/** Every {@link Cname}. */
export const CNAMES: readonly Cname[] = ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"];

/** The compressor format code stored in the header (flags >> 5) for each cname. */
export const FORMAT_CODES: Readonly<Record<Cname, number>> = {
  blosclz: 0,
  lz4: 1,
  lz4hc: 1,
  snappy: 2,
  zlib: 3,
  zstd: 4,
};

/** The name of each header format code (lz4hc streams are lz4 blocks). */
export const FORMAT_NAMES: readonly Cname[] = ["blosclz", "lz4", "snappy", "zlib", "zstd"];

/**
 * Compresses and decompresses one Blosc stream (one split of one block).
 * `compress` returns the compressed bytes (possibly a view that is valid only
 * until the next call on a synchronous engine) or `null` when the stream does
 * not compress; `decompress` fills `dst` exactly or throws {@link CodecError}.
 */
export interface BlockEngine {
  /** True when both operations return plain values (never promises). */
  readonly sync: boolean;
  /**
   * Its streams are LZ4 blocks or blosclz streams: a chunk may then be
   * decoded whole by the WebAssembly kernels (see kernels.ts) instead of
   * stream by stream.
   */
  readonly kernel?: KernelCodec;
  /**
   * `compress` is this kernel encoder's: a chunk may then be encoded whole
   * by the WebAssembly kernels (the same bytes).
   */
  readonly encoder?: KernelEncoder;
  compress(stream: Uint8Array): Uint8Array | null | Promise<Uint8Array | null>;
  decompress(stream: Uint8Array, dst: Uint8Array): void | Promise<void>;
}

type Into = (src: Uint8Array, dst: Uint8Array, off: number) => number;
type DecodeInto = (src: Uint8Array, dst: Uint8Array, path?: string) => number;

function syncEngine(
  name: string,
  bound: (n: number) => number,
  into: Into,
  decode: DecodeInto,
  path: string | undefined,
  kernel?: KernelCodec,
  encoder?: KernelEncoder,
): BlockEngine {
  let scratch = new Uint8Array(0);
  return {
    sync: true,
    ...(kernel ? { kernel } : {}),
    ...(encoder ? { encoder } : {}),
    compress(stream) {
      const need = bound(stream.length);
      if (scratch.length < need) scratch = new Uint8Array(need);
      const n = into(stream, scratch, 0);
      return n === 0 ? null : scratch.subarray(0, n);
    },
    decompress(stream, dst) {
      const n = decode(stream, dst, path);
      if (n !== dst.length) {
        throw new CodecError(
          `blosc: ${name} stream decodes to ${n} bytes, expected ${dst.length}`,
          { path },
        );
      }
    },
  };
}

/**
 * The built-in synchronous engine for `cname` at `clevel`, or `undefined` for
 * zlib and zstd (see {@link codecEngine}).
 */
export function builtinEngine(
  cname: Cname,
  clevel: number,
  path?: string,
): BlockEngine | undefined {
  switch (cname) {
    case "blosclz":
      return syncEngine(
        cname,
        blosclzCompressBound,
        (s, d, o) => blosclzCompressInto(s, d, o, clevel),
        blosclzDecompressInto,
        path,
        "blosclz",
        { codec: "blosclz", level: clevel },
      );
    case "lz4":
      return syncEngine(
        cname,
        lz4CompressBound,
        // c-blosc: acceleration = 10 - clevel.
        (s, d, o) => lz4CompressInto(s, d, o, 10 - clevel),
        lz4DecompressInto,
        path,
        "lz4",
        { codec: "lz4", level: 10 - clevel },
      );
    case "lz4hc":
      return syncEngine(
        cname,
        lz4CompressBound,
        (s, d, o) => lz4CompressHCInto(s, d, o, clevel),
        lz4DecompressInto,
        path,
        "lz4",
      );
    case "snappy":
      return syncEngine(cname, snappyCompressBound, snappyCompressInto, snappyDecompressInto, path);
    default:
      return undefined;
  }
}

/** Wraps a bytes-to-bytes codec (zlib stream, zstd frame) as an engine. */
export function codecEngine(codec: BytesToBytesCodec, name: string, path?: string): BlockEngine {
  return {
    sync: false,
    compress(stream) {
      return codec.encode(stream);
    },
    async decompress(stream, dst) {
      let out: Uint8Array;
      try {
        // Straight into the block where the codec can (no buffer per stream).
        if (codec.decodeInto !== undefined) return await codec.decodeInto(stream, dst);
        out = await codec.decode(stream, dst.length);
      } catch (e) {
        // Corrupt data, or the codec could not load (its message says what to do).
        throw new CodecError(`blosc: cannot decode a ${name} stream: ${(e as Error).message}`, {
          path,
          cause: e,
        });
      }
      if (out.length !== dst.length) {
        throw new CodecError(
          `blosc: ${name} stream decodes to ${out.length} bytes, expected ${dst.length}`,
          { path },
        );
      }
      dst.set(out);
    },
  };
}

/**
 * Looks up zlib or zstd in core's codec registry and builds the engine at
 * `clevel` (c-blosc's mapping: zlib level = clevel; zstd level = 2 * clevel - 1,
 * 22 for clevel 9). Throws core's `NotRegisteredError` naming the package to
 * install when absent.
 */
export async function registryEngine(
  cname: "zlib" | "zstd",
  clevel: number,
  context: CodecContext,
): Promise<BlockEngine> {
  const factory = await codecRegistry.get(cname, context.path);
  const level = cname === "zlib" ? clevel : clevel >= 9 ? 22 : Math.max(1, 2 * clevel - 1);
  // v3 zstd configurations carry `checksum`; the v2 (numcodecs) form does not.
  const config: JsonObject =
    cname === "zstd" && context.format === 3 ? { level, checksum: false } : { level };
  const codec = await factory.fromConfig(config, context);
  if (codec.kind !== "bytes_to_bytes") {
    throw new CodecError(`blosc: the codec registered as "${cname}" is not bytes -> bytes`, {
      path: context.path,
    });
  }
  return codecEngine(codec, cname, context.path);
}

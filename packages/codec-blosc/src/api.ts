/**
 * Standalone Blosc 1 compression and decompression, outside any Zarr
 * pipeline (e.g. for numcodecs-style callers).
 *
 * @module
 */

import { CodecError } from "@zarr/core";
import { type BlockEngine, builtinEngine, FORMAT_NAMES } from "./engines.js";
import {
  type CompressParams,
  compressGen,
  decompressGen,
  needsEngine,
  parseHeader,
  runAsync,
  runSync,
} from "./frame.js";

function builtin(cname: CompressParams["cname"], clevel: number, path?: string): BlockEngine {
  const engine = builtinEngine(cname, clevel, path);
  if (engine === undefined) {
    throw new CodecError(
      `blosc: ${cname} needs an engine (pass one, e.g. codecEngine() of a ${cname} codec)`,
      { path },
    );
  }
  return engine;
}

/** Compresses `src` with a built-in compressor (blosclz, lz4, lz4hc, snappy). */
export function bloscCompressSync(src: Uint8Array, params: CompressParams): Uint8Array {
  const engine =
    params.clevel === 0 || src.length < 128
      ? builtin("lz4", 1)
      : builtin(params.cname, params.clevel);
  return runSync(compressGen(src, params, engine, undefined, true));
}

/**
 * Decompresses a Blosc 1 chunk made with a built-in compressor; `decodedSize`
 * bounds the uncompressed size when given. Throws `CodecError` when malformed.
 */
export function bloscDecompressSync(src: Uint8Array, decodedSize?: number): Uint8Array {
  const header = parseHeader(src, decodedSize);
  const engine = needsEngine(header) ? builtin(FORMAT_NAMES[header.format], 5) : undefined;
  return runSync(decompressGen(src, header, engine, undefined, true));
}

/** Compresses `src`; `engine` is required for zlib and zstd (see `codecEngine`). */
export function bloscCompress(
  src: Uint8Array,
  params: CompressParams,
  engine?: BlockEngine,
): Promise<Uint8Array> {
  try {
    const e =
      engine ??
      (params.clevel === 0 || src.length < 128
        ? builtin("lz4", 1)
        : builtin(params.cname, params.clevel));
    return runAsync(compressGen(src, params, e));
  } catch (e) {
    return Promise.reject(e);
  }
}

/** Decompresses a chunk; `engine` decodes zlib/zstd chunks (built-ins otherwise). */
export async function bloscDecompress(
  src: Uint8Array,
  decodedSize?: number,
  engine?: BlockEngine,
): Promise<Uint8Array> {
  const header = parseHeader(src, decodedSize);
  const e = needsEngine(header) ? (engine ?? builtin(FORMAT_NAMES[header.format], 5)) : undefined;
  return runAsync(decompressGen(src, header, e));
}

/**
 * Decompresses a chunk made with a built-in compressor into `out` (which must
 * hold the header's uncompressed size, and must not overlap `src`: that is a
 * `CodecError`) and returns the filled prefix of `out`. Reusing one output
 * buffer avoids touching fresh memory per chunk.
 */
export function bloscDecompressInto(src: Uint8Array, out: Uint8Array): Uint8Array {
  const header = parseHeader(src, out.length);
  const engine = needsEngine(header) ? builtin(FORMAT_NAMES[header.format], 5) : undefined;
  return runSync(decompressGen(src, header, engine, undefined, true, out));
}

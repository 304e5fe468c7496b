/**
 * The gzip and zlib bytes -> bytes codecs.
 *
 * @module
 */

import { CodecError, type JsonObject } from "@zarr/core";
import {
  type BytesToBytesCodec,
  type CodecFactory,
  type CodecOptions,
  releaseBuffer,
  throwIfAborted,
} from "@zarr/core/codec";
import { engine } from "#engine";
import { parseLevel } from "./config.js";
import { type DeflateEngine, type DeflateFormat, EngineError } from "./engine/types.js";

/**
 * The most bytes {@link DeflateCodec.decode} produces when it is given
 * neither an exact `decodedSize` nor `options.maxDecodedSize` (a direct call
 * outside a pipeline): 1 GiB.
 */
export const DEFAULT_MAX_DECODED_SIZE = 1 << 30;

/**
 * Room {@link DeflateCodec.maxEncodedSize} leaves for what surrounds the
 * deflate data: gzip's optional header fields (FEXTRA up to 64 KiB, FNAME and
 * FCOMMENT), further members and zero padding; zlib's header, dictionary id
 * and trailer.
 */
const GZIP_FRAMING = 256 * 1024;
const ZLIB_FRAMING = 64 * 1024;

/** Whether this platform can free a buffer at once (see `releaseBuffer`). */
const CAN_RELEASE =
  typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === "function";

/** Options of {@link DeflateCodec}. */
export interface DeflateCodecOptions {
  /** Compression level 0 (store) .. 9 (smallest). */
  level: number;
  /** The metadata name written by `toJSON` (default: the format). */
  name?: string;
  /** The metadata path, for error messages. */
  path?: string;
  /** Overrides the platform's engine (node:zlib on Node, pako elsewhere). */
  engine?: DeflateEngine;
}

/**
 * A deflate-based bytes -> bytes codec: `format: "gzip"` writes one gzip member
 * (RFC 1952) and decodes one or more; `format: "zlib"` reads and writes a zlib
 * stream (RFC 1950), as numcodecs' `Zlib` and c-blosc's zlib blocks do.
 */
export class DeflateCodec implements BytesToBytesCodec {
  readonly kind = "bytes_to_bytes";
  readonly name: string;
  readonly level: number;
  readonly #path: string;
  readonly #engine: DeflateEngine;

  constructor(
    readonly format: DeflateFormat,
    options: DeflateCodecOptions,
  ) {
    this.name = options.name ?? format;
    this.#path = options.path ?? "";
    this.#engine = options.engine ?? engine;
    this.level = parseLevel({ level: options.level }, this.name, this.#path, 0);
    if (CAN_RELEASE) {
      this.decodeInto = async (bytes, out, options) => {
        const decoded = await this.decode(bytes, out.length, options);
        out.set(decoded);
        releaseBuffer(decoded); // the engine's own buffer, handed to no one else
      };
    }
  }

  toJSON(): JsonObject {
    return { name: this.name, configuration: { level: this.level } };
  }

  /** On Node, chunks of 64 KiB and more are (de)compressed in libuv's thread pool. */
  get runsOffThread(): boolean {
    return this.#engine.offThread === true;
  }

  async encode(bytes: Uint8Array, options?: CodecOptions): Promise<Uint8Array> {
    throwIfAborted(options?.signal, this.#path);
    return this.#engine.compress(bytes, this.format, this.level);
  }

  /**
   * The most bytes an encoding of `decodedSize` bytes can take, for any
   * writer: `2 * decodedSize` for the deflate data (literals of up to 15 bits
   * plus block headers stay under 2 bytes per byte; zlib's stored-block
   * worst case is about 1.03 bytes per byte) plus 256 KiB (gzip) or 64 KiB
   * (zlib) for the framing.
   */
  maxEncodedSize(decodedSize: number): number {
    return 2 * decodedSize + (this.format === "gzip" ? GZIP_FRAMING : ZLIB_FRAMING);
  }

  /**
   * Decodes. `decodedSize` is the exact size (any other is a `CodecError`;
   * a larger output is never fully allocated). Without it the output may
   * have at most `options.maxDecodedSize` bytes (else
   * {@link DEFAULT_MAX_DECODED_SIZE}): decoding grows its output as it goes
   * and stops with a `CodecError` as soon as it passes that bound.
   */
  async decode(
    bytes: Uint8Array,
    decodedSize?: number,
    options?: CodecOptions,
  ): Promise<Uint8Array> {
    throwIfAborted(options?.signal, this.#path);
    const exact = decodedSize !== undefined;
    const max = decodedSize ?? options?.maxDecodedSize ?? DEFAULT_MAX_DECODED_SIZE;
    let out: Uint8Array;
    try {
      out = await this.#engine.decompress(bytes, this.format, max, exact);
    } catch (e) {
      const reason = e instanceof EngineError ? e.message : String(e);
      throw new CodecError(
        `${this.name} codec at "${this.#path}": cannot decode ${bytes.length} bytes: ${reason}`,
        { path: this.#path, cause: e },
      );
    }
    if (exact && out.length !== decodedSize) {
      throw new CodecError(
        `${this.name} codec at "${this.#path}": decoded ${out.length} bytes, expected ${decodedSize}`,
        { path: this.#path },
      );
    }
    return out;
  }

  /**
   * Decodes into `out`, whose length is the exact decoded size (any other is
   * a `CodecError`, as for {@link decode}; `out` is then untouched), and
   * frees the engine's output as soon as it is copied (core's
   * `releaseBuffer`), so that a read of many chunks leaves no dead buffers to
   * the garbage collector. Present only where that is possible
   * (`ArrayBuffer.prototype.transfer`: Node ≥ 21, current browsers); elsewhere
   * it would only add a copy, and arrays use {@link decode}.
   */
  readonly decodeInto?: (
    bytes: Uint8Array,
    out: Uint8Array,
    options?: CodecOptions,
  ) => Promise<void>;
}

/** Default levels: zarr-python 3 writes gzip level 5 for v3; numcodecs defaults to 1. */
function factory(format: DeflateFormat, name: string): CodecFactory {
  return {
    kind: "bytes_to_bytes",
    fromConfig(configuration, context) {
      const defaultLevel = context.format === 3 && format === "gzip" ? 5 : 1;
      const level = parseLevel(
        configuration,
        name,
        context.path,
        defaultLevel,
        context.format === 2,
      );
      return new DeflateCodec(format, { level, name, path: context.path });
    },
  };
}

/** v3 `gzip` and v2 (numcodecs) `gzip`: a gzip member, `{level: 0..9}`. */
export const gzipCodec: CodecFactory = factory("gzip", "gzip");
/** v2 (numcodecs) `zlib`: a zlib stream, `{level: 0..9}`. */
export const zlibCodec: CodecFactory = factory("zlib", "zlib");
/** zarr-python 3's `numcodecs.gzip` name for numcodecs' GZip in v3 metadata. */
export const numcodecsGzipCodec: CodecFactory = factory("gzip", "numcodecs.gzip");
/** zarr-python 3's `numcodecs.zlib` name for numcodecs' Zlib in v3 metadata. */
export const numcodecsZlibCodec: CodecFactory = factory("zlib", "numcodecs.zlib");

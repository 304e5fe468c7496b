/**
 * The gzip and zlib bytes -> bytes codecs.
 *
 * @module
 */

import {
  type BytesToBytesCodec,
  CodecError,
  type CodecFactory,
  type CodecOptions,
  type JsonObject,
  throwIfAborted,
} from "@zarr/core";
import { engine } from "#engine";
import { parseLevel } from "./config.js";
import { type DeflateEngine, type DeflateFormat, EngineError } from "./engine/types.js";

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

  /** Decodes; with `decodedSize`, a larger output is a `CodecError` and is never fully allocated. */
  async decode(
    bytes: Uint8Array,
    decodedSize?: number,
    options?: CodecOptions,
  ): Promise<Uint8Array> {
    throwIfAborted(options?.signal, this.#path);
    try {
      return await this.#engine.decompress(bytes, this.format, decodedSize);
    } catch (e) {
      const reason = e instanceof EngineError ? e.message : String(e);
      throw new CodecError(
        `${this.name} codec at "${this.#path}": cannot decode ${bytes.length} bytes: ${reason}`,
        { path: this.#path, cause: e },
      );
    }
  }
}

/** Default levels: zarr-python 3 writes gzip level 5 for v3; numcodecs defaults to 1. */
function factory(format: DeflateFormat, name: string): CodecFactory {
  return {
    kind: "bytes_to_bytes",
    fromConfig(configuration, context) {
      const defaultLevel = context.format === 3 && format === "gzip" ? 5 : 1;
      const level = parseLevel(configuration, name, context.path, defaultLevel);
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

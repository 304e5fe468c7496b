/**
 * The zstd bytes -> bytes codec.
 *
 * @module
 */
import { CodecError, type JsonObject } from "@zarr/core";
import {
  type BytesToBytesCodec,
  type CodecFactory,
  type CodecOptions,
  throwIfAborted,
} from "@zarr/core/codec";
import { parseZstdConfig, type ZstdConfig } from "./config.js";
import {
  compressFrame,
  decompressFrame,
  decompressFrameInto,
  loadZstd,
  ZstdError,
} from "./engine.js";
import { FrameError, type FrameInfo, scanFrames, withoutContentSize } from "./frame.js";

/** Largest output of one frame the WebAssembly heap (32-bit) is asked to hold. */
export const MAX_FRAME_OUTPUT = 1 << 30;
/**
 * The most bytes {@link ZstdCodec.decode} produces when it is given neither
 * an exact `decodedSize` nor `options.maxDecodedSize` (a direct call outside
 * a pipeline): 1 GiB.
 */
export const DEFAULT_MAX_DECODED_SIZE = 1 << 30;
/** The first output buffer of a frame whose size is not known exactly (see `#decodeBounded`). */
const FIRST_CAPACITY = 1 << 20;
/** Room {@link ZstdCodec.maxEncodedSize} leaves for skippable frames, seek tables and frame headers. */
const FRAMING = 64 * 1024;
/** What a `CodecError` for a failed load of libzstd tells the user to do. */
const LOAD_ADVICE =
  "@zarr/codec-zstd loads libzstd (WebAssembly, inlined in JavaScript) with import() " +
  "the first time a zstd chunk is read or written: serve every chunk file your bundler " +
  "emits next to the entry (no loader or plugin is needed), and let the page run " +
  "WebAssembly (Content-Security-Policy: script-src 'wasm-unsafe-eval')";
/** libzstd's "destination buffer too small" error code. */
const DST_TOO_SMALL = 70;

/** Options of {@link ZstdCodec}. */
export interface ZstdCodecOptions extends Partial<ZstdConfig> {
  /** The metadata name written by `toJSON` (default `"zstd"`). */
  name?: string;
  /** The metadata path, for error messages. */
  path?: string;
  /** Which metadata the codec belongs to: v2 omits `checksum: false` (numcodecs < 0.13 rejects it). */
  format?: 2 | 3;
}

/**
 * zstd (RFC 8878). Encodes one frame with its content size (and, with
 * `checksum`, the XXH64-based content checksum). Decodes any sequence of
 * frames and skippable frames, with or without content size and checksum;
 * checksums are verified.
 */
export class ZstdCodec implements BytesToBytesCodec {
  readonly kind = "bytes_to_bytes";
  readonly name: string;
  readonly level: number;
  readonly checksum: boolean;
  readonly #path: string;
  readonly #format: 2 | 3;

  constructor(options: ZstdCodecOptions = {}) {
    this.name = options.name ?? "zstd";
    this.#path = options.path ?? "";
    this.#format = options.format ?? 3;
    const config = parseZstdConfig(
      { level: options.level ?? 0, checksum: options.checksum ?? false },
      this.name,
      this.#path,
      { level: 0, checksum: false },
    );
    this.level = config.level;
    this.checksum = config.checksum;
  }

  toJSON(): JsonObject {
    const configuration: JsonObject = { level: this.level };
    if (this.#format === 3 || this.checksum) configuration.checksum = this.checksum;
    return { name: this.name, configuration };
  }

  #error(message: string, cause?: unknown): CodecError {
    return new CodecError(`${this.name} codec at "${this.#path}": ${message}`, {
      path: this.#path,
      cause,
    });
  }

  /** Loads libzstd (to encode: at this level); any failure is a `CodecError` that says what to do. */
  async #load(level?: number): Promise<void> {
    try {
      await loadZstd(undefined, undefined, level);
    } catch (e) {
      throw this.#error(`${(e as Error).message}. ${LOAD_ADVICE}`, e);
    }
  }

  async encode(bytes: Uint8Array, options?: CodecOptions): Promise<Uint8Array> {
    throwIfAborted(options?.signal, this.#path);
    await this.#load(this.level);
    try {
      return compressFrame(bytes, this.level, this.checksum);
    } catch (e) {
      throw this.#error(`cannot encode ${bytes.length} bytes: ${(e as Error).message}`, e);
    }
  }

  /**
   * The most bytes an encoding of `decodedSize` bytes can take, for any
   * writer: libzstd's `ZSTD_COMPRESSBOUND(n)` (`n + n/256`, plus up to 64
   * bytes below 128 KiB), plus `n/8` for writers that split the data into
   * many frames (each with its header and checksum) or code worse than
   * libzstd, plus 64 KiB for skippable frames (e.g. seek tables).
   */
  maxEncodedSize(decodedSize: number): number {
    const n = decodedSize;
    const compressBound =
      n + Math.floor(n / 256) + (n < 128 * 1024 ? Math.floor((128 * 1024 - n) / 2048) : 0);
    return compressBound + Math.floor(n / 8) + FRAMING;
  }

  /**
   * Decodes every frame and concatenates the outputs. `decodedSize` is the
   * exact size (any other is a `CodecError`; frames declaring more fail
   * before anything is allocated). Without it the output may have at most
   * `options.maxDecodedSize` bytes (else {@link DEFAULT_MAX_DECODED_SIZE}):
   * frames declaring more fail at once, and each frame is decoded into a
   * buffer that starts at 1 MiB and grows fourfold while the frame needs
   * more, so memory follows what the data holds, never what it claims, and
   * decoding stops with a `CodecError` as soon as the bound is passed.
   */
  async decode(
    bytes: Uint8Array,
    decodedSize?: number,
    options?: CodecOptions,
  ): Promise<Uint8Array> {
    const frames = await this.#framesOf(bytes, decodedSize, options);
    const exact = decodedSize !== undefined;
    const limit = decodedSize ?? options?.maxDecodedSize ?? DEFAULT_MAX_DECODED_SIZE;
    const parts: Uint8Array[] = [];
    let total = 0;
    for (const f of frames) {
      throwIfAborted(options?.signal, this.#path);
      const out = exact
        ? this.#decodeFrame(bytes.subarray(f.start, f.end), f, limit - total, decodedSize)
        : this.#decodeBounded(bytes, f, limit - total, limit);
      total += out.length;
      if (total > limit) {
        throw this.#error(`decoded data exceeds the expected ${limit} bytes`);
      }
      parts.push(out);
    }
    if (exact && total !== decodedSize) {
      throw this.#error(`decoded ${total} bytes, expected ${decodedSize}`);
    }
    return concat(parts, total);
  }

  /**
   * Decodes every frame into `out`, whose length is the exact decoded size
   * (any other is a `CodecError`; `out` may then hold part of the data). Each
   * frame is decoded straight into its place, so no output buffer is made.
   */
  async decodeInto(bytes: Uint8Array, out: Uint8Array, options?: CodecOptions): Promise<void> {
    const frames = await this.#framesOf(bytes, out.length, options);
    let total = 0;
    for (const f of frames) {
      throwIfAborted(options?.signal, this.#path);
      total += this.#decodeFrameInto(
        bytes.subarray(f.start, f.end),
        f,
        out.subarray(total),
        out.length,
      );
    }
    if (total !== out.length) {
      throw this.#error(`decoded ${total} bytes, expected ${out.length}`);
    }
  }

  /**
   * The frames of `bytes`, once the arguments are checked, the frames'
   * declared sizes are within the expected or allowed size, and libzstd is
   * loaded.
   */
  async #framesOf(
    bytes: Uint8Array,
    decodedSize: number | undefined,
    options: CodecOptions | undefined,
  ): Promise<FrameInfo[]> {
    throwIfAborted(options?.signal, this.#path);
    for (const [name, value] of [
      ["decodedSize", decodedSize],
      ["maxDecodedSize", options?.maxDecodedSize],
    ] as const) {
      if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
        throw this.#error(`${name} must be a non-negative integer, got ${value}`);
      }
    }
    let frames: FrameInfo[];
    try {
      frames = scanFrames(bytes);
    } catch (e) {
      if (e instanceof FrameError)
        throw this.#error(`cannot decode ${bytes.length} bytes: ${e.message}`, e);
      throw e;
    }
    const limit = decodedSize ?? options?.maxDecodedSize ?? DEFAULT_MAX_DECODED_SIZE;
    let declared = 0;
    for (const f of frames) declared += f.contentSize ?? 0;
    if (declared > limit) {
      throw this.#error(`frames declare ${declared} bytes, more than the expected ${limit}`);
    }
    await this.#load();
    return frames;
  }

  /**
   * Decodes frame `info` into the start of `room` (the rest of an output of
   * `expected` bytes); returns the bytes written. A frame without its content
   * size may fill at most its blocks' bound or the room, whichever is less.
   */
  #decodeFrameInto(frame: Uint8Array, info: FrameInfo, room: Uint8Array, expected: number): number {
    const exceeds = () => `decoded data exceeds the expected ${expected} bytes`;
    if (info.contentSize !== undefined && info.contentSize > room.length)
      throw this.#error(exceeds());
    const capacity = info.contentSize ?? Math.min(info.maxSize, room.length);
    if (capacity > MAX_FRAME_OUTPUT) {
      throw this.#error(`a frame of more than ${MAX_FRAME_OUTPUT} bytes is not supported`);
    }
    let written: number;
    try {
      written = decompressFrameInto(frame, room.subarray(0, capacity));
    } catch (e) {
      if (e instanceof ZstdError && e.code === DST_TOO_SMALL && info.contentSize === undefined) {
        if (capacity >= info.maxSize) throw this.#error(`corrupt frame: ${e.message}`, e);
        throw this.#error(exceeds(), e);
      }
      throw this.#error(`cannot decode frame of ${frame.length} bytes: ${(e as Error).message}`, e);
    }
    if (info.contentSize !== undefined && written !== info.contentSize) {
      throw this.#error(
        `corrupt frame: it declares ${info.contentSize} bytes but holds ${written}`,
      );
    }
    return written;
  }

  /**
   * Decodes frame `info` of `bytes` into at most `room` bytes when the
   * decoded size is only bounded. The output buffer starts at 1 MiB (or 16
   * times the frame) and grows fourfold each time libzstd reports it too
   * small, up to the least of `room`, the frame's block bound and its
   * declared size. A declared size above the first buffer is removed from
   * the header (libzstd's wrapper would allocate it whole) and checked after
   * decoding instead. Each retry decodes again from the start: at most 1/3
   * more work than one pass.
   */
  #decodeBounded(bytes: Uint8Array, info: FrameInfo, room: number, limit: number): Uint8Array {
    if (info.contentSize !== undefined && info.contentSize > room) {
      throw this.#error(`decoded data exceeds the expected ${limit} bytes`);
    }
    const cap = Math.min(info.maxSize, room);
    let capacity = Math.min(cap, Math.max(FIRST_CAPACITY, 16 * (info.end - info.start)));
    if (capacity > MAX_FRAME_OUTPUT) capacity = MAX_FRAME_OUTPUT;
    const frame =
      info.contentSize !== undefined && info.contentSize > capacity
        ? withoutContentSize(bytes, info)
        : bytes.subarray(info.start, info.end);
    for (;;) {
      let out: Uint8Array;
      try {
        out = decompressFrame(frame, capacity);
      } catch (e) {
        if (!(e instanceof ZstdError) || e.code !== DST_TOO_SMALL) {
          throw this.#error(
            `cannot decode frame of ${frame.length} bytes: ${(e as Error).message}`,
            e,
          );
        }
        if (capacity >= cap) {
          if (room < info.maxSize) {
            throw this.#error(`decoded data exceeds the expected ${limit} bytes`, e);
          }
          throw this.#error(`corrupt frame: ${e.message}`, e);
        }
        if (capacity >= MAX_FRAME_OUTPUT) {
          throw this.#error(`a frame of more than ${MAX_FRAME_OUTPUT} bytes is not supported`);
        }
        capacity = Math.min(cap, capacity * 4, MAX_FRAME_OUTPUT);
        continue;
      }
      if (info.contentSize !== undefined && out.length !== info.contentSize) {
        throw this.#error(
          `corrupt frame: it declares ${info.contentSize} bytes but holds ${out.length}`,
        );
      }
      return out;
    }
  }

  #decodeFrame(frame: Uint8Array, info: FrameInfo, room: number, decodedSize?: number): Uint8Array {
    const tooBig = () =>
      this.#error(`a frame of more than ${MAX_FRAME_OUTPUT} bytes is not supported`);
    const needed = Math.min(info.maxSize, room);
    let capacity: number;
    if (info.contentSize !== undefined) {
      capacity = info.contentSize; // already checked against decodedSize
    } else if (decodedSize !== undefined) {
      capacity = needed; // sized from the metadata, never from the frame
    } else {
      // No bound from anywhere: start small, grow up to the blocks' bound.
      capacity = Math.min(needed, Math.max(1 << 20, 16 * frame.length));
    }
    if (capacity > MAX_FRAME_OUTPUT) throw tooBig();
    for (;;) {
      try {
        return decompressFrame(frame, capacity);
      } catch (e) {
        if (
          !(e instanceof ZstdError) ||
          e.code !== DST_TOO_SMALL ||
          info.contentSize !== undefined
        ) {
          throw this.#error(
            `cannot decode frame of ${frame.length} bytes: ${(e as Error).message}`,
            e,
          );
        }
        if (capacity >= info.maxSize) throw this.#error(`corrupt frame: ${e.message}`, e);
        if (capacity >= room) {
          throw this.#error(`decoded data exceeds the expected ${decodedSize} bytes`, e);
        }
        if (capacity >= MAX_FRAME_OUTPUT) throw tooBig();
        capacity = Math.min(needed, capacity * 4, MAX_FRAME_OUTPUT);
      }
    }
  }
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

function factory(name: string): CodecFactory {
  return {
    kind: "bytes_to_bytes",
    fromConfig(configuration, context) {
      // zarr-python 3 writes level 0 for v3; numcodecs' default level is 1.
      const defaults = { level: context.format === 3 && name === "zstd" ? 0 : 1, checksum: false };
      const config = parseZstdConfig(
        configuration,
        name,
        context.path,
        defaults,
        context.format === 2,
      );
      return new ZstdCodec({ ...config, name, path: context.path, format: context.format });
    },
  };
}

/** v3 `zstd` (`{level, checksum}`) and v2 numcodecs `zstd` (`{level}`). */
export const zstdCodec: CodecFactory = factory("zstd");
/** zarr-python 3's `numcodecs.zstd` name in v3 metadata. */
export const numcodecsZstdCodec: CodecFactory = factory("numcodecs.zstd");

/**
 * The standalone format (format spec, "Standalone Format"), as numcodecs'
 * `PCodec` writes it with `pcodec.standalone.simple_compress`: a magic
 * header, the standalone version, an optional uniform number type, a size
 * hint, the wrapped header, then chunks of one page each, each preceded by
 * its number type and count, and a termination byte.
 *
 * @module
 */
import { BitReader } from "./bit-reader.js";
import { corrupt } from "./errors.js";
import { type FormatVersion, MAX_SUPPORTED_FORMAT, readChunkMeta } from "./metadata.js";
import { joinLatents, type OutputWords } from "./modes.js";
import { numberTypeOfByte, type PcoNumberType } from "./number-types.js";
import { decodePage, TableBudget } from "./page.js";

/** ASCII `pco!`. */
export const MAGIC = Uint8Array.of(0x70, 0x63, 0x6f, 0x21);
/** The newest standalone version this implementation reads (and the spec documents). */
export const MAX_STANDALONE_VERSION = 3;
/** The most numbers one chunk may hold (24 bits of `n - 1`). */
export const MAX_CHUNK_N = 2 ** 24;

/** What the header of a standalone stream says. */
export interface StandaloneHeader {
  /** 0..3; versions 0 and 1 had none written (it is inferred from the wrapped version). */
  readonly standaloneVersion: number;
  readonly format: FormatVersion;
  /** The number type all chunks share, when declared (standalone version 3). */
  readonly uniformType?: PcoNumberType;
  /** The writer's count of numbers (standalone version 2+; untrusted). */
  readonly nHint: number;
}

/** Reads the standalone and wrapped headers; leaves `r` at the first chunk. */
export function readHeader(r: BitReader): StandaloneHeader {
  const magic = r.readAlignedBytes(4, "the magic header");
  for (let i = 0; i < 4; i++) {
    if (magic[i] !== MAGIC[i]) corrupt("not a Pco standalone stream (no pco! magic header)");
  }
  r.require(8, "the standalone version");
  let standaloneVersion = r.buf[r.pos >>> 3];
  let uniformType: PcoNumberType | undefined;
  let nHint = 0;
  if (standaloneVersion < 2) {
    // Versions 0 and 1 wrote no standalone version: this byte is the wrapped
    // format version, which they equalled.
  } else {
    r.pos += 8;
    if (standaloneVersion > MAX_STANDALONE_VERSION) {
      corrupt(
        `standalone version ${standaloneVersion} is newer than the ${MAX_STANDALONE_VERSION} this decoder reads`,
      );
    }
    if (standaloneVersion >= 3) {
      const byte = r.readAlignedBytes(1, "the uniform number type")[0];
      if (byte !== 0) {
        uniformType = numberTypeOfByte(byte);
        if (!uniformType) corrupt(`unknown uniform number type byte ${byte}`);
      }
    }
    r.require(6, "the size hint");
    const power = 1 + r.read(6);
    r.require(power, "the size hint");
    const lo = r.read64(power);
    nHint = r.hi * 2 ** 32 + lo;
    r.drainEmptyByte("the size hint");
  }
  const major = r.readAlignedBytes(1, "the format version")[0];
  const minor = major >= 4 ? r.readAlignedBytes(1, "the format minor version")[0] : 0;
  if (major > MAX_SUPPORTED_FORMAT.major) {
    corrupt(
      `format version ${major}.${minor} is newer than the ${MAX_SUPPORTED_FORMAT.major}.x this decoder reads`,
    );
  }
  if (standaloneVersion < 2) standaloneVersion = major === 0 ? 0 : 1;
  return { standaloneVersion, format: { major, minor }, uniformType, nHint };
}

/** Allocates the output of `count` numbers of `type` and its word view. */
function outputFor(type: PcoNumberType, count: number): [Uint8Array, OutputWords] {
  const bytes = new Uint8Array(count * (type.bits / 8));
  const words =
    type.bits === 8
      ? bytes
      : type.bits === 16
        ? new Uint16Array(bytes.buffer, 0, count)
        : new Uint32Array(bytes.buffer, 0, type.bits === 64 ? 2 * count : count);
  return [bytes, words];
}

/**
 * Decodes a standalone stream of numbers of `type` into their little-endian
 * bytes. With `exact`, the stream must hold exactly `count` numbers: a chunk
 * that would pass it fails before anything is allocated for it, so memory
 * stays bounded by the expected output (plus per-chunk tables of at most a
 * few hundred KiB). Without it, `count` is only an upper bound and each chunk
 * is decoded into its own buffer. Bytes after the termination byte are
 * ignored, as Pco does. Throws {@link PcoError} for anything else.
 *
 * @example
 * ```ts
 * import { decodeStandalone, numberTypeNamed } from "@zarr/codec-pcodec";
 * declare const stream: Uint8Array; // e.g. what pcodec.standalone.simple_compress wrote
 * const f64 = numberTypeNamed("f64");
 * const values = new Float64Array(decodeStandalone(stream, f64, 1000).buffer); // exactly 1000 numbers
 * ```
 */
export function decodeStandalone(
  bytes: Uint8Array,
  type: PcoNumberType,
  count: number,
  exact = true,
): Uint8Array {
  const r = new BitReader(bytes);
  const header = readHeader(r);
  if (header.uniformType && header.uniformType !== type) {
    corrupt(`the stream holds ${header.uniformType.name} numbers, expected ${type.name}`);
  }
  const [out, words] = exact ? outputFor(type, count) : [undefined, undefined];
  const parts: Uint8Array[] = [];
  const budget = new TableBudget(count);
  let done = 0;
  for (;;) {
    const typeByte = r.readAlignedBytes(1, "a chunk's number type")[0];
    if (typeByte === 0) break;
    if (header.uniformType && typeByte !== header.uniformType.byte) {
      corrupt(
        `a chunk's number type byte ${typeByte} differs from the uniform type ${header.uniformType.name}`,
      );
    }
    if (typeByte !== type.byte) {
      const found = numberTypeOfByte(typeByte);
      corrupt(
        found
          ? `a chunk holds ${found.name} numbers, expected ${type.name}`
          : `unknown number type byte ${typeByte}`,
      );
    }
    const nBytes = r.readAlignedBytes(3, "a chunk's count");
    const n = 1 + (nBytes[0] | (nBytes[1] << 8) | (nBytes[2] << 16));
    if (done + n > count) {
      corrupt(`the chunks hold more than the ${exact ? "expected" : "allowed"} ${count} numbers`);
    }
    const meta = readChunkMeta(r, header.format, type);
    const page = decodePage(r, meta, n, budget);
    if (words) joinLatents(meta.mode, type, page.primary, page.secondary, words, done);
    else {
      const [part, partWords] = outputFor(type, n);
      joinLatents(meta.mode, type, page.primary, page.secondary, partWords, 0);
      parts.push(part);
    }
    done += n;
  }
  if (out) {
    if (done !== count) corrupt(`the stream holds ${done} numbers, expected ${count}`);
    return out;
  }
  if (parts.length === 1) return parts[0];
  const joined = new Uint8Array(done * (type.bits / 8));
  let at = 0;
  for (const p of parts) {
    joined.set(p, at);
    at += p.length;
  }
  return joined;
}

/**
 * Reads the header of a standalone stream (versions, uniform type, size hint).
 *
 * @example
 * ```ts
 * import { readStandaloneHeader } from "@zarr/codec-pcodec";
 * declare const stream: Uint8Array;
 * const { standaloneVersion, format, nHint } = readStandaloneHeader(stream);
 * ```
 */
export function readStandaloneHeader(bytes: Uint8Array): StandaloneHeader {
  return readHeader(new BitReader(bytes));
}

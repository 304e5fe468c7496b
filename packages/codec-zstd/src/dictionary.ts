/**
 * Decompression of single zstd frames written with a dictionary (RFC 8878
 * section 5, "Dictionary Format"): a ZDICT dictionary as `zstd --train` or
 * `ZDICT_trainFromBuffer` write it, or raw content. Icechunk 2 compresses the
 * URLs of virtual chunks this way.
 *
 * Only the platform's libzstd can do it: Node's `node:zlib` honours the
 * `dictionary` option of its zstd functions from Node 22.19 and 24.6 on
 * (feature-detected, not version-checked). libzstd's WebAssembly build, used
 * in browsers and on older Node, has no dictionary entry points, so there the
 * helper throws an `UnsupportedError` saying what it needs.
 *
 * @module
 */
import { CodecError, UnsupportedError } from "@zarr/core";
import { dictionaryZstd } from "#native";
import { ZstdError, zstdEngine } from "./engine.js";
import { FrameError, type FrameInfo, scanFrames } from "./frame.js";
import { OutputTooLarge } from "./native/types.js";

/** Where {@link decompressWithDictionary} works: the Node versions whose `node:zlib` zstd takes a dictionary. */
export const ZSTD_DICTIONARY_REQUIREMENT = "Node.js >= 22.19 (22.x) or >= 24.6";

/** Magic_Number of a ZDICT dictionary (RFC 8878 5), little-endian. */
const ZDICT_MAGIC = 0xec30a437;

/** Options of {@link decompressWithDictionary}. */
export interface DictionaryDecompressOptions {
  /** What the frame is, for error messages and `CodecError.path` (e.g. a file and a chunk). */
  path?: string;
}

/**
 * Whether this platform can decompress frames written with a dictionary
 * (Node's `node:zlib` zstd with the `dictionary` option: Node ≥ 22.19 / 24.6).
 */
export function hasZstdDictionarySupport(): boolean {
  return zstdEngine() === "native" && dictionaryZstd() !== undefined;
}

/**
 * The Dictionary_ID of `dictionary`: its own for a ZDICT dictionary, 0 for
 * raw content (RFC 8878 5: content that does not start with the magic number).
 */
export function zstdDictionaryId(dictionary: Uint8Array): number {
  if (dictionary.length < 8) return 0;
  const view = new DataView(dictionary.buffer, dictionary.byteOffset, 8);
  return view.getUint32(0, true) === ZDICT_MAGIC ? view.getUint32(4, true) : 0;
}

/**
 * Decompresses one zstd frame written with `dictionary` into at most
 * `maxSize` bytes.
 *
 * The frame is walked first (header and block headers): anything but one
 * complete frame, a declared content size above `maxSize`, or a frame naming
 * a dictionary id other than `dictionary`'s fails before decoding; libzstd
 * then writes at most `maxSize` bytes. Every failure is a `CodecError`
 * naming `options.path`, except a platform without dictionary support (see
 * {@link hasZstdDictionarySupport}): an `UnsupportedError` saying it needs
 * {@link ZSTD_DICTIONARY_REQUIREMENT}. A wrong dictionary with the right id
 * (or raw-content dictionaries, which have none) cannot always be told apart
 * from the right one: frames without a content checksum may then decode to
 * other bytes, as with libzstd itself.
 *
 * @param frame - One zstd frame (skippable frames around it are ignored).
 * @param dictionary - The dictionary the frame was written with.
 * @param maxSize - The most bytes the output may have.
 * @returns The decompressed bytes.
 *
 * @example
 * ```ts
 * import { decompressWithDictionary } from "@zarr/codec-zstd";
 * // frame and dictionary: e.g. from `zstd --train samples/* -o dict` and `zstd -D dict url.txt`
 * const bytes = await decompressWithDictionary(frame, dictionary, 64 * 1024);
 * const url = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
 * ```
 */
export async function decompressWithDictionary(
  frame: Uint8Array,
  dictionary: Uint8Array,
  maxSize: number,
  options: DictionaryDecompressOptions = {},
): Promise<Uint8Array> {
  const path = options.path ?? "";
  const fail = (message: string, cause?: unknown): CodecError =>
    new CodecError(`zstd frame with dictionary${path ? ` (${path})` : ""}: ${message}`, {
      path,
      cause,
    });
  if (!(Number.isSafeInteger(maxSize) && maxSize >= 0)) {
    throw fail(`maxSize must be a non-negative integer, got ${maxSize}`);
  }
  let info: FrameInfo;
  try {
    const frames = scanFrames(frame, true);
    if (frames.length !== 1) throw new FrameError(`${frames.length} frames, expected one`);
    info = frames[0]!;
  } catch (e) {
    if (e instanceof FrameError) throw fail(`cannot decode ${frame.length} bytes: ${e.message}`, e);
    throw e;
  }
  if (info.contentSize !== undefined && info.contentSize > maxSize) {
    throw fail(`the frame declares ${info.contentSize} bytes, more than the allowed ${maxSize}`);
  }
  const engine = zstdEngine() === "native" ? dictionaryZstd() : undefined;
  if (engine === undefined) {
    throw new UnsupportedError(
      `zstd frame with dictionary${path ? ` (${path})` : ""}: decompressing with a dictionary ` +
        `needs ${ZSTD_DICTIONARY_REQUIREMENT} (node:zlib's zstd); this platform has none ` +
        "(browsers, Node 20 and older Node 22/24 releases use libzstd's WebAssembly build, " +
        "which has no dictionary support)",
      { path },
    );
  }
  const have = zstdDictionaryId(dictionary);
  if (info.dictionaryId !== 0 && info.dictionaryId !== have) {
    throw fail(
      `the frame needs dictionary ${info.dictionaryId}, the dictionary given ` +
        (have === 0 ? "has no id (raw content)" : `is dictionary ${have}`),
    );
  }
  let out: Uint8Array;
  try {
    const capacity = Math.min(maxSize, info.maxSize);
    // the declared size, else room for a ratio of 16 (grown by node:zlib as needed)
    const firstBuffer = info.contentSize ?? Math.max(1024, 16 * frame.length);
    out = engine.decompress(
      frame.subarray(info.start, info.end),
      dictionary,
      capacity,
      firstBuffer,
    );
  } catch (e) {
    if (e instanceof OutputTooLarge) {
      throw fail(`the frame holds more than the allowed ${maxSize} bytes`, e);
    }
    const code = (e as { errno?: unknown }).errno;
    const reason =
      typeof code === "number" && code > 0
        ? new ZstdError(code).message
        : `${engine.name}: ${(e as Error).message}`;
    throw fail(`cannot decode frame of ${frame.length} bytes: ${reason}`, e);
  }
  if (out.length > maxSize) {
    throw fail(`the frame holds more than the allowed ${maxSize} bytes`);
  }
  if (info.contentSize !== undefined && out.length !== info.contentSize) {
    throw fail(`corrupt frame: it declares ${info.contentSize} bytes but holds ${out.length}`);
  }
  return out;
}

/**
 * The binary envelope of every Icechunk metadata file (spec v2, "Binary File
 * Format"): 12 magic bytes (`ICE🧊CHUNK`), a 24-byte implementation name,
 * the spec version, the file type and the compression algorithm, then the
 * (zstd-compressed) flatbuffer.
 *
 * @module
 */

import { ZstdCodec } from "@zarr/codec-zstd";
import { type AnyStore, CodecError } from "@zarr/core";
import { IcechunkFormatError } from "./errors.js";
import { FlatBuffer } from "./flatbuffers.js";

/** `ICE🧊CHUNK` in UTF-8. */
export const MAGIC = new Uint8Array([
  0x49, 0x43, 0x45, 0xf0, 0x9f, 0xa7, 0x8a, 0x43, 0x48, 0x55, 0x4e, 0x4b,
]);
/** Bytes before the payload: magic (12), implementation name (24), version, type, compression. */
export const HEADER_SIZE = 39;
/** Spec versions this package reads (the header byte: 2 covers spec 2 and 2.1). */
export const SUPPORTED_SPEC_VERSIONS: readonly number[] = [1, 2];

/** File types of the header's type byte. */
export const FileType = {
  Snapshot: 1,
  Manifest: 2,
  TransactionLog: 4,
  RepoInfo: 6,
} as const;
const TYPE_NAMES: Record<number, string> = {
  1: "a snapshot",
  2: "a manifest",
  4: "a transaction log",
  6: "a repo info file",
};

/** A decoded metadata file. */
export interface IcechunkFile {
  specVersion: number;
  /** The implementation that wrote it (e.g. `ic-2.0.0`), trailing spaces removed. */
  writer: string;
  fb: FlatBuffer;
}

/** Limits and cancellation for reading repository files. */
export interface ReadLimits {
  /** The most bytes a metadata file may take, compressed or decompressed. */
  maxMetadataBytes: number;
  signal?: AbortSignal;
}

const zstd = new ZstdCodec({ path: "icechunk" });

/**
 * Reads `key` of `store`, checks its header against `type` and returns the
 * decompressed flatbuffer; `undefined` when the file is missing.
 */
export async function readIcechunkFile(
  store: AnyStore,
  key: string,
  type: number,
  limits: ReadLimits,
): Promise<IcechunkFile | undefined> {
  const raw = await store.get(key, undefined, {
    signal: limits.signal,
    maxBytes: limits.maxMetadataBytes,
  });
  if (raw === undefined) return undefined;
  if (raw.length > limits.maxMetadataBytes) {
    throw fail(
      key,
      `is ${raw.length} bytes, more than maxMetadataBytes (${limits.maxMetadataBytes})`,
    );
  }
  return decodeIcechunkFile(raw, key, type, limits);
}

/** Decodes the bytes of file `key` (see {@link readIcechunkFile}). */
export async function decodeIcechunkFile(
  raw: Uint8Array,
  key: string,
  type: number,
  limits: ReadLimits,
): Promise<IcechunkFile> {
  if (raw.length < HEADER_SIZE)
    throw fail(key, `has ${raw.length} bytes, fewer than the ${HEADER_SIZE}-byte header`);
  for (let i = 0; i < MAGIC.length; i++) {
    if (raw[i] !== MAGIC[i])
      throw fail(key, "does not start with the Icechunk magic bytes ICE🧊CHUNK");
  }
  const writer = new TextDecoder().decode(raw.subarray(12, 36)).trimEnd();
  const specVersion = raw[36];
  if (!SUPPORTED_SPEC_VERSIONS.includes(specVersion)) {
    throw fail(
      key,
      `has spec version ${specVersion} (written by ${JSON.stringify(writer)}); this reader supports spec versions 1 and 2 (2.1)`,
    );
  }
  if (raw[37] !== type) {
    throw fail(
      key,
      `is ${TYPE_NAMES[raw[37]] ?? `file type ${raw[37]}`}, expected ${TYPE_NAMES[type]}`,
    );
  }
  const payload = raw.subarray(HEADER_SIZE);
  let bytes: Uint8Array;
  switch (raw[38]) {
    case 0:
      bytes = payload;
      break;
    case 1:
      try {
        bytes = await zstd.decode(payload, undefined, {
          maxDecodedSize: limits.maxMetadataBytes,
          signal: limits.signal,
        });
      } catch (e) {
        if (e instanceof CodecError) throw fail(key, `cannot be decompressed: ${e.message}`, e);
        throw e;
      }
      break;
    default:
      throw fail(key, `uses compression algorithm ${raw[38]} (known: 0 none, 1 zstd)`);
  }
  return { specVersion, writer, fb: new FlatBuffer(bytes, key) };
}

function fail(key: string, what: string, cause?: unknown): IcechunkFormatError {
  return new IcechunkFormatError(`icechunk file ${key} ${what}`, { path: key, cause });
}

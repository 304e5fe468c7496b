/**
 * @zarr/codec-checksums: numcodecs' checksum codecs (adler32, crc32, crc32c,
 * fletcher32, jenkins_lookup3) for @zarr/core, byte compatible with
 * numcodecs, under their v2 ids and zarr-python 3's `numcodecs.*` names.
 *
 * @example
 * ```ts
 * import "@zarr/codec-checksums/register";
 * import { MemoryStore, createArray } from "@zarr/core";
 * const a = await createArray(new MemoryStore(), "x", {
 *   shape: [100], dataType: "int32", chunkShape: [10],
 *   codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "numcodecs.fletcher32" }],
 * });
 * ```
 *
 * @packageDocumentation
 */
export type { ChecksumId, ChecksumLocation } from "./algorithms.js";
export {
  adler32Codec,
  CHECKSUM_CODECS,
  ChecksumCodec,
  type ChecksumCodecOptions,
  crc32Codec,
  crc32cCodec,
  fletcher32Codec,
  jenkinsLookup3Codec,
  numcodecsAdler32Codec,
  numcodecsCrc32Codec,
  numcodecsCrc32cCodec,
  numcodecsFletcher32Codec,
  numcodecsJenkinsLookup3Codec,
} from "./codec.js";
export { fletcher32 } from "./fletcher32.js";
export { jenkinsLookup3 } from "./jenkins.js";
export { adler32, crc32 } from "./zlib-checksums.js";

/**
 * zarr-codec-checksum32: numcodecs' `crc32` and `adler32` checksum codecs for
 * @zarr/core, written as a third-party package against core's public API.
 *
 * ```ts
 * import "zarr-codec-checksum32/register";
 * import { MemoryStore, createArray } from "@zarr/core";
 * const a = await createArray(new MemoryStore(), "x", {
 *   shape: [100], dataType: "int32", chunkShape: [10],
 *   codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "numcodecs.adler32" }],
 * });
 * ```
 *
 * @packageDocumentation
 */
export { adler32, crc32 } from "./checksums.js";
export {
  adler32Codec,
  Checksum32Codec,
  type Checksum32Options,
  type ChecksumAlgorithm,
  type ChecksumLocation,
  crc32Codec,
  numcodecsAdler32Codec,
  numcodecsCrc32Codec,
} from "./codec.js";

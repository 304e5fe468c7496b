/**
 * @zarr/codec-lz4: numcodecs' `LZ4` compressor (a 4-byte little-endian size,
 * then one LZ4 block) for @zarr/core, under the v2 id `lz4` and zarr-python
 * 3's v3 name `numcodecs.lz4`. The LZ4 block code is `@zarr/codec-blosc`'s.
 *
 * @example
 * ```ts
 * import "@zarr/codec-lz4/register";
 * import { MemoryStore, createArray } from "@zarr/core";
 * const a = await createArray(new MemoryStore(), "x", {
 *   shape: [1000], dataType: "uint16", chunkShape: [100],
 *   codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "numcodecs.lz4", configuration: { acceleration: 1 } }],
 * });
 * ```
 *
 * @packageDocumentation
 */
export {
  DEFAULT_MAX_DECODED_SIZE,
  lz4Codec,
  lz4MaxDecodedSize,
  lz4MaxEncodedSize,
  numcodecsLz4Codec,
} from "./codec.js";

/**
 * @zarr/codec-lzma: numcodecs' `lzma` compressor for @zarr/core, in
 * TypeScript: the formats of Python's `lzma` module (xz with CRC-32, CRC-64,
 * SHA-256 or no check; .lzma "alone"; raw LZMA1/LZMA2 chains with Delta),
 * under the v2 id `lzma` and zarr-python 3's v3 name `numcodecs.lzma`.
 *
 * @example
 * ```ts
 * import "@zarr/codec-lzma/register";
 * import { MemoryStore, createArray } from "@zarr/core";
 * const a = await createArray(new MemoryStore(), "x", {
 *   shape: [1000], dataType: "float64", chunkShape: [100],
 *   codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "numcodecs.lzma", configuration: { preset: 6 } }],
 * });
 * ```
 *
 * @packageDocumentation
 */
export { DEFAULT_MAX_DECODED_SIZE } from "@zarr/core/codec";
export { lzmaCodec, lzmaMaxEncodedSize, numcodecsLzmaCodec } from "./codec.js";

/**
 * @zarr/codec-bz2: numcodecs' `bz2` compressor (a bzip2 stream, as Python's
 * `bz2` module writes it) for @zarr/core, in TypeScript, under the v2 id
 * `bz2` and zarr-python 3's v3 name `numcodecs.bz2`.
 *
 * @example
 * ```ts
 * import "@zarr/codec-bz2/register";
 * import { MemoryStore, createArray } from "@zarr/core";
 * const a = await createArray(new MemoryStore(), "x", {
 *   shape: [1000], dataType: "int32", chunkShape: [100],
 *   codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "numcodecs.bz2", configuration: { level: 9 } }],
 * });
 * ```
 *
 * @packageDocumentation
 */
export { DEFAULT_MAX_DECODED_SIZE } from "@zarr/core/codec";
export { bz2Codec, bz2MaxEncodedSize, numcodecsBz2Codec } from "./codec.js";

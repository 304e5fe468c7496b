/**
 * Registers the checksum codecs with @zarr/core under the numcodecs ids (`crc32`,
 * `adler32`, for v2 metadata) and zarr-python 3's v3 names (`numcodecs.crc32`,
 * `numcodecs.adler32`).
 *
 * @module
 */
import { registerCodec } from "@zarr/core";
import { adler32Codec, crc32Codec, numcodecsAdler32Codec, numcodecsCrc32Codec } from "./index.js";

registerCodec("crc32", crc32Codec);
registerCodec("adler32", adler32Codec);
registerCodec("numcodecs.crc32", numcodecsCrc32Codec);
registerCodec("numcodecs.adler32", numcodecsAdler32Codec);

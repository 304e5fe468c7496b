/**
 * Registers the gzip and zlib codecs with @zarr/core under `gzip`, `zlib`,
 * `numcodecs.gzip` and `numcodecs.zlib`.
 *
 * @module
 */
import { registerCodec } from "@zarr/core";
import { gzipCodec, numcodecsGzipCodec, numcodecsZlibCodec, zlibCodec } from "./index.js";

registerCodec("gzip", gzipCodec);
registerCodec("zlib", zlibCodec);
registerCodec("numcodecs.gzip", numcodecsGzipCodec);
registerCodec("numcodecs.zlib", numcodecsZlibCodec);

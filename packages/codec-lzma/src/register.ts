/**
 * Registers the lzma codec with @zarr/core under `lzma` (v2) and `numcodecs.lzma` (v3).
 *
 * @module
 */
import { registerCodec } from "@zarr/core";
import { lzmaCodec, numcodecsLzmaCodec } from "./index.js";

registerCodec("lzma", lzmaCodec);
registerCodec("numcodecs.lzma", numcodecsLzmaCodec);

/**
 * Registers the lz4 codec with @zarr/core under `lz4` (v2) and `numcodecs.lz4` (v3).
 *
 * @module
 */
import { registerCodec } from "@zarr/core";
import { lz4Codec, numcodecsLz4Codec } from "./index.js";

registerCodec("lz4", lz4Codec);
registerCodec("numcodecs.lz4", numcodecsLz4Codec);

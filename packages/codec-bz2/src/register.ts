/**
 * Registers the bz2 codec with @zarr/core under `bz2` (v2) and `numcodecs.bz2` (v3).
 *
 * @module
 */
import { registerCodec } from "@zarr/core";
import { bz2Codec, numcodecsBz2Codec } from "./index.js";

registerCodec("bz2", bz2Codec);
registerCodec("numcodecs.bz2", numcodecsBz2Codec);

/**
 * Registers the pcodec codecs with @zarr/core under `pcodec` (v2) and
 * `numcodecs.pcodec` (v3).
 *
 * @module
 */
import { registerCodec } from "@zarr/core";
import { numcodecsPcodecCodec, pcodecCodec } from "./index.js";

registerCodec("pcodec", pcodecCodec);
registerCodec("numcodecs.pcodec", numcodecsPcodecCodec);

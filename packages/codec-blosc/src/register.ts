/**
 * Registers the blosc codec under its v3 name `blosc` (also the v2 numcodecs
 * id) and zarr-python 3's `numcodecs.blosc`.
 *
 * @module
 */
import { registerCodec } from "@zarr/core";
import { bloscCodecFactory, numcodecsBloscCodecFactory } from "./codec.js";

registerCodec("blosc", bloscCodecFactory);
registerCodec("numcodecs.blosc", numcodecsBloscCodecFactory);

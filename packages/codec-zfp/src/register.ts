/**
 * Registers the zfp codecs with @zarr/core: `zfpy` (v2 numcodecs id),
 * `numcodecs.zfpy` (zarr-python 3) and `zfp` (zarrs, zarr-extensions).
 *
 * @module
 */
import { registerCodec } from "@zarr/core";
import { numcodecsZfpyCodec, zfpCodec, zfpyCodec } from "./index.js";

registerCodec("zfpy", zfpyCodec);
registerCodec("numcodecs.zfpy", numcodecsZfpyCodec);
registerCodec("zfp", zfpCodec);

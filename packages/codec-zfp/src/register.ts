/**
 * Registers the zfp codecs with @zarr/core: `zfpy` (v2 numcodecs id),
 * `numcodecs.zfpy` (zarr-python 3) and `zfp` (zarrs, zarr-extensions).
 *
 * The registrations are lazy: the codec's implementation is imported the
 * first time metadata names it, so importing this module costs almost nothing
 * (and a bundler splits the codec into its own chunk).
 *
 * @module
 */
import { registerCodec } from "@zarr/core";

const load = () => import("./index.js");

registerCodec("zfpy", { load: () => load().then((m) => m.zfpyCodec) });
registerCodec("numcodecs.zfpy", { load: () => load().then((m) => m.numcodecsZfpyCodec) });
registerCodec("zfp", { load: () => load().then((m) => m.zfpCodec) });

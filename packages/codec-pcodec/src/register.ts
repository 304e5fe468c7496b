/**
 * Registers the pcodec codecs with @zarr/core under `pcodec` (v2) and
 * `numcodecs.pcodec` (v3).
 *
 * The registrations are lazy: the codec's implementation is imported the
 * first time metadata names it, so importing this module costs almost nothing
 * (and a bundler splits the codec into its own chunk).
 *
 * @module
 */
import { registerCodec } from "@zarr/core";

const load = () => import("./index.js");

registerCodec("pcodec", { load: () => load().then((m) => m.pcodecCodec) });
registerCodec("numcodecs.pcodec", { load: () => load().then((m) => m.numcodecsPcodecCodec) });

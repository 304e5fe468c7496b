/**
 * Registers the blosc codec under its v3 name `blosc` (also the v2 numcodecs
 * id) and zarr-python 3's `numcodecs.blosc`.
 *
 * The registrations are lazy: the codec's implementation is imported the
 * first time metadata names it, so importing this module costs almost nothing
 * (and a bundler splits the codec into its own chunk).
 *
 * @module
 */
import { registerCodec } from "@zarr/core";

const load = () => import("./codec.js");

registerCodec("blosc", { load: () => load().then((m) => m.bloscCodecFactory) });
registerCodec("numcodecs.blosc", { load: () => load().then((m) => m.numcodecsBloscCodecFactory) });

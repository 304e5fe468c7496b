/**
 * Registers the bz2 codec with @zarr/core under `bz2` (v2) and `numcodecs.bz2` (v3).
 *
 * The registrations are lazy: the codec's implementation is imported the
 * first time metadata names it, so importing this module costs almost nothing
 * (and a bundler splits the codec into its own chunk).
 *
 * @module
 */
import { registerCodec } from "@zarr/core";

const load = () => import("./index.js");

registerCodec("bz2", { load: () => load().then((m) => m.bz2Codec) });
registerCodec("numcodecs.bz2", { load: () => load().then((m) => m.numcodecsBz2Codec) });

/**
 * Registers the lz4 codec with @zarr/core under `lz4` (v2) and `numcodecs.lz4` (v3).
 *
 * The registrations are lazy: the codec's implementation is imported the
 * first time metadata names it, so importing this module costs almost nothing
 * (and a bundler splits the codec into its own chunk).
 *
 * @module
 */
import { registerCodec } from "@zarr/core";

const load = () => import("./index.js");

registerCodec("lz4", { load: () => load().then((m) => m.lz4Codec) });
registerCodec("numcodecs.lz4", { load: () => load().then((m) => m.numcodecsLz4Codec) });

/**
 * Registers the lzma codec with @zarr/core under `lzma` (v2) and `numcodecs.lzma` (v3).
 *
 * The registrations are lazy: the codec's implementation is imported the
 * first time metadata names it, so importing this module costs almost nothing
 * (and a bundler splits the codec into its own chunk).
 *
 * @module
 */
import { registerCodec } from "@zarr/core";

const load = () => import("./index.js");

registerCodec("lzma", { load: () => load().then((m) => m.lzmaCodec) });
registerCodec("numcodecs.lzma", { load: () => load().then((m) => m.numcodecsLzmaCodec) });

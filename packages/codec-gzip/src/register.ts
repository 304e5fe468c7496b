/**
 * Registers the gzip and zlib codecs with @zarr/core under `gzip`, `zlib`,
 * `numcodecs.gzip` and `numcodecs.zlib`.
 *
 * The registrations are lazy: the codec's implementation is imported the
 * first time metadata names it, so importing this module costs almost nothing
 * (and a bundler splits the codec into its own chunk).
 *
 * @module
 */
import { registerCodec } from "@zarr/core";

const load = () => import("./index.js");

registerCodec("gzip", { load: () => load().then((m) => m.gzipCodec) });
registerCodec("zlib", { load: () => load().then((m) => m.zlibCodec) });
registerCodec("numcodecs.gzip", { load: () => load().then((m) => m.numcodecsGzipCodec) });
registerCodec("numcodecs.zlib", { load: () => load().then((m) => m.numcodecsZlibCodec) });

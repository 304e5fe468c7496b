/**
 * Registers the zstd codec with @zarr/core under `zstd` and `numcodecs.zstd`.
 *
 * The registrations are lazy: the codec's implementation is imported the
 * first time metadata names it, so importing this module costs almost nothing
 * (and a bundler splits the codec into its own chunk).
 *
 * @module
 */
import { registerCodec } from "@zarr/core";

const load = () => import("./index.js");

registerCodec("zstd", { load: () => load().then((m) => m.zstdCodec) });
registerCodec("numcodecs.zstd", { load: () => load().then((m) => m.numcodecsZstdCodec) });

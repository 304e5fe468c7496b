/**
 * Registers the zstd codec with @zarr/core under `zstd` and `numcodecs.zstd`.
 *
 * @module
 */
import { registerCodec } from "@zarr/core";
import { numcodecsZstdCodec, zstdCodec } from "./index.js";

registerCodec("zstd", zstdCodec);
registerCodec("numcodecs.zstd", numcodecsZstdCodec);

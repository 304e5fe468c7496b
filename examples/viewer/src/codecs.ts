/**
 * Codec registration for the viewer. gzip (the common case) is bundled; blosc
 * and zstd are registered as lazy loaders, so their code (and zstd's
 * WebAssembly) is split into separate files fetched only when an array uses them.
 *
 * @module
 */
import "@zarr/codec-gzip/register";
import { registerCodec } from "@zarr/core";

registerCodec("blosc", { load: async () => (await import("@zarr/codec-blosc")).bloscCodecFactory });
registerCodec("zstd", { load: async () => (await import("@zarr/codec-zstd")).zstdCodec });

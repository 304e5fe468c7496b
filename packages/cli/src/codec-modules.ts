/**
 * The register modules of every codec and data format the CLI reads and
 * writes: imported by `register.ts` on this thread, and by URL in the worker
 * threads of `workers.ts`, so that both have the same codecs.
 *
 * @module
 */
export const CODEC_MODULES: readonly string[] = [
  "@zarr/codec-gzip/register",
  "@zarr/codec-zstd/register",
  "@zarr/codec-blosc/register",
  "@zarr/codec-lz4/register",
  "@zarr/codec-bz2/register",
  "@zarr/codec-lzma/register",
  "@zarr/codec-checksums/register",
  "@zarr/codec-zfp/register",
  "@zarr/codec-pcodec/register",
  "@zarr/v2-compat/register",
];

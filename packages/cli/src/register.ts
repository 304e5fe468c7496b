/**
 * Registers every codec and data format the CLI reads and writes. Imported by
 * `main` just before a command runs, so that `zarr --help` loads none of them.
 * (Store URL schemes register in `stores.ts`, which every command imports.)
 *
 * @module
 */
import "@zarr/codec-gzip/register";
import "@zarr/codec-zstd/register";
import "@zarr/codec-blosc/register";
import "@zarr/codec-lz4/register";
import "@zarr/codec-bz2/register";
import "@zarr/codec-lzma/register";
import "@zarr/codec-checksums/register";
import "@zarr/codec-zfp/register";
import "@zarr/codec-pcodec/register";
import "@zarr/v2-compat/register";

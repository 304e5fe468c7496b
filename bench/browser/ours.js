// Page script for the Chromium row, bundled by browser_bench.mjs with esbuild as
// an application would (bundle, esm, splitting, platform browser): this library
// reading a whole array over HTTP with HttpStore and its default options (no
// worker pool: @zarr/workers needs its worker script served separately).
import "@zarr/codec-blosc/register";
import "@zarr/codec-gzip/register";
import "@zarr/codec-zstd/register";
import "@zarr/v2-compat/register";
import { openArray } from "@zarr/core";
import { HttpStore } from "@zarr/store-http";
import { run } from "./harness.js";

run(async (url) => {
  const array = await openArray(new HttpStore(url), "");
  return (await array.get(null)).data;
});

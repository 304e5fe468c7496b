// The browser app every bundler builds as it is (plain JavaScript: no loader,
// no plugin, no configuration). It reads a Zarr array over HTTP and reports
// the values, or the error, to the test through `window.zarrRead`.
import "@zarr/codec-blosc/register";
import "@zarr/codec-gzip/register";
import "@zarr/codec-zstd/register";
import { loadBlockKernels } from "@zarr/codec-blosc";
import { CodecError, openArray } from "@zarr/core";
import { HttpStore } from "@zarr/store-http";

window.zarrRead = async (url, path) => {
  const started = performance.now();
  try {
    const array = await openArray(new HttpStore(url), path);
    const { data, shape } = await array.get(null);
    return { ok: true, shape, values: Array.from(data) };
  } catch (e) {
    return {
      ok: false,
      name: e?.name,
      isCodecError: e instanceof CodecError,
      message: String(e?.message ?? e),
      ms: performance.now() - started,
    };
  }
};
// Whether codec-blosc's WebAssembly block kernels are in use on this page.
window.zarrKernels = () => loadBlockKernels();
window.zarrReady = true;

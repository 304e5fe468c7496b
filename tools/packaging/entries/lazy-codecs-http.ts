// A browser app that reads arrays over HTTP and registers its codecs lazily:
// each codec package loads the first time metadata names the codec.
import { openArray, registerCodec, slice } from "@zarr/core";
import { HttpStore } from "@zarr/store-http";

registerCodec("gzip", { load: async () => (await import("@zarr/codec-gzip")).gzipCodec });
registerCodec("blosc", { load: async () => (await import("@zarr/codec-blosc")).bloscCodecFactory });
registerCodec("zstd", { load: async () => (await import("@zarr/codec-zstd")).zstdCodec });

export async function readWindow(url: string, path: string): Promise<ArrayLike<number>> {
  const array = await openArray(new HttpStore(url), path);
  const { data } = await array.get([0, slice(0, 256), slice(0, 256)]);
  return data as ArrayLike<number>;
}

// A browser app that reads blosc- or gzip-compressed arrays over HTTP.
import "@zarr/codec-gzip/register";
import "@zarr/codec-blosc/register";
import { openArray, slice } from "@zarr/core";
import { HttpStore } from "@zarr/store-http";

export async function readWindow(url: string, path: string): Promise<ArrayLike<number>> {
  const array = await openArray(new HttpStore(url), path);
  const { data } = await array.get([0, slice(0, 256), slice(0, 256)]);
  return data as ArrayLike<number>;
}

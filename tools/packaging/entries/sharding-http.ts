// A browser app that reads one inner chunk of a gzip-compressed sharded array over
// HTTP (sharding_indexed is built into @zarr/core and loads when metadata names it).
import "@zarr/codec-gzip/register";
import { openArray, slice } from "@zarr/core";
import { HttpStore } from "@zarr/store-http";

export async function readInnerChunk(url: string, path: string): Promise<ArrayLike<number>> {
  const array = await openArray(new HttpStore(url), path);
  const codecs = array.metadata.codecs.map((codec) => codec.name);
  if (!codecs.includes("sharding_indexed")) throw new Error(`${path} is not sharded`);
  const { data } = await array.get([slice(0, 32), slice(0, 32)]);
  return data as ArrayLike<number>;
}

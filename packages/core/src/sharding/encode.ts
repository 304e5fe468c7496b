/**
 * Writing a whole shard: each inner chunk that is not all fill value is
 * encoded with the inner codecs and laid out in index order; the index goes
 * at the start or the end.
 *
 * @module
 */

import type { CodecPipeline } from "../codecs/pipeline.js";
import type { ChunkSpec, CodecOptions, NDArray } from "../codecs/types.js";
import { throwIfAborted } from "../errors.js";
import type { ShardLayout } from "./layout.js";
import type { ShardIndexCodec } from "./shard-index.js";

/** Encodes `chunk` (a whole shard of `decoded`) into shard bytes. */
export async function encodeShard(
  chunk: NDArray,
  decoded: ChunkSpec,
  layout: ShardLayout,
  inner: CodecPipeline,
  index: ShardIndexCodec,
  path: string,
  options?: CodecOptions,
): Promise<Uint8Array> {
  const { dataType } = chunk;
  const n = layout.innerLength;
  const parts: Uint8Array[] = new Array(layout.nChunks);
  const scratch = dataType.allocate(n);
  for (const coords of layout.all()) {
    throwIfAborted(options?.signal, path);
    layout.extract(chunk.data, chunk.stride, coords, scratch);
    if (dataType.isFill(scratch, decoded.fillValue, 0, n)) continue;
    // The inner pipeline may keep a reference to its input: give it its own copy.
    const own = dataType.allocate(n);
    layout.extract(chunk.data, chunk.stride, coords, own);
    parts[layout.linear(coords)] = await inner.encode(
      { data: own, shape: layout.innerShape, stride: layout.innerStrides, dataType },
      options,
    );
  }
  let total = index.size;
  for (const p of parts) if (p) total += p.length;
  const out = new Uint8Array(total);
  const pairs = index.emptyPairs();
  let pos = index.location === "start" ? index.size : 0;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (!p) continue;
    out.set(p, pos);
    pairs[2 * i] = BigInt(pos);
    pairs[2 * i + 1] = BigInt(p.length);
    pos += p.length;
  }
  out.set(await index.encode(pairs, options), index.location === "start" ? 0 : total - index.size);
  return out;
}

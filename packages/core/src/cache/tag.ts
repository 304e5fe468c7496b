/**
 * What an array's decoded chunks depend on besides their stored bytes, for the
 * entries of a chunk cache (small and loaded up front: `ArrayContext` hands it
 * to partial decoders through `ByteGetter.cacheTag`).
 *
 * @module
 */

import type { ArrayParts } from "../array/types.js";

const tags = new WeakMap<ArrayParts, string>();

/**
 * What an array's decoded chunks depend on besides their stored bytes: the
 * data type, the chunk shape and the codecs. Entries decoded under other
 * metadata (an array re-created at the same path) are never served.
 */
export function chunkCacheTag(parts: ArrayParts): string {
  let tag = tags.get(parts);
  if (tag === undefined) {
    tag = JSON.stringify([parts.meta.data_type, parts.codecs.spec.shape, parts.codecs.toJSON()]);
    tags.set(parts, tag);
  }
  return tag;
}

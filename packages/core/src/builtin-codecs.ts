/**
 * `@zarr/core/builtin-codecs`: the codecs core implements itself, for code that
 * composes them directly: `bytes`, `transpose`, `crc32c` (and the CRC-32C
 * checksum function) and the sharding codec's {@link ShardIndexCache}, which a
 * read can keep between calls (`array.get(selection, { shardIndexCache })`).
 *
 * Core loads transpose, crc32c, vlen and sharding with dynamic `import()` only
 * when metadata names them. Importing from this entry loads those modules up
 * front, which is why they are not exported from `@zarr/core`,
 * `@zarr/core/codec` or `@zarr/core/internal`.
 *
 * @example
 * ```ts
 * import { openArray, slice } from "@zarr/core";
 * import { ShardIndexCache } from "@zarr/core/builtin-codecs";
 * const shardIndexCache = new ShardIndexCache();
 * const tile = await (await openArray(store, "image")).get([slice(0, 256), slice(0, 256)], { shardIndexCache });
 * ```
 *
 * @module
 */

export { transposeCodec } from "./codecs/array-array/transpose.js";
export { bytesCodec } from "./codecs/array-bytes/bytes.js";
export { crc32c, crc32cCodec } from "./codecs/bytes-bytes/crc32c.js";
export { ShardIndexCache } from "./sharding/index-cache.js";

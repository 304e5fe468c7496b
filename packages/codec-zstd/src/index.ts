/**
 * @zarr/codec-zstd: the v3 `zstd` codec and the v2 numcodecs `zstd` codec,
 * backed by libzstd compiled to WebAssembly (works on Node and in browsers).
 *
 * Import `@zarr/codec-zstd/register` to register them with @zarr/core.
 *
 * @packageDocumentation
 */
export {
  DEFAULT_MAX_DECODED_SIZE,
  MAX_FRAME_OUTPUT,
  numcodecsZstdCodec,
  ZstdCodec,
  type ZstdCodecOptions,
  zstdCodec,
} from "./codec.js";
export { MAX_LEVEL, MIN_LEVEL, type ZstdConfig } from "./config.js";
export {
  type DictionaryDecompressOptions,
  decompressWithDictionary,
  hasZstdDictionarySupport,
  ZSTD_DICTIONARY_REQUIREMENT,
  zstdDictionaryId,
} from "./dictionary.js";

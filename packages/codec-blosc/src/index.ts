/**
 * @zarr/codec-blosc: a TypeScript Blosc 1 implementation (byte shuffle,
 * bitshuffle, blosclz, lz4, lz4hc, snappy; zlib and zstd through
 * @zarr/codec-gzip and @zarr/codec-zstd), byte-compatible with c-blosc. LZ4
 * blocks decode in a small WebAssembly kernel once it has loaded (see
 * {@link loadBlockKernels}), in TypeScript before and where it cannot load.
 *
 * Importing this module registers nothing; import `@zarr/codec-blosc/register`
 * or call `registerCodec` with {@link bloscCodecFactory} yourself.
 *
 * @packageDocumentation
 */

export {
  bloscCompress,
  bloscCompressSync,
  bloscDecompress,
  bloscDecompressInto,
  bloscDecompressSync,
} from "./api.js";
export {
  BloscCodec,
  type BloscCodecName,
  type BloscConfig,
  bloscCodecFactory,
  numcodecsBloscCodecFactory,
  parseBloscConfig,
  type ShuffleName,
} from "./codec.js";
export {
  type BlockEngine,
  builtinEngine,
  CNAMES,
  type Cname,
  codecEngine,
  FORMAT_CODES,
  FORMAT_NAMES,
} from "./engines.js";
export {
  type BloscHeader,
  type CompressParams,
  computeBlocksize,
  HEADER_SIZE,
  MAX_BUFFER_SIZE,
  parseHeader,
  type ShuffleMode,
} from "./frame.js";
export { loadBlockKernels } from "./kernels.js";
export { bitshuffle, bitunshuffle, shuffle, unshuffle } from "./shuffle.js";

/**
 * @zarr/codec-zfp: the zfp compressed format (libzfp 1.0.0's streams, byte
 * for byte) as Zarr codecs: numcodecs' `zfpy` (v2), zarr-python 3's
 * `numcodecs.zfpy` and zarrs' `zfp` (v3). Pure TypeScript.
 *
 * Import `@zarr/codec-zfp/register` to register them with @zarr/core.
 *
 * @packageDocumentation
 */
export {
  createZfpFactories,
  numcodecsZfpyCodec,
  ZfpCodec,
  type ZfpCodecOptions,
  ZfpyArrayCodec,
  ZfpyBytesCodec,
  zfpCodec,
  zfpyCodec,
} from "./codec.js";
export { ZFPY_MODES, type ZfpMode, type ZfpyConfig } from "./config.js";
export type { ZfpHeader } from "./header.js";
export {
  accuracyParams,
  expertParams,
  precisionParams,
  rateParams,
  reversibleParams,
  type ZfpParams,
  type ZfpType,
} from "./params.js";
export {
  type CompressOptions,
  type DecompressExpectation,
  type ZfpData,
  ZfpFormatError,
  zfpCompress,
  zfpDecompress,
  zfpReadHeader,
} from "./stream.js";

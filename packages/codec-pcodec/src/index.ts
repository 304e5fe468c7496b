/**
 * @zarr/codec-pcodec: numcodecs' `PCodec` (Pco, "pico") for Zarr, in pure
 * TypeScript: the v2 compressor `pcodec` and zarr-python 3's array -> bytes
 * codec `numcodecs.pcodec`. It decodes every mode (Classic, IntMult,
 * FloatMult, FloatQuant, Dict), delta encoding (none, Consecutive, Lookback,
 * Conv1), number type and format version of Pco's format spec, and encodes
 * Classic, FloatQuant, IntMult and FloatMult chunks with Consecutive delta
 * encoding.
 *
 * Import `@zarr/codec-pcodec/register` to register them with @zarr/core.
 *
 * @packageDocumentation
 */
export {
  DEFAULT_MAX_DECODED_SIZE,
  NumcodecsPcodecCodec,
  numcodecsPcodecCodec,
  PcodecCodec,
  type PcodecCodecOptions,
  pcodecCodec,
  SUPPORTED_DATA_TYPES,
} from "./codec.js";
export {
  DEFAULT_LEVEL,
  DEFAULT_MAX_PAGE_N,
  type DeltaSpec,
  type ModeSpec,
  type PcodecConfig,
  parsePcodecConfig,
} from "./config.js";
export { type EncodeOptions, encodeStandalone } from "./encoder.js";
export { PcoError } from "./errors.js";
export { NUMBER_TYPES, numberTypeNamed, type PcoNumberType } from "./number-types.js";
export {
  decodeStandalone,
  readStandaloneHeader,
  type StandaloneHeader,
} from "./standalone.js";

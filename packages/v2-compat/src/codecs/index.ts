/**
 * The numcodecs codecs of this package (filters and `shuffle`), by
 * registration name. The compressors live in their own packages:
 * `@zarr/codec-lz4`, `@zarr/codec-bz2`, `@zarr/codec-lzma` (and
 * `@zarr/codec-gzip`, `-zstd`, `-blosc`, `-checksums`).
 *
 * @module
 */
import type { CodecFactory } from "@zarr/core/codec";
import { numcodecsShuffleCodec, shuffleCodec } from "./bytes-codecs.js";
import { categorizeCodec, numcodecsCategorizeCodec } from "./categorize.js";
import { deltaCodec, numcodecsDeltaCodec } from "./delta.js";
import { json2Codec, numcodecsJson2Codec } from "./json2.js";
import { numcodecsPackbitsCodec, packbitsCodec } from "./packbits.js";
import {
  astypeCodec,
  bitroundCodec,
  fixedScaleOffsetCodec,
  numcodecsAstypeCodec,
  numcodecsBitroundCodec,
  numcodecsFixedScaleOffsetCodec,
  numcodecsQuantizeCodec,
  quantizeCodec,
} from "./scale.js";

export * from "./bytes-codecs.js";
export * from "./categorize.js";
export * from "./delta.js";
export * from "./json2.js";
export * from "./packbits.js";
export * from "./scale.js";

/** Every codec factory of this package by the name it is registered under. */
export const NUMCODECS: Readonly<Record<string, CodecFactory>> = {
  delta: deltaCodec,
  "numcodecs.delta": numcodecsDeltaCodec,
  fixedscaleoffset: fixedScaleOffsetCodec,
  "numcodecs.fixedscaleoffset": numcodecsFixedScaleOffsetCodec,
  quantize: quantizeCodec,
  "numcodecs.quantize": numcodecsQuantizeCodec,
  bitround: bitroundCodec,
  "numcodecs.bitround": numcodecsBitroundCodec,
  astype: astypeCodec,
  "numcodecs.astype": numcodecsAstypeCodec,
  packbits: packbitsCodec,
  "numcodecs.packbits": numcodecsPackbitsCodec,
  categorize: categorizeCodec,
  "numcodecs.categorize": numcodecsCategorizeCodec,
  shuffle: shuffleCodec,
  "numcodecs.shuffle": numcodecsShuffleCodec,
  json2: json2Codec,
  "numcodecs.json2": numcodecsJson2Codec,
};

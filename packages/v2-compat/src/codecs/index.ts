/**
 * The numcodecs codecs of this package, by registration name.
 *
 * @module
 */
import type { CodecFactory } from "@zarr/core/codec";
import {
  lz4Codec,
  numcodecsLz4Codec,
  numcodecsShuffleCodec,
  shuffleCodec,
} from "./bytes-codecs.js";
import { categorizeCodec, numcodecsCategorizeCodec } from "./categorize.js";
import { bz2Codec, lzmaCodec, numcodecsBz2Codec, numcodecsLzmaCodec } from "./compressors.js";
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
export * from "./compressors.js";
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
  lz4: lz4Codec,
  "numcodecs.lz4": numcodecsLz4Codec,
  bz2: bz2Codec,
  "numcodecs.bz2": numcodecsBz2Codec,
  lzma: lzmaCodec,
  "numcodecs.lzma": numcodecsLzmaCodec,
  json2: json2Codec,
  "numcodecs.json2": numcodecsJson2Codec,
};

/**
 * @zarr/codec-gzip: the v3 `gzip` codec and the v2 numcodecs `gzip` and `zlib`
 * codecs. On Node it uses `node:zlib`; in browsers pako (chosen through the
 * package's `#engine` import condition, so browser bundles never see `node:zlib`).
 *
 * Import `@zarr/codec-gzip/register` to register them with @zarr/core.
 *
 * @packageDocumentation
 */
export {
  DEFAULT_MAX_DECODED_SIZE,
  DeflateCodec,
  type DeflateCodecOptions,
  gzipCodec,
  numcodecsGzipCodec,
  numcodecsZlibCodec,
  zlibCodec,
} from "./codec.js";
export type { DeflateEngine, DeflateFormat } from "./engine/types.js";

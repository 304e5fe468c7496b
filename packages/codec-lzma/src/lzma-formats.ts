/**
 * The three formats of Python's `lzma` module as numcodecs' LZMA uses them:
 * FORMAT_XZ (1), FORMAT_ALONE (2, the legacy .lzma header + LZMA1) and
 * FORMAT_RAW (3, a bare filter chain given in the codec configuration).
 * FORMAT_AUTO (0) detects xz or .lzma when decoding.
 *
 * @module
 */
import { UnsupportedError } from "@zarr/core";
import {
  decodeLzma2,
  LzmaDecoder,
  type LzmaProps,
  parsePropsByte,
  RangeDecoder,
  windowOf,
} from "./lzma-decode.js";
import { corrupt, Output } from "./output.js";
import { undoDelta, xzDecompress } from "./xz.js";

const CODEC = "lzma";

/** A raw filter chain: optional Delta filters, then LZMA1 or LZMA2. */
export interface RawChain {
  deltas: number[];
  last: { id: "lzma1"; props: LzmaProps; dictSize: number } | { id: "lzma2"; dictSize: number };
}

/** Decodes the LZMA1 payload `input[pos..)` up to its end marker (or `size` bytes). */
function decodeLzma1(
  input: Uint8Array,
  pos: number,
  out: Output,
  props: LzmaProps,
  dictSize: number,
  size: number | undefined,
  path: string,
): void {
  const dec = new LzmaDecoder(out, windowOf(dictSize), path, CODEC);
  dec.setProps(props);
  const rc = new RangeDecoder(input, pos, input.length, path, CODEC);
  if (size === undefined) {
    dec.decode(rc, out.limit, true);
    if (rc.code !== 0) throw corrupt(path, CODEC, "LZMA data does not end after its end marker");
  } else {
    if (size > out.limit)
      throw corrupt(
        path,
        CODEC,
        `header claims ${size} decoded bytes, at most ${out.limit} expected`,
      );
    dec.decode(rc, size, false);
  }
  if (rc.pos !== input.length)
    throw corrupt(path, CODEC, `${input.length - rc.pos} bytes after the LZMA data`);
}

/** Decodes the .lzma ("alone") format: 13-byte header, then LZMA1. */
export function lzmaAloneDecompress(
  input: Uint8Array,
  limit: number,
  path: string,
  exact?: number,
): Uint8Array {
  if (input.length < 13) throw corrupt(path, CODEC, "truncated .lzma header");
  const props = parsePropsByte(input[0], path, CODEC);
  const view = new DataView(input.buffer, input.byteOffset, 13);
  const dictSize = view.getUint32(1, true);
  const lo = view.getUint32(5, true);
  const hi = view.getUint32(9, true);
  let size: number | undefined;
  if (lo !== 0xffffffff || hi !== 0xffffffff) {
    size = hi * 2 ** 32 + lo;
    if (size > limit)
      throw corrupt(path, CODEC, `header claims ${size} decoded bytes, at most ${limit} expected`);
  }
  // A declared size bounds the output but is not allocated: the header may lie.
  const out = new Output(limit, path, CODEC, exact);
  decodeLzma1(input, 13, out, props, dictSize, size, path);
  return out.result();
}

/** Decodes FORMAT_RAW data with the configured filter chain. */
export function lzmaRawDecompress(
  input: Uint8Array,
  chain: RawChain,
  limit: number,
  path: string,
  exact?: number,
): Uint8Array {
  const out = new Output(limit, path, CODEC, exact);
  if (chain.last.id === "lzma1") {
    decodeLzma1(input, 0, out, chain.last.props, chain.last.dictSize, undefined, path);
  } else {
    const dec = new LzmaDecoder(out, windowOf(chain.last.dictSize), path, CODEC);
    const end = decodeLzma2(dec, input, 0, input.length);
    if (end !== input.length)
      throw corrupt(path, CODEC, `${input.length - end} bytes after the LZMA2 data`);
  }
  for (let i = chain.deltas.length - 1; i >= 0; i--)
    undoDelta(out.buf, 0, out.length, chain.deltas[i]);
  return out.result();
}

/** Decodes numcodecs LZMA output of `format` (0 = detect xz or .lzma). */
export function lzmaDecompress(
  input: Uint8Array,
  format: number,
  chain: RawChain | undefined,
  limit: number,
  path: string,
  exact?: number,
): Uint8Array {
  if (format === 0) format = input[0] === 0xfd ? 1 : 2;
  if (format === 1) return xzDecompress(input, limit, path, exact);
  if (format === 2) return lzmaAloneDecompress(input, limit, path, exact);
  if (!chain) throw new UnsupportedError(`${path}: ${CODEC}: FORMAT_RAW needs filters`, { path });
  return lzmaRawDecompress(input, chain, limit, path, exact);
}

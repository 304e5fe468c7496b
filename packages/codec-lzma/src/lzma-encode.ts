/**
 * Encoding numcodecs LZMA output: .xz streams (LZMA2, after Delta filters when
 * configured), .lzma (LZMA1 with an end marker and an unknown size, as
 * liblzma writes it) and raw chains.
 *
 * @module
 */
import { UnsupportedError } from "@zarr/core";
import { ByteSink } from "@zarr/core/codec";
import { LzmaEncoder } from "./lzma-encoder.js";
import type { RawChain } from "./lzma-formats.js";
import {
  CHECK_CRC64,
  FILTER_DELTA,
  FILTER_LZMA2,
  type FilterFlags,
  lzma2DictSize,
  xzWrap,
} from "./xz.js";

/** What the codec configuration asks for. */
export interface LzmaEncodeOptions {
  format: number;
  check: number;
  /** Preset level 0..9 (match search effort and default dictionary size). */
  preset: number;
  chain: RawChain | undefined;
}

/** liblzma's preset dictionary sizes (presets 0..9). */
export const PRESET_DICT = [18, 20, 21, 22, 22, 23, 23, 24, 25, 26].map((b) => 2 ** b);

function applyDelta(data: Uint8Array, dist: number): Uint8Array {
  const out = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++)
    out[i] = (data[i] - (i >= dist ? data[i - dist] : 0)) & 0xff;
  return out;
}

/** The smallest one-byte LZMA2 dictionary property covering `size` bytes. */
function dictProp(size: number): number {
  for (let b = 0; b < 40; b++) if (lzma2DictSize(b, "") >= size) return b;
  return 40;
}

/** Compresses `data` as numcodecs' LZMA with `options` would, in a form Python's lzma reads. */
export function lzmaCompress(
  data: Uint8Array,
  options: LzmaEncodeOptions,
  path: string,
): Uint8Array {
  const { format, chain, preset } = options;
  if (format === 0)
    throw new UnsupportedError(`${path}: lzma: FORMAT_AUTO (0) cannot be written`, { path });
  let filtered = data;
  const deltas = chain?.deltas ?? [];
  for (const dist of deltas) filtered = applyDelta(filtered, dist);
  const out = new ByteSink();
  const last = chain?.last;
  const dictSize = last?.dictSize ?? PRESET_DICT[preset];
  if (format === 2 || last?.id === "lzma1") {
    const props = last?.id === "lzma1" ? last.props : { lc: 3, lp: 0, pb: 2 };
    if (format === 2) {
      out.push((props.pb * 5 + props.lp) * 9 + props.lc);
      for (let i = 0; i < 4; i++) out.push((dictSize / 2 ** (8 * i)) & 0xff);
      for (let i = 0; i < 8; i++) out.push(0xff);
    }
    LzmaEncoder.lzma1(filtered, props, dictSize, preset, out);
    return out.bytes();
  }
  // The xz header's dictionary need not exceed the data: decoders allocate what it says.
  const prop = dictProp(Math.min(dictSize, Math.max(4096, data.length)));
  LzmaEncoder.lzma2(filtered, lzma2DictSize(prop, path), preset, out);
  if (format === 3) return out.bytes();
  const filters: FilterFlags[] = deltas.map((d) => [FILTER_DELTA, [d - 1]]);
  filters.push([FILTER_LZMA2, [prop]]);
  return xzWrap(out.bytes(), data, filters, options.check === -1 ? CHECK_CRC64 : options.check);
}

/**
 * Turns decoded tiles into RGBA pixels: each active channel maps its value
 * through its contrast limits to a colour (a tint from black to the channel's
 * colour, or a colour map), and channels add up (clamped at 255), as OME
 * viewers composite. NaN (and a tile where every channel is NaN) is transparent.
 *
 * @module
 */
import type { NDArray } from "@zarr/core";
import { COLOUR_MAPS, colourIndex } from "./colormap.js";
import type { ChannelSettings } from "./image.js";

const FAST_TYPES = /^(u?int(8|16|32)|float(32|64))$/;

/** Element `i` of `array` as a number: NaN for values with no numeric reading. */
export function numberAt(array: NDArray, i: number): number {
  const { data, dataType } = array;
  // Plain numeric types are their typed array's elements (float16 may be raw bits: not here).
  if (FAST_TYPES.test(dataType.name)) return (data as Float64Array)[i]!;
  const v = dataType.getScalar(data, i);
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "boolean") return v ? 1 : 0;
  if (Array.isArray(v)) return Math.hypot(v[0]!, v[1]!); // complex: magnitude
  return Number.NaN;
}

/**
 * A decoded tile: the read result, its rows × cols, and the element strides of
 * a row, a column and a channel (the result keeps the array's axis order).
 */
export interface TileData {
  array: NDArray;
  rows: number;
  cols: number;
  rowStride: number;
  colStride: number;
  channelStride: number;
  /** First channel held (channel chunk start) and how many. */
  cStart: number;
  cCount: number;
}

/**
 * The tile of a read whose kept dimensions are, in array order, some of
 * (channel, y, x): `kept` lists those array axes in order.
 */
export function tileDataOf(
  array: NDArray,
  kept: readonly number[],
  yAxis: number,
  xAxis: number,
  cAxis: number,
  cStart: number,
): TileData {
  const at = (axis: number) => kept.indexOf(axis);
  const c = at(cAxis);
  return {
    array,
    rows: array.shape[at(yAxis)]!,
    cols: array.shape[at(xAxis)]!,
    rowStride: array.stride[at(yAxis)]!,
    colStride: array.stride[at(xAxis)]!,
    channelStride: c >= 0 ? array.stride[c]! : 0,
    cStart,
    cCount: c >= 0 ? array.shape[c]! : 1,
  };
}

/** The value of channel `channel` at (row, col) of a tile. */
export function tileValue(tile: TileData, channel: number, row: number, col: number): number {
  return numberAt(
    tile.array,
    (channel - tile.cStart) * tile.channelStride + row * tile.rowStride + col * tile.colStride,
  );
}

/**
 * The RGB contribution of `value` on a channel, or undefined for NaN.
 * Tints scale the colour by the value's position in [lo, hi] (rounded).
 */
export function channelColour(
  value: number,
  channel: ChannelSettings,
): [number, number, number] | undefined {
  if (Number.isNaN(value)) return undefined;
  if (channel.map === "tint") {
    const t = !(channel.hi > channel.lo)
      ? value >= channel.hi
        ? 1
        : 0
      : Math.min(1, Math.max(0, (value - channel.lo) / (channel.hi - channel.lo)));
    return [
      Math.round(t * channel.color[0]),
      Math.round(t * channel.color[1]),
      Math.round(t * channel.color[2]),
    ];
  }
  const table = COLOUR_MAPS[channel.map] ?? COLOUR_MAPS.viridis!;
  const k = colourIndex(value, channel.lo, channel.hi);
  return [table[3 * k]!, table[3 * k + 1]!, table[3 * k + 2]!];
}

/**
 * The RGBA of one element: the sum of the active channels' colours, clamped;
 * transparent when no active channel has a number there.
 * `valueAt(c)` is channel c's value.
 */
export function compositeColour(
  channels: readonly { index: number; settings: ChannelSettings }[],
  valueAt: (c: number) => number,
): [number, number, number, number] {
  let r = 0;
  let g = 0;
  let b = 0;
  let any = false;
  for (const { index, settings } of channels) {
    const rgb = channelColour(valueAt(index), settings);
    if (!rgb) continue;
    any = true;
    r += rgb[0];
    g += rgb[1];
    b += rgb[2];
  }
  return any ? [Math.min(255, r), Math.min(255, g), Math.min(255, b), 255] : [0, 0, 0, 0];
}

/**
 * Paints a tile (rows × cols RGBA into `pixels`) from its channel parts:
 * `parts` maps a channel index to the decoded tile holding it.
 */
export function paintTile(
  rows: number,
  cols: number,
  channels: readonly { index: number; settings: ChannelSettings }[],
  parts: ReadonlyMap<number, TileData>,
  pixels: Uint8ClampedArray,
): void {
  let p = 0;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const rgba = compositeColour(channels, (ch) => {
        const part = parts.get(ch);
        return part ? tileValue(part, ch, r, c) : Number.NaN;
      });
      pixels[p] = rgba[0];
      pixels[p + 1] = rgba[1];
      pixels[p + 2] = rgba[2];
      pixels[p + 3] = rgba[3];
      p += 4;
    }
  }
}

/** Smallest and largest non-NaN value of channel `channel` in the tiles (undefined when none). */
export function tilesRange(
  tiles: readonly TileData[],
  channel: number,
): [number, number] | undefined {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const t of tiles) {
    if (channel < t.cStart || channel >= t.cStart + t.cCount) continue;
    for (let r = 0; r < t.rows; r++) {
      for (let c = 0; c < t.cols; c++) {
        const v = tileValue(t, channel, r, c);
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
    }
  }
  return lo <= hi ? [lo, hi] : undefined;
}

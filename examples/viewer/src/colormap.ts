/**
 * Colour maps as 256-entry RGB lookup tables, and the value -> entry mapping
 * the viewer (and its browser test) use.
 *
 * @module
 */

/** 256 RGB triples, packed: entry `i` is bytes `3i .. 3i+2`. */
export type ColourTable = Uint8Array;

/** Builds a table by linear interpolation between evenly spaced RGB stops. */
export function interpolateStops(
  stops: readonly (readonly [number, number, number])[],
): ColourTable {
  const table = new Uint8Array(256 * 3);
  const segments = stops.length - 1;
  for (let i = 0; i < 256; i++) {
    const t = (i / 255) * segments;
    const k = Math.min(Math.floor(t), segments - 1);
    const f = t - k;
    for (let c = 0; c < 3; c++) {
      table[3 * i + c] = Math.round(stops[k]![c]! + (stops[k + 1]![c]! - stops[k]![c]!) * f);
    }
  }
  return table;
}

/** The colour maps offered by the viewer. */
export const COLOUR_MAPS: Readonly<Record<string, ColourTable>> = {
  // Perceptually ordered dark blue -> teal -> yellow, after matplotlib's viridis.
  viridis: interpolateStops([
    [68, 1, 84],
    [59, 82, 139],
    [33, 145, 140],
    [94, 201, 98],
    [253, 231, 37],
  ]),
  grey: interpolateStops([
    [0, 0, 0],
    [255, 255, 255],
  ]),
  // Diverging blue -> white -> red, for anomalies around zero.
  diverging: interpolateStops([
    [33, 102, 172],
    [247, 247, 247],
    [178, 24, 43],
  ]),
};

/**
 * The table entry for `value` within the colour range [lo, hi] (clamped), or -1
 * when `value` is NaN (drawn transparent). A zero-width range maps everything to 0.
 */
export function colourIndex(value: number, lo: number, hi: number): number {
  if (Number.isNaN(value)) return -1;
  if (!(hi > lo)) return 0;
  const t = (value - lo) / (hi - lo);
  if (t <= 0) return 0;
  if (t >= 1) return 255;
  return Math.round(t * 255);
}

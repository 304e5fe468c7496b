/**
 * What the viewer draws: a stack of arrays (one per pyramid level) with named
 * axes, the two drawn axes (y, x), an optional channel axis, and per-channel
 * display settings. Built from an OME-Zarr image group or a plain array.
 *
 * @module
 */
import { type Group, type JsonObject, slice, type ZarrArray } from "@zarr/core";
import { type OmeAxis, type OmeImage, parseOme } from "./ome.js";
import type { LevelGeometry } from "./tiles.js";

/** One level: its array and 2D geometry. */
export interface ImageLevel extends LevelGeometry {
  array: ZarrArray;
  path: string;
  /** Physical size of one element and position of element 0, per axis. */
  scale: number[];
  translation: number[];
}

/** Display settings of one channel. */
export interface ChannelSettings {
  label: string;
  /** "tint" (black to `color`) or a colour map name. */
  map: string;
  color: [number, number, number];
  lo: number;
  hi: number;
  active: boolean;
}

/** An image ready to draw. */
export interface ViewerImage {
  /** The node's path in the store. */
  path: string;
  ome?: OmeImage;
  axes: OmeAxis[];
  yAxis: number;
  xAxis: number;
  /** The channel axis, or -1. */
  cAxis: number;
  levels: ImageLevel[];
  channels: ChannelSettings[];
  /** What was left out of a very large image (channels or levels past the caps), for the status line. */
  notice?: string;
}

/** At most this many channels get settings, controls and URL entries: the first ones of the channel axis. */
export const MAX_CHANNELS = 64;
/** At most this many levels of a multiscale image are opened: the finest ones (`datasets` order). */
export const MAX_LEVELS = 32;

/**
 * The chunk that one read touches: the inner chunk of a sharded array (whose
 * inner chunks are read by ranges), else the chunk.
 */
export function readChunkShape(array: ZarrArray): readonly number[] {
  const first = array.metadata.codecs[0];
  if (first?.name === "sharding_indexed") {
    const inner = (first.configuration as JsonObject | undefined)?.chunk_shape;
    if (Array.isArray(inner) && inner.length === array.ndim) return inner as number[];
  }
  return array.chunkShape;
}

function levelOf(
  array: ZarrArray,
  path: string,
  yAxis: number,
  xAxis: number,
  scale: number[],
  translation: number[],
  base?: { scale: number[]; shape: readonly number[] },
): ImageLevel {
  const chunk = readChunkShape(array);
  // Level-0 elements per element: from the scales, or from the shapes when the
  // scales say nothing (equal although the level is smaller, or not positive).
  const factor = (axis: number) => {
    if (!base) return 1;
    const byScale = scale[axis]! / base.scale[axis]!;
    const byShape = base.shape[axis]! / array.shape[axis]!;
    return Number.isFinite(byScale) && byScale > 0 && !(byScale === 1 && byShape !== 1)
      ? byScale
      : byShape;
  };
  return {
    array,
    path,
    height: array.shape[yAxis]!,
    width: array.shape[xAxis]!,
    tileHeight: chunk[yAxis]!,
    tileWidth: chunk[xAxis]!,
    fy: factor(yAxis),
    fx: factor(xAxis),
    scale,
    translation,
  };
}

/** Default channel settings: omero's colours and windows, else grey/viridis over `range`. */
function defaultChannels(count: number, ome: OmeImage | undefined, range: [number, number]) {
  const palette: [number, number, number][] = [
    [255, 255, 255],
    [0, 255, 0],
    [255, 0, 255],
    [0, 255, 255],
  ];
  return Array.from({ length: count }, (_, i): ChannelSettings => {
    const omero = ome?.channels?.[i];
    const [lo, hi] = omero?.window ?? range;
    return {
      label: omero?.label ?? (count > 1 ? `channel ${i}` : "value"),
      map: omero ? "tint" : count > 1 ? "tint" : "viridis",
      color: omero?.color ?? palette[i % palette.length]!,
      lo,
      hi,
      active: omero ? omero.active : count === 1 || i < 3,
    };
  });
}

/** A range of values for a data type, for channels without contrast limits. */
function dataTypeRange(array: ZarrArray): [number, number] {
  const name = array.dataType.name;
  const m = /^u?int(8|16|32)$/.exec(name);
  if (m) {
    const bits = Number(m[1]);
    return name.startsWith("u") ? [0, 2 ** bits - 1] : [-(2 ** (bits - 1)), 2 ** (bits - 1) - 1];
  }
  return [0, 1];
}

/**
 * The image of an OME-Zarr group (every level opened), or `undefined` when
 * the group has no `multiscales`.
 *
 * @example
 * ```ts
 * const image = await imageOfGroup(await openGroup(store, "cells.ome.zarr"));
 * ```
 */
export async function imageOfGroup(group: Group): Promise<ViewerImage | undefined> {
  const ome = parseOme(group.attrs);
  if (!ome) return undefined;
  const names = ome.axes.map((a) => a.name);
  const yAxis = names.lastIndexOf("y") >= 0 ? names.lastIndexOf("y") : names.length - 2;
  const xAxis = names.lastIndexOf("x") >= 0 ? names.lastIndexOf("x") : names.length - 1;
  const cAxis = ome.axes.findIndex((a) => a.type === "channel" || a.name === "c");
  // A hostile or broken `datasets` list must not open thousands of arrays at once.
  const opened = ome.levels.slice(0, MAX_LEVELS);
  const arrays = await Promise.all(
    opened.map(async (l) => {
      const node = await group.get(l.path);
      if (node.kind !== "array") throw new Error(`multiscales dataset "${l.path}" is not an array`);
      if (node.ndim !== ome.axes.length) {
        throw new Error(
          `multiscales dataset "${l.path}" has ${node.ndim} dimensions for ${ome.axes.length} axes`,
        );
      }
      return node;
    }),
  );
  const base = { scale: ome.levels[0]!.scale, shape: arrays[0]!.shape };
  const levels = arrays.map((a, k) =>
    levelOf(
      a,
      ome.levels[k]!.path,
      yAxis,
      xAxis,
      ome.levels[k]!.scale,
      ome.levels[k]!.translation,
      k ? base : undefined,
    ),
  );
  const total = cAxis >= 0 ? arrays[0]!.shape[cAxis]! : 1;
  const count = Math.min(total, MAX_CHANNELS);
  const notes: string[] = [];
  if (count < total) notes.push(`showing the first ${count} of ${total} channels`);
  if (opened.length < ome.levels.length) {
    notes.push(`opened the first ${opened.length} of ${ome.levels.length} levels`);
  }
  return {
    path: group.path,
    ome,
    axes: ome.axes,
    yAxis,
    xAxis,
    cAxis,
    levels,
    channels: defaultChannels(count, ome, dataTypeRange(arrays[0]!)),
    ...(notes.length > 0 ? { notice: notes.join("; ") } : {}),
  };
}

/** A plain array as a one-level image: its last two dimensions are drawn. */
export function imageOfArray(array: ZarrArray): ViewerImage {
  if (array.ndim < 2) {
    throw new Error(
      `"${array.path || "/"}" has ${array.ndim} dimension(s); the viewer draws 2D planes`,
    );
  }
  const names = array.dimensionNames ?? [];
  const axes = array.shape.map((_, d): OmeAxis => ({ name: names[d] ?? `dim ${d}` }));
  const n = array.ndim;
  const ones = array.shape.map(() => 1);
  const zeros = array.shape.map(() => 0);
  return {
    path: array.path,
    axes,
    yAxis: n - 2,
    xAxis: n - 1,
    cAxis: -1,
    levels: [levelOf(array, array.path, n - 2, n - 1, ones, zeros)],
    channels: defaultChannels(1, undefined, [Number.NaN, Number.NaN]),
  };
}

/** Indices of the non-drawn, non-channel axes (t, z, ...): one slider each. */
export function sliderAxes(image: ViewerImage): number[] {
  return image.axes
    .map((_, d) => d)
    .filter((d) => d !== image.yAxis && d !== image.xAxis && d !== image.cAxis);
}

/**
 * The selection reading `tile` of `level` for channel chunk `cChunk`: slices
 * on y, x and (when present) the channel chunk's range, `indices` elsewhere.
 * Indices are given at level 0 and apply to every level (t, c, z are not
 * downsampled in an OME pyramid).
 */
export function tileSelection(
  image: ViewerImage,
  level: ImageLevel,
  tile: { y0: number; y1: number; x0: number; x1: number },
  indices: readonly number[],
  cChunk: number,
) {
  const cSize = image.cAxis >= 0 ? readChunkShape(level.array)[image.cAxis]! : 1;
  return level.array.shape.map((size, d) => {
    if (d === image.yAxis) return slice(tile.y0, tile.y1);
    if (d === image.xAxis) return slice(tile.x0, tile.x1);
    if (d === image.cAxis) return slice(cChunk * cSize, Math.min(size, (cChunk + 1) * cSize));
    return Math.max(0, Math.min(size - 1, Math.trunc(indices[d] ?? 0)));
  });
}

/** The channel chunk holding channel `c` (0 without a channel axis). */
export function channelChunk(image: ViewerImage, level: ImageLevel, c: number): number {
  if (image.cAxis < 0) return 0;
  return Math.floor(c / readChunkShape(level.array)[image.cAxis]!);
}

/**
 * The geometry of tiled, multi-resolution drawing: which pyramid level matches
 * a zoom, which tiles (chunks) of it cover the canvas, where each lands on
 * screen, and an LRU of decoded tiles. Pure (no DOM), so Node tests cover it
 * and the browser test reuses it to predict pixels.
 *
 * Coordinates: the view is centred on (`cx`, `cy`) in level-0 elements, and
 * `zoom` is screen pixels per level-0 element. Level `k` is `factor[k]` times
 * coarser than level 0 along y and x.
 *
 * @module
 */

/** Where the canvas looks: centre in level-0 elements, screen pixels per level-0 element. */
export interface View {
  cx: number;
  cy: number;
  zoom: number;
}

/** A pyramid level's 2D geometry. */
export interface LevelGeometry {
  /** Elements along y and x. */
  height: number;
  width: number;
  /** Tile (read chunk) size along y and x. */
  tileHeight: number;
  tileWidth: number;
  /** Level-0 elements per element of this level along y and x (1 for level 0). */
  fy: number;
  fx: number;
}

/** One tile of a level: its grid position and element ranges [y0, y1) × [x0, x1). */
export interface Tile {
  ty: number;
  tx: number;
  y0: number;
  y1: number;
  x0: number;
  x1: number;
}

/**
 * The level whose elements are closest to one screen pixel at `zoom`
 * (|log2(screen pixels per element)| smallest; the finer level on a tie).
 *
 * @example
 * ```ts
 * chooseLevel(levels, 0.25); // the level 4x coarser than level 0, if there is one
 * ```
 */
export function chooseLevel(levels: readonly LevelGeometry[], zoom: number): number {
  let best = 0;
  let bestScore = Number.POSITIVE_INFINITY;
  levels.forEach((level, k) => {
    const score = Math.abs(Math.log2(zoom * Math.max(level.fx, level.fy)));
    if (score < bestScore - 1e-9) {
      best = k;
      bestScore = score;
    }
  });
  return best;
}

/** The zoom and centre that fit the whole level-0 image in a canvas of `width` × `height`. */
export function fitView(level0: LevelGeometry, width: number, height: number): View {
  const zoom = Math.min(width / level0.width, height / level0.height);
  // A power of two (at most 1:1 beyond the image size), so a level is drawn at exactly one screen pixel per element.
  const snapped = 2 ** Math.floor(Math.log2(zoom));
  return { cx: level0.width / 2, cy: level0.height / 2, zoom: Math.min(snapped, 8) };
}

/** The range of tile rows and columns [first, last) that intersect the canvas (empty when none). */
function tileRange(level: LevelGeometry, view: View, width: number, height: number) {
  // Canvas edges in this level's element coordinates.
  const left = (view.cx - width / 2 / view.zoom) / level.fx;
  const right = (view.cx + width / 2 / view.zoom) / level.fx;
  const top = (view.cy - height / 2 / view.zoom) / level.fy;
  const bottom = (view.cy + height / 2 / view.zoom) / level.fy;
  const x0 = Math.max(0, Math.floor(left));
  const x1 = Math.min(level.width, Math.ceil(right));
  const y0 = Math.max(0, Math.floor(top));
  const y1 = Math.min(level.height, Math.ceil(bottom));
  if (x0 >= x1 || y0 >= y1) return { ty0: 0, ty1: 0, tx0: 0, tx1: 0 };
  return {
    ty0: Math.floor(y0 / level.tileHeight),
    ty1: Math.ceil(y1 / level.tileHeight),
    tx0: Math.floor(x0 / level.tileWidth),
    tx1: Math.ceil(x1 / level.tileWidth),
  };
}

/**
 * How many tiles of `level` intersect the canvas, without listing them: an
 * array of small chunks seen from afar can have millions (the viewer then
 * asks to zoom in rather than read them all).
 */
export function visibleTileCount(
  level: LevelGeometry,
  view: View,
  width: number,
  height: number,
): number {
  const r = tileRange(level, view, width, height);
  return (r.ty1 - r.ty0) * (r.tx1 - r.tx0);
}

/** The tiles of `level` that intersect the canvas, row-major. */
export function visibleTiles(
  level: LevelGeometry,
  view: View,
  width: number,
  height: number,
): Tile[] {
  const r = tileRange(level, view, width, height);
  const tiles: Tile[] = [];
  for (let ty = r.ty0; ty < r.ty1; ty++) {
    for (let tx = r.tx0; tx < r.tx1; tx++) {
      tiles.push({
        ty,
        tx,
        y0: ty * level.tileHeight,
        y1: Math.min(level.height, (ty + 1) * level.tileHeight),
        x0: tx * level.tileWidth,
        x1: Math.min(level.width, (tx + 1) * level.tileWidth),
      });
    }
  }
  return tiles;
}

/** Screen rectangle (left, top, width, height in canvas pixels) of a tile. */
export function tileRect(
  level: LevelGeometry,
  tile: Tile,
  view: View,
  width: number,
  height: number,
): [number, number, number, number] {
  const sx = level.fx * view.zoom;
  const sy = level.fy * view.zoom;
  return [
    (tile.x0 * level.fx - view.cx) * view.zoom + width / 2,
    (tile.y0 * level.fy - view.cy) * view.zoom + height / 2,
    (tile.x1 - tile.x0) * sx,
    (tile.y1 - tile.y0) * sy,
  ];
}

/** The element (row, column) of `level` under canvas pixel (px, py), fractional. */
export function screenToLevel(
  level: LevelGeometry,
  view: View,
  px: number,
  py: number,
  width: number,
  height: number,
): [number, number] {
  return [
    (view.cy + (py - height / 2) / view.zoom) / level.fy,
    (view.cx + (px - width / 2) / view.zoom) / level.fx,
  ];
}

/** A least-recently-used map bounded by the total `size` of its values. */
export class LruCache<V> {
  readonly #entries = new Map<string, { value: V; size: number }>();
  #total = 0;

  /**
   * @param maxSize - Largest total size kept (e.g. bytes).
   * @param sizeOf - The size of one value.
   */
  constructor(
    readonly maxSize: number,
    private readonly sizeOf: (value: V) => number,
  ) {}

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V): void {
    const old = this.#entries.get(key);
    if (old) {
      this.#total -= old.size;
      this.#entries.delete(key);
    }
    const size = this.sizeOf(value);
    this.#entries.set(key, { value, size });
    this.#total += size;
    for (const [k, e] of this.#entries) {
      if (this.#total <= this.maxSize || this.#entries.size <= 1) break;
      this.#entries.delete(k);
      this.#total -= e.size;
    }
  }

  clear(): void {
    this.#entries.clear();
    this.#total = 0;
  }

  get size(): number {
    return this.#entries.size;
  }
}

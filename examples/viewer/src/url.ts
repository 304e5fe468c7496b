/**
 * The viewer's state in the page URL, so a view can be bookmarked, shared and
 * restored on reload: `store` (URL), `path` (node path), `level` (a pyramid
 * level, or absent for automatic), `idx` (indices of the slider axes as
 * `axis:index` pairs, e.g. `t:1,c:0,z:2`), `view` (`cx,cy,zoom` in level-0
 * elements), `ch` (per channel `lo:hi:active`, `;`-separated) and `cmap`.
 * `array` is read as an alias of `path` (older links).
 *
 * @module
 */
import type { View } from "./tiles.js";

/** Everything the URL can hold; absent fields take defaults when opening. */
export interface UrlState {
  store?: string;
  path: string;
  level?: number;
  indices: Record<string, number>;
  view?: View;
  channels?: { lo: number; hi: number; active: boolean }[];
  cmap?: string;
}

function finite(s: string | undefined): number | undefined {
  if (s === undefined || s.trim() === "") return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * Reads the state from a query string; malformed parts are ignored.
 *
 * @example
 * ```ts
 * readUrlState("?store=http://h/x.zarr&path=img&level=1&view=512,512,0.5").level; // 1
 * ```
 */
export function readUrlState(search: string): UrlState {
  const p = new URLSearchParams(search);
  const state: UrlState = { path: p.get("path") ?? p.get("array") ?? "", indices: {} };
  const store = p.get("store");
  if (store) state.store = store;
  const level = finite(p.get("level") ?? undefined);
  if (level !== undefined && Number.isInteger(level) && level >= 0) state.level = level;
  for (const pair of (p.get("idx") ?? "").split(",")) {
    const at = pair.lastIndexOf(":");
    const n = finite(pair.slice(at + 1));
    // `+ 0` turns -0 into 0.
    if (at > 0 && n !== undefined && n >= 0) state.indices[pair.slice(0, at)] = Math.trunc(n) + 0;
  }
  const view = (p.get("view") ?? "").split(",").map((s) => finite(s));
  if (view.length === 3 && view.every((v) => v !== undefined) && view[2]! > 0) {
    state.view = { cx: view[0]!, cy: view[1]!, zoom: view[2]! };
  }
  const ch = p.get("ch");
  if (ch) {
    const channels = ch.split(";").map((part) => {
      const [lo, hi, active] = part.split(":");
      return { lo: finite(lo), hi: finite(hi), active: active !== "0" };
    });
    if (channels.every((c) => c.lo !== undefined && c.hi !== undefined)) {
      state.channels = channels as { lo: number; hi: number; active: boolean }[];
    }
  }
  const cmap = p.get("cmap");
  if (cmap) state.cmap = cmap;
  return state;
}

/** Rounds for the URL: 4 decimals for positions, 6 significant digits for values. */
const short = (v: number, digits = 6) => String(Number(v.toPrecision(digits)));

/** Writes the state as a query string (without `?`). */
export function writeUrlState(state: UrlState): string {
  const p = new URLSearchParams();
  if (state.store) p.set("store", state.store);
  if (state.path) p.set("path", state.path);
  if (state.level !== undefined) p.set("level", String(state.level));
  const idx = Object.entries(state.indices).map(([k, v]) => `${k}:${v}`);
  if (idx.length) p.set("idx", idx.join(","));
  if (state.view) {
    const { cx, cy, zoom } = state.view;
    p.set("view", [short(cx, 10), short(cy, 10), short(zoom, 8)].join(","));
  }
  if (state.channels?.length) {
    p.set(
      "ch",
      state.channels.map((c) => `${short(c.lo)}:${short(c.hi)}:${c.active ? 1 : 0}`).join(";"),
    );
  }
  if (state.cmap) p.set("cmap", state.cmap);
  return p.toString();
}

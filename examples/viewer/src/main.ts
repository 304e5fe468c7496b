/**
 * The viewer application: opens a store (URL, local directory or zip), shows
 * its hierarchy, and draws an OME-Zarr image or a plain array as tiles of the
 * pyramid level matching the zoom. Drag pans, the wheel zooms, sliders pick
 * t/c/z (or any other axis), each channel has contrast limits and a colour.
 * The state lives in the URL (see url.ts).
 *
 * @module
 */
import "./codecs.js";
import { ChunkCache, type Group, type ZarrArray } from "@zarr/core";
import { COLOUR_MAPS } from "./colormap.js";
import {
  channelChunk,
  imageOfArray,
  imageOfGroup,
  sliderAxes,
  tileSelection,
  type ViewerImage,
} from "./image.js";
import { describeArray, physical } from "./info.js";
import {
  findRoot,
  loadV2,
  needsFormat,
  openDirectoryHandle,
  openFileList,
  openNode,
  openUrl,
  openZipFile,
  type Source,
} from "./open.js";
import { paintTile, type TileData, tileDataOf, tilesRange, tileValue } from "./render.js";
import {
  chooseLevel,
  fitView,
  LruCache,
  screenToLevel,
  type Tile,
  tileRect,
  type View,
  visibleTileCount,
  visibleTiles,
} from "./tiles.js";
import { hierarchyTree, renderTree } from "./tree.js";
import { readUrlState, type UrlState, writeUrlState } from "./url.js";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const canvas = $<HTMLCanvasElement>("view");
const ctx = canvas.getContext("2d")!;
const status = $<HTMLParagraphElement>("status");
const storeInput = $<HTMLInputElement>("store");
const pathInput = $<HTMLInputElement>("path");
const levelSelect = $<HTMLSelectElement>("level");

/** Shows progress; `data-state` and `data-generation` (completed draws) let tests wait on it. */
function setStatus(state: "idle" | "loading" | "ready" | "error", text: string): void {
  status.dataset.state = state;
  status.textContent = text;
  if (state === "ready" || state === "error") {
    status.dataset.generation = String(Number(status.dataset.generation ?? 0) + 1);
  }
}

/** The open image and how it is shown. */
interface Session {
  source: Source;
  path: string;
  image: ViewerImage;
  /** Forced level, or undefined for the level matching the zoom. */
  level?: number;
  /** Index per axis (only slider axes are used). */
  indices: number[];
  view: View;
  /**
   * The read results of recent tiles (what draws, readouts and contrast fits use
   * synchronously); the decoded chunks behind them live in `chunkCache`.
   */
  data: LruCache<TileData>;
  pictures: LruCache<HTMLCanvasElement>;
  inflight: Map<string, Promise<void>>;
  /** The level the info panel describes. */
  infoLevel?: number;
  /** Bumped by every change; a draw that completes reports once per change. */
  change: number;
  reported: number;
  abort: AbortController;
}

/** Most tiles read for one view (an array of small chunks seen from afar has millions). */
const MAX_TILES = 1024;

let source: Source | undefined;
/**
 * Decoded chunks of the open store (core's ChunkCache): tiles seen before (another
 * z, back to a level) are not read again. One per store, dropped with it.
 */
let chunkCache = new ChunkCache({ maxBytes: 256 * 2 ** 20 });
let session: Session | undefined;
/** Counts calls of openPath (the latest one shows). */
let opening = 0;
/** Paths opened in this store (the tree of a store that cannot be listed). */
const visited = new Set<string>();

// --- URL state -------------------------------------------------------------

function urlState(): UrlState {
  const s = session;
  const state: UrlState = { path: s?.path ?? pathInput.value, indices: {} };
  if (source && !source.label.startsWith("local:")) state.store = source.label;
  if (!s) return state;
  if (s.level !== undefined) state.level = s.level;
  for (const d of sliderAxes(s.image)) state.indices[s.image.axes[d]!.name] = s.indices[d]!;
  state.view = s.view;
  state.channels = s.image.channels.map((c) => ({ lo: c.lo, hi: c.hi, active: c.active }));
  if (s.image.cAxis < 0) state.cmap = s.image.channels[0]!.map;
  return state;
}

let urlTimer: ReturnType<typeof setTimeout> | undefined;
function saveUrl(): void {
  clearTimeout(urlTimer);
  urlTimer = setTimeout(() => {
    history.replaceState(null, "", `?${writeUrlState(urlState())}`);
  }, 100);
}

// --- drawing ------------------------------------------------------------------

function levelIndex(s: Session): number {
  if (s.level !== undefined) return Math.min(s.level, s.image.levels.length - 1);
  return chooseLevel(s.image.levels, s.view.zoom);
}

function activeChannels(s: Session) {
  return s.image.channels
    .map((settings, index) => ({ index, settings }))
    .filter((c) => c.settings.active);
}

/** The key of a decoded tile: level, slider indices, channel chunk, tile position. */
function dataKey(s: Session, k: number, cChunk: number, tile: Tile): string {
  const idx = sliderAxes(s.image).map((d) => s.indices[d]);
  return `${k}|${idx.join(",")}|${cChunk}|${tile.ty},${tile.tx}`;
}

function channelsKey(s: Session): string {
  return JSON.stringify(activeChannels(s).map((c) => [c.index, c.settings]));
}

/** Reads one tile (one chunk per channel chunk) into the data cache. */
function fetchTile(s: Session, k: number, cChunk: number, tile: Tile): Promise<void> {
  const key = dataKey(s, k, cChunk, tile);
  const pending = s.inflight.get(key);
  if (pending) return pending;
  const level = s.image.levels[k]!;
  const selection = tileSelection(s.image, level, tile, s.indices, cChunk);
  const kept = selection.flatMap((sel, d) => (typeof sel === "number" ? [] : [d]));
  const cStart = s.image.cAxis >= 0 ? (selection[s.image.cAxis] as { start: number }).start : 0;
  const promise = level.array
    .get(selection, { signal: s.abort.signal, chunkCache })
    .then((result) => {
      s.data.set(
        key,
        tileDataOf(result, kept, s.image.yAxis, s.image.xAxis, s.image.cAxis, cStart),
      );
    })
    .finally(() => s.inflight.delete(key));
  s.inflight.set(key, promise);
  return promise;
}

/** The coloured canvas of a tile, or undefined while its data is missing. */
function picture(
  s: Session,
  k: number,
  tile: Tile,
  /** Where to put the reads of missing data; without it, nothing is read. */
  missing?: Promise<void>[],
): HTMLCanvasElement | undefined {
  const channels = activeChannels(s);
  const level = s.image.levels[k]!;
  const parts = new Map<number, TileData>();
  const chunks = new Set(channels.map((c) => channelChunk(s.image, level, c.index)));
  if (chunks.size === 0) chunks.add(0);
  let complete = true;
  for (const cc of chunks) {
    const data = s.data.get(dataKey(s, k, cc, tile));
    if (!data) {
      complete = false;
      if (!missing) return undefined;
      missing.push(fetchTile(s, k, cc, tile));
      continue;
    }
    for (let c = data.cStart; c < data.cStart + data.cCount; c++) parts.set(c, data);
  }
  if (!complete) return undefined;
  const key = `${[...chunks].map((cc) => dataKey(s, k, cc, tile)).join("+")}|${channelsKey(s)}`;
  const cached = s.pictures.get(key);
  if (cached) return cached;
  const rows = tile.y1 - tile.y0;
  const cols = tile.x1 - tile.x0;
  const out = document.createElement("canvas");
  out.width = cols;
  out.height = rows;
  const image = new ImageData(cols, rows);
  paintTile(rows, cols, channels, parts, image.data);
  out.getContext("2d")!.putImageData(image, 0, 0);
  s.pictures.set(key, out);
  return out;
}

/** Whether every channel chunk of `tile` needed by the active channels is decoded. */
function hasData(s: Session, k: number, tile: Tile): boolean {
  const level = s.image.levels[k]!;
  return activeChannels(s).every(
    (c) => s.data.get(dataKey(s, k, channelChunk(s.image, level, c.index), tile)) !== undefined,
  );
}

let drawQueued = false;
/** Redraws on the next frame (coalescing several changes). */
function scheduleDraw(): void {
  if (drawQueued) return;
  drawQueued = true;
  requestAnimationFrame(() => {
    drawQueued = false;
    draw();
  });
}

/** Marks a change of what is shown: the next complete draw reports "ready". */
function changed(): void {
  if (!session) return;
  session.change++;
  saveUrl();
  scheduleDraw();
}

/** Draws every visible tile that is ready and fetches the others. */
function draw(): void {
  const s = session;
  if (!s) return;
  const k = levelIndex(s);
  const level = s.image.levels[k]!;
  const { width, height } = canvas;
  const count = visibleTileCount(level, s.view, width, height);
  if (count > MAX_TILES) {
    ctx.clearRect(0, 0, width, height);
    if (s.reported !== s.change) {
      s.reported = s.change;
      setStatus(
        "error",
        `${count} chunks of level ${k} in view (at most ${MAX_TILES} are read at once): zoom in`,
      );
    }
    return;
  }
  const tiles = visibleTiles(level, s.view, width, height);
  if (fitPending(s) && tiles.every((t) => hasData(s, k, t))) fitContrast(s);
  const missing: Promise<void>[] = [];
  const pictures = tiles.map((t) => picture(s, k, t, missing));
  ctx.clearRect(0, 0, width, height);
  ctx.imageSmoothingEnabled = false;
  if (missing.length) drawPlaceholders(s, k);
  tiles.forEach((t, i) => {
    const p = pictures[i];
    if (p) ctx.drawImage(p, ...tileRect(level, t, s.view, width, height));
  });
  levelSelect.options[0]!.text = `auto (${k})`;
  if (s.infoLevel !== k) {
    s.infoLevel = k;
    showInfo(s.image, k);
  }
  if (missing.length) {
    setStatus("loading", `Reading ${missing.length} tile(s) of level ${k}…`);
    Promise.all(missing).then(
      () => {
        if (session === s) {
          scheduleDraw();
        }
      },
      (e: Error) => {
        if (session === s && !s.abort.signal.aborted) setStatus("error", e.message);
      },
    );
    return;
  }
  if (s.reported !== s.change) {
    s.reported = s.change;
    setStatus(
      "ready",
      `level ${k} (${level.height} × ${level.width}), ${tiles.length} tile(s) in view; ` +
        `chunk cache: ${chunkCache.stats.misses} read, ${chunkCache.stats.hits} reused` +
        (s.image.notice ? `; ${s.image.notice}` : ""),
    );
  }
}

/**
 * Under tiles still loading: the coarser levels' tiles already decoded
 * (coarsest first), so a pan or zoom shows a blurred image rather than a hole.
 */
function drawPlaceholders(s: Session, k: number): void {
  const { width, height } = canvas;
  for (let j = s.image.levels.length - 1; j > k; j--) {
    const level = s.image.levels[j]!;
    if (visibleTileCount(level, s.view, width, height) > MAX_TILES) continue;
    for (const t of visibleTiles(level, s.view, width, height)) {
      const p = picture(s, j, t);
      if (p) ctx.drawImage(p, ...tileRect(level, t, s.view, width, height));
    }
  }
}

/** A channel without limits (a plain array not yet seen) gets them from the first tiles. */
function fitPending(s: Session): boolean {
  return s.image.channels.some((c) => Number.isNaN(c.lo) || Number.isNaN(c.hi));
}

/** Sets each active channel's limits to the range of the visible tiles. */
function fitContrast(s: Session, all = false): void {
  const k = levelIndex(s);
  const level = s.image.levels[k]!;
  if (visibleTileCount(level, s.view, canvas.width, canvas.height) > MAX_TILES) return;
  const tiles = visibleTiles(level, s.view, canvas.width, canvas.height);
  s.image.channels.forEach((c, i) => {
    if (!all && !(Number.isNaN(c.lo) || Number.isNaN(c.hi))) return;
    const data = tiles
      .map((t) => s.data.get(dataKey(s, k, channelChunk(s.image, level, i), t)))
      .filter((d): d is TileData => d !== undefined);
    const range = tilesRange(data, i) ?? [0, 1];
    c.lo = Number(range[0].toPrecision(7));
    c.hi = Number(range[1].toPrecision(7));
  });
  buildChannelControls(s);
  saveUrl();
}

// --- controls -----------------------------------------------------------------

function buildControls(s: Session): void {
  levelSelect.replaceChildren(new Option("auto", ""));
  s.image.levels.forEach((l, k) => {
    levelSelect.add(new Option(`${k}: ${l.path} (${l.height} × ${l.width})`, String(k)));
  });
  levelSelect.value = s.level === undefined ? "" : String(s.level);
  const sliders = $<HTMLDivElement>("sliders");
  sliders.replaceChildren();
  const axes = sliderAxes(s.image);
  if (s.image.cAxis >= 0) axes.push(s.image.cAxis);
  for (const d of axes.sort((a, b) => a - b)) {
    const isChannel = d === s.image.cAxis;
    // The channel slider spans the channels the image has settings for (at most MAX_CHANNELS).
    const size = isChannel ? s.image.channels.length : s.image.levels[0]!.array.shape[d]!;
    const axis = s.image.axes[d]!;
    const label = document.createElement("label");
    const input = document.createElement("input");
    const out = document.createElement("output");
    input.type = "range";
    input.id = `axis-${axis.name}`;
    input.min = "0";
    input.max = String(size - 1);
    input.disabled = size === 1;
    input.value = String(
      isChannel
        ? Math.max(
            0,
            s.image.channels.findIndex((c) => c.active),
          )
        : s.indices[d],
    );
    out.textContent = input.value;
    input.oninput = () => {
      out.textContent = input.value;
      if (isChannel) {
        // The channel slider shows one channel; the checkboxes below combine several.
        s.image.channels.forEach((c, i) => {
          c.active = i === Number(input.value);
        });
        buildChannelControls(s);
      } else {
        s.indices[d] = Number(input.value);
      }
      changed();
    };
    label.append(`${axis.name} `, input, " ", out);
    sliders.append(label);
  }
  buildChannelControls(s);
}

function buildChannelControls(s: Session): void {
  const list = $<HTMLDivElement>("channels");
  list.replaceChildren();
  s.image.channels.forEach((c, i) => {
    const row = document.createElement("div");
    row.className = "channel";
    const active = document.createElement("input");
    active.type = "checkbox";
    active.id = `ch-${i}-active`;
    active.checked = c.active;
    active.onchange = () => {
      c.active = active.checked;
      changed();
    };
    const number = (id: string, value: number, set: (v: number) => void) => {
      const input = document.createElement("input");
      input.type = "number";
      input.step = "any";
      input.id = id;
      input.value = Number.isNaN(value) ? "" : String(value);
      input.oninput = () => {
        if (input.value === "" || !Number.isFinite(Number(input.value))) return;
        set(Number(input.value));
        changed();
      };
      return input;
    };
    const map = document.createElement("select");
    map.id = `ch-${i}-map`;
    const hex = c.color.map((v) => v.toString(16).padStart(2, "0")).join("");
    map.add(new Option(`#${hex}`, "tint"));
    for (const name of Object.keys(COLOUR_MAPS)) map.add(new Option(name, name));
    map.value = c.map;
    map.onchange = () => {
      c.map = map.value;
      changed();
    };
    row.append(
      active,
      ` ${c.label} `,
      number(`ch-${i}-lo`, c.lo, (v) => {
        c.lo = v;
      }),
      "–",
      number(`ch-${i}-hi`, c.hi, (v) => {
        c.hi = v;
      }),
      map,
    );
    list.append(row);
  });
}

levelSelect.onchange = () => {
  if (!session) return;
  session.level = levelSelect.value === "" ? undefined : Number(levelSelect.value);
  changed();
};
$<HTMLButtonElement>("fit").onclick = () => {
  if (!session) return;
  session.view = fitView(session.image.levels[0]!, canvas.width, canvas.height);
  changed();
};
$<HTMLButtonElement>("auto-contrast").onclick = () => {
  if (!session) return;
  fitContrast(session, true);
  changed();
};

/** Zooms by `factor` keeping the level-0 point under canvas pixel (px, py) in place. */
function zoomAt(factor: number, px: number, py: number): void {
  const s = session;
  if (!s) return;
  const { cx, cy, zoom } = s.view;
  const next = Math.min(64, Math.max(1 / 4096, zoom * factor));
  const dx = px - canvas.width / 2;
  const dy = py - canvas.height / 2;
  s.view = {
    cx: cx + dx / zoom - dx / next,
    cy: cy + dy / zoom - dy / next,
    zoom: next,
  };
  changed();
}

$<HTMLButtonElement>("zoom-in").onclick = () => zoomAt(2, canvas.width / 2, canvas.height / 2);
$<HTMLButtonElement>("zoom-out").onclick = () => zoomAt(0.5, canvas.width / 2, canvas.height / 2);

/** Canvas pixel of a pointer event (the canvas may be scaled by CSS). */
function canvasPoint(event: MouseEvent): [number, number] {
  const rect = canvas.getBoundingClientRect();
  return [
    ((event.clientX - rect.left) / rect.width) * canvas.width,
    ((event.clientY - rect.top) / rect.height) * canvas.height,
  ];
}

canvas.addEventListener(
  "wheel",
  (event) => {
    event.preventDefault();
    const [px, py] = canvasPoint(event);
    zoomAt(event.deltaY < 0 ? 1.25 : 0.8, px, py);
  },
  { passive: false },
);

let dragging: { x: number; y: number } | undefined;
canvas.onpointerdown = (event) => {
  dragging = { x: event.clientX, y: event.clientY };
  canvas.setPointerCapture(event.pointerId);
};
canvas.onpointerup = (event) => {
  dragging = undefined;
  canvas.releasePointerCapture(event.pointerId);
};
canvas.onpointermove = (event) => {
  const s = session;
  if (!s) return;
  if (dragging) {
    const rect = canvas.getBoundingClientRect();
    const scale = canvas.width / rect.width;
    s.view = {
      ...s.view,
      cx: s.view.cx - ((event.clientX - dragging.x) * scale) / s.view.zoom,
      cy: s.view.cy - ((event.clientY - dragging.y) * scale) / s.view.zoom,
    };
    dragging = { x: event.clientX, y: event.clientY };
    changed();
  }
  showValue(s, ...canvasPoint(event));
};

/** Values and coordinates under the cursor (from the tiles on screen; nothing is read). */
function showValue(s: Session, px: number, py: number): void {
  const k = levelIndex(s);
  const level = s.image.levels[k]!;
  const [fr, fc] = screenToLevel(level, s.view, px, py, canvas.width, canvas.height);
  const row = Math.floor(fr);
  const col = Math.floor(fc);
  const readout = $("readout");
  if (row < 0 || col < 0 || row >= level.height || col >= level.width) {
    readout.textContent = "\u00a0";
    return;
  }
  const ty = Math.floor(row / level.tileHeight);
  const tx = Math.floor(col / level.tileWidth);
  const tile: Tile = {
    ty,
    tx,
    y0: ty * level.tileHeight,
    y1: Math.min(level.height, (ty + 1) * level.tileHeight),
    x0: tx * level.tileWidth,
    x1: Math.min(level.width, (tx + 1) * level.tileWidth),
  };
  const values = activeChannels(s).map(({ index, settings }) => {
    const data = s.data.get(dataKey(s, k, channelChunk(s.image, level, index), tile));
    const v = data ? tileValue(data, index, row - tile.y0, col - tile.x0) : Number.NaN;
    return `${settings.label} ${Number.isNaN(v) ? "–" : Number(v.toPrecision(7))}`;
  });
  const coord = (axis: number, index: number) => {
    const a = s.image.axes[axis]!;
    return `${a.name} ${physical(index, level.scale[axis]!, level.translation[axis]!, a.unit)}`;
  };
  const others = sliderAxes(s.image).map((d) => coord(d, s.indices[d]!));
  readout.textContent =
    `level ${k} [${row}, ${col}]  ${[...others, coord(s.image.yAxis, row), coord(s.image.xAxis, col)].join(", ")}` +
    `  =  ${values.join(", ")}`;
}

// --- opening ---------------------------------------------------------------------

function showInfo(image: ViewerImage, k: number): void {
  const lines: string[] = [];
  if (image.ome) {
    lines.push(
      `OME-Zarr ${image.ome.version} image "${image.ome.name ?? image.path}"`,
      `axes ${image.axes.map((a) => (a.unit ? `${a.name} (${a.unit})` : a.name)).join(", ")}`,
      `level ${k} of ${image.levels.length}:`,
    );
  }
  lines.push(describeArray(image.levels[k]!.array));
  $("info").textContent = lines.join("\n");
}

async function showTree(src: Source, root: ZarrArray | Group | undefined): Promise<void> {
  const container = $("tree");
  const select = (full: string) => {
    const path =
      src.root && full.startsWith(src.root) ? full.slice(src.root.length).replace(/^\//, "") : full;
    pathInput.value = path;
    void openPath(path, {});
  };
  const current = session ? session.image.path : "";
  if (root) {
    try {
      // A v2 node below a v3 group: load the v2 format and list again.
      const listed = await hierarchyTree(root, src.listable).catch(async (e) => {
        if (!needsFormat(e)) throw e;
        await loadV2();
        return hierarchyTree(root, src.listable);
      });
      if (listed) {
        renderTree(container, listed.tree, current, select);
        if (listed.truncated) container.append("(more nodes not listed)");
        return;
      }
    } catch {
      // fall through to the visited paths
    }
  }
  // Not listable and not consolidated: the paths opened so far.
  const list = document.createElement("ul");
  for (const p of [...visited].sort()) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.className = "node";
    b.dataset.path = p;
    b.textContent = p || "/";
    if (p === current) b.setAttribute("aria-current", "true");
    b.onclick = () => select(p);
    li.append(b);
    list.append(li);
  }
  container.replaceChildren(
    "This store cannot be listed and has no consolidated metadata: type a path and press Open.",
    list,
  );
}

/** Opens `path` in the current source and draws it; `restore` comes from the URL. */
async function openPath(path: string, restore: Partial<UrlState>): Promise<void> {
  const src = source;
  if (!src) return;
  session?.abort.abort();
  session = undefined;
  // A later open wins over one still waiting for its metadata.
  const token = ++opening;
  pathInput.value = path;
  setStatus("loading", `Opening ${path || "/"}…`);
  try {
    const node = await openNode(src, path);
    let image: ViewerImage;
    if (node.kind === "group") {
      const ome = await imageOfGroup(node);
      if (token !== opening) return;
      if (!ome) {
        visited.add(node.path);
        saveUrl();
        await showTree(src, node.path === src.root ? node : await rootNode(src));
        $("controls").hidden = true;
        ctx.clearRect(0, 0, canvas.width, canvas.height);
        $("info").textContent =
          `group ${node.path || "/"}\n${JSON.stringify(node.attrs, null, 1).slice(0, 2000)}`;
        setStatus("ready", `${node.path || "/"} is a group: pick an array or image in the tree`);
        return;
      }
      image = ome;
    } else {
      image = imageOfArray(node);
    }
    if (token !== opening) return;
    visited.add(image.path);
    const indices = image.axes.map((a, d) => {
      const fromUrl = restore.indices?.[a.name];
      const size = image.levels[0]!.array.shape[d]!;
      const byDefault =
        a.name === "t" ? image.ome?.defaultT : a.name === "z" ? image.ome?.defaultZ : undefined;
      return Math.max(0, Math.min(size - 1, fromUrl ?? byDefault ?? 0));
    });
    restore.channels?.forEach((c, i) => {
      const ch = image.channels[i];
      if (ch) Object.assign(ch, c);
    });
    if (restore.cmap && image.cAxis < 0 && COLOUR_MAPS[restore.cmap])
      image.channels[0]!.map = restore.cmap;
    session = {
      source: src,
      path,
      image,
      level: restore.level,
      indices,
      view: restore.view ?? fitView(image.levels[0]!, canvas.width, canvas.height),
      data: new LruCache<TileData>(48 * 2 ** 20, (t) => t.array.data.length * 8),
      pictures: new LruCache<HTMLCanvasElement>(128 * 2 ** 20, (c) => c.width * c.height * 4),
      inflight: new Map(),
      change: 1,
      reported: 0,
      abort: new AbortController(),
    };
    $("controls").hidden = false;
    buildControls(session);
    saveUrl();
    draw();
    // The tree starts at the store's root (the node just opened, when it is the root).
    void showTree(src, node.path === src.root ? node : await rootNode(src));
  } catch (e) {
    if (token === opening) setStatus("error", (e as Error).message);
  }
}

/** The store's root node (for the tree), or undefined when there is none. */
async function rootNode(src: Source): Promise<ZarrArray | Group | undefined> {
  try {
    return await openNode(src, "");
  } catch {
    return undefined;
  }
}

async function openSource(src: Source, restore: Partial<UrlState>): Promise<void> {
  // A folder or archive that wraps the hierarchy in one more level.
  if (src.listable && !src.root) src.root = await findRoot(src.store);
  source = src;
  chunkCache = new ChunkCache({ maxBytes: 256 * 2 ** 20 });
  visited.clear();
  await openPath(restore.path ?? "", restore);
}

$<HTMLFormElement>("open-form").onsubmit = (event) => {
  event.preventDefault();
  const url = storeInput.value.trim();
  const path = pathInput.value.trim();
  if (source && (url === source.label || !url)) {
    void openPath(path, {});
    return;
  }
  openUrl(url).then(
    (src) => openSource(src, { path }),
    (e: Error) => setStatus("error", e.message),
  );
};

$<HTMLInputElement>("zip-file").onchange = (event) => {
  const file = (event.target as HTMLInputElement).files?.[0];
  if (!file) return;
  storeInput.value = "";
  openZipFile(file).then(
    (src) => openSource(src, { path: pathInput.value.trim() }),
    (e: Error) => setStatus("error", e.message),
  );
};

$<HTMLInputElement>("dir-files").onchange = (event) => {
  const files = (event.target as HTMLInputElement).files;
  if (!files?.length) return;
  storeInput.value = "";
  void openSource(openFileList(files), { path: pathInput.value.trim() });
};

const pickDir = $<HTMLButtonElement>("pick-dir");
const picker = (globalThis as { showDirectoryPicker?: () => Promise<unknown> }).showDirectoryPicker;
if (picker) {
  // File System Access API (Chromium): read files on demand, no upload of the folder.
  pickDir.hidden = false;
  $("dir-fallback").hidden = true;
  pickDir.onclick = () => {
    picker()
      .then((handle) => openDirectoryHandle(handle as Parameters<typeof openDirectoryHandle>[0]))
      .then(
        (src) => {
          storeInput.value = "";
          return openSource(src, { path: pathInput.value.trim() });
        },
        (e: Error) => {
          if (e.name !== "AbortError") setStatus("error", e.message);
        },
      );
  };
}

// --- start from the URL -----------------------------------------------------------

const initial = readUrlState(location.search);
pathInput.value = initial.path;
if (initial.store) {
  storeInput.value = initial.store;
  openUrl(initial.store).then(
    (src) => openSource(src, initial),
    (e: Error) => setStatus("error", e.message),
  );
}

/**
 * The viewer application: opens an array over HTTP, draws one 2D window of it
 * through a colour map, and redraws when the plane, the window or the colour
 * range changes. Only the chunks under the window are read.
 *
 * URL parameters: `store` (the store's URL), `array` (the array's path),
 * optional `min`/`max` (colour range; default: fit to the first view),
 * `cmap` (viridis, grey, diverging) and `view` (window size, default 256).
 *
 * @module
 */
import "./codecs.js";
import { CountingStore, openArray, type ZarrArray } from "@zarr/core";
import { HttpStore } from "@zarr/store-http";
import { COLOUR_MAPS } from "./colormap.js";
import { type Plane, paint, planeOf, planeRange, planeValue } from "./render.js";
import { initialState, type ViewState, viewSelection, viewWindow } from "./view.js";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const canvas = $<HTMLCanvasElement>("view");
const status = $<HTMLParagraphElement>("status");
const minInput = $<HTMLInputElement>("min");
const maxInput = $<HTMLInputElement>("max");
const cmapSelect = $<HTMLSelectElement>("cmap");
const rowStartInput = $<HTMLInputElement>("row-start");
const colStartInput = $<HTMLInputElement>("col-start");

/** Shows progress; `data-state` and `data-generation` (completed reads) let tests wait on it. */
function setStatus(state: "idle" | "loading" | "ready" | "error", text: string): void {
  status.dataset.state = state;
  status.textContent = text;
  if (state === "ready" || state === "error") {
    status.dataset.generation = String(Number(status.dataset.generation ?? 0) + 1);
  }
}

/** The open array and what is on screen. */
interface Session {
  array: ZarrArray;
  store: CountingStore;
  state: ViewState;
  /** The window drawn last, and the selection it was read with (to skip re-reads). */
  plane?: Plane;
  planeKey?: string;
  abort?: AbortController;
}

let session: Session | undefined;

for (const name of Object.keys(COLOUR_MAPS)) cmapSelect.add(new Option(name, name));

function option(label: string, value: number): HTMLOptionElement {
  return new Option(label, String(value));
}

/** Builds the plane controls (axes, one slider per other dimension) for the open array. */
function buildControls(s: Session): void {
  const { array, state } = s;
  const names = array.dimensionNames ?? [];
  const label = (dim: number) => names[dim] ?? `dim ${dim}`;
  for (const [id, axis] of [
    ["row-axis", state.rowAxis],
    ["col-axis", state.colAxis],
  ] as const) {
    const select = $<HTMLSelectElement>(id);
    select.replaceChildren(
      ...array.shape.map((size, dim) => option(`${label(dim)} (${size})`, dim)),
    );
    select.value = String(axis);
    select.onchange = () => {
      const dim = Number(select.value);
      if (id === "row-axis") {
        if (dim === state.colAxis) state.colAxis = state.rowAxis;
        state.rowAxis = dim;
      } else {
        if (dim === state.rowAxis) state.rowAxis = state.colAxis;
        state.colAxis = dim;
      }
      state.rowStart = state.colStart = 0;
      buildControls(s);
      void refresh();
    };
  }
  const indices = $<HTMLDivElement>("indices");
  indices.replaceChildren();
  array.shape.forEach((size, dim) => {
    if (dim === state.rowAxis || dim === state.colAxis) return;
    const wrapper = document.createElement("label");
    const input = document.createElement("input");
    const out = document.createElement("output");
    input.type = "range";
    input.id = `index-${dim}`;
    input.min = "0";
    input.max = String(size - 1);
    input.value = String(state.indices[dim] ?? 0);
    out.textContent = input.value;
    input.oninput = () => {
      state.indices[dim] = Number(input.value);
      out.textContent = input.value;
      void refresh();
    };
    wrapper.append(`${label(dim)} `, input, " ", out);
    indices.append(wrapper);
  });
  const w = viewWindow(array.shape, state);
  const pan: [HTMLInputElement, number, number][] = [
    [rowStartInput, array.shape[state.rowAxis]! - w.rows, w.rowStart],
    [colStartInput, array.shape[state.colAxis]! - w.cols, w.colStart],
  ];
  for (const [input, max, value] of pan) {
    input.max = String(max);
    input.value = String(value);
    input.disabled = max === 0;
    (input.nextElementSibling as HTMLOutputElement).textContent = String(value);
  }
}

rowStartInput.oninput = colStartInput.oninput = () => {
  if (!session) return;
  session.state.rowStart = Number(rowStartInput.value);
  session.state.colStart = Number(colStartInput.value);
  (rowStartInput.nextElementSibling as HTMLOutputElement).textContent = rowStartInput.value;
  (colStartInput.nextElementSibling as HTMLOutputElement).textContent = colStartInput.value;
  void refresh();
};
minInput.oninput = maxInput.oninput = cmapSelect.onchange = () => draw();
/** Seven significant digits: float32 values without their binary noise. */
function round(v: number): string {
  return String(Number(v.toPrecision(7)));
}

/** Sets the colour range to the values of the window on screen. */
function fitRange(plane: Plane): void {
  const [lo, hi] = planeRange(plane);
  minInput.value = round(lo);
  maxInput.value = round(hi);
}

$<HTMLButtonElement>("auto-range").onclick = () => {
  if (!session?.plane) return;
  fitRange(session.plane);
  draw();
};

/** Paints the current plane with the current colour settings (no reads). */
function draw(): void {
  const plane = session?.plane;
  if (!plane) return;
  const table = COLOUR_MAPS[cmapSelect.value] ?? COLOUR_MAPS.viridis!;
  canvas.width = plane.cols;
  canvas.height = plane.rows;
  const ctx = canvas.getContext("2d");
  if (!ctx) throw new Error("no 2D canvas context");
  const image = ctx.createImageData(plane.cols, plane.rows);
  paint(plane, image.data, Number(minInput.value), Number(maxInput.value), table);
  ctx.putImageData(image, 0, 0);
  drawLegend(table);
}

/** The colour bar under the image, labelled with the colour range. */
function drawLegend(table: Uint8Array): void {
  const bar = $<HTMLCanvasElement>("colourbar");
  const ctx = bar.getContext("2d");
  if (!ctx) return;
  const image = ctx.createImageData(256, 1);
  for (let i = 0; i < 256; i++)
    image.data.set([table[3 * i]!, table[3 * i + 1]!, table[3 * i + 2]!, 255], 4 * i);
  ctx.putImageData(image, 0, 0);
  $("legend-min").textContent = minInput.value;
  $("legend-max").textContent = maxInput.value;
}

/** Reads the window of the current state (unless already on screen) and draws it. */
async function refresh(): Promise<void> {
  const s = session;
  if (!s) return;
  const selection = viewSelection(s.array.shape, s.state);
  const key = JSON.stringify(selection);
  if (key === s.planeKey) return draw();
  s.abort?.abort();
  const abort = new AbortController();
  s.abort = abort;
  setStatus("loading", "Reading…");
  s.store.reset();
  try {
    const result = await s.array.get(selection, { signal: abort.signal });
    if (abort.signal.aborted) return;
    const counts = s.store.reset();
    s.plane = planeOf(result, s.state.rowAxis, s.state.colAxis);
    s.planeKey = key;
    if (minInput.value === "" || maxInput.value === "") fitRange(s.plane);
    draw();
    const w = viewWindow(s.array.shape, s.state);
    setStatus(
      "ready",
      `${w.rows}×${w.cols} window at (${w.rowStart}, ${w.colStart}): ` +
        `${counts.reads} reads, ${(counts.readBytes / 1024).toFixed(1)} KiB`,
    );
  } catch (e) {
    if (abort.signal.aborted) return;
    setStatus("error", (e as Error).message);
  }
}

canvas.onmousemove = (event) => {
  const plane = session?.plane;
  if (!plane || !session) return;
  const rect = canvas.getBoundingClientRect();
  const col = Math.floor(((event.clientX - rect.left) / rect.width) * plane.cols);
  const row = Math.floor(((event.clientY - rect.top) / rect.height) * plane.rows);
  if (row < 0 || col < 0 || row >= plane.rows || col >= plane.cols) return;
  const w = viewWindow(session.array.shape, session.state);
  const v = planeValue(plane, row, col);
  $("readout").textContent = `[${w.rowStart + row}, ${w.colStart + col}] = ${round(v)}`;
};

/** Opens `path` in the store at `url` and shows its first window. */
async function openView(url: string, path: string, windowSize: number): Promise<void> {
  session?.abort?.abort();
  session = undefined;
  setStatus("loading", `Opening ${path || "/"}…`);
  try {
    // HttpStore calls its fetch as a method; browsers reject window.fetch called
    // on another object ("Illegal invocation"), so pass a bound wrapper.
    const store = new CountingStore(
      new HttpStore(url, { fetch: (input, init) => globalThis.fetch(input, init) }),
      { log: true },
    );
    const array = await openArray(store, path);
    if (array.ndim < 2)
      throw new Error(`"${path}" has ${array.ndim} dimension(s); the viewer shows 2D planes`);
    session = { array, store, state: initialState(array.shape, windowSize, windowSize) };
    $("info").textContent =
      `shape ${JSON.stringify(array.shape)}\nchunks ${JSON.stringify(array.chunkShape)}\n` +
      `data type ${array.dataType.name}\ncodecs ${array.metadata.codecs.map((c) => c.name).join(", ")}`;
    $("controls").hidden = false;
    buildControls(session);
    await refresh();
  } catch (e) {
    setStatus("error", (e as Error).message);
  }
}

const params = new URLSearchParams(location.search);
const storeInput = $<HTMLInputElement>("store");
const arrayInput = $<HTMLInputElement>("array");
storeInput.value = params.get("store") ?? "";
arrayInput.value = params.get("array") ?? "";
minInput.value = params.get("min") ?? "";
maxInput.value = params.get("max") ?? "";
cmapSelect.value = params.get("cmap") ?? "viridis";
const windowSize = Math.max(16, Math.min(2048, Number(params.get("view")) || 256));

$<HTMLFormElement>("open-form").onsubmit = (event) => {
  event.preventDefault();
  const next = new URL(location.href);
  next.searchParams.set("store", storeInput.value);
  next.searchParams.set("array", arrayInput.value);
  history.replaceState(null, "", next);
  minInput.value = maxInput.value = "";
  void openView(new URL(storeInput.value, location.href).href, arrayInput.value, windowSize);
};

if (storeInput.value)
  void openView(new URL(storeInput.value, location.href).href, arrayInput.value, windowSize);

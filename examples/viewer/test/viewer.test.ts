/**
 * The viewer in a real browser (issue 9): builds the Vite app and serves it
 * from a local static server; writes a gzip-compressed v3 array and serves it
 * with `zarr serve` (another origin: CORS and Range as a real deployment);
 * drives Debian's Chromium through playwright-core, and checks the canvas
 * pixels against the array's values, the chunk keys the page fetched for each
 * view (only the chunks under the window), and saves a screenshot
 * (test-results/viewer.png). Needs `pnpm build` first (the CLI's bin runs dist).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import "@zarr/codec-gzip/register";
import "@zarr/codec-blosc/register";
import "@zarr/codec-zstd/register";
import { createArray, createGroup, openArray } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { type BrowserContext, chromium, type Page, type Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COLOUR_MAPS, colourIndex } from "../src/colormap.js";
import { chunksInView, type ViewState } from "../src/view.js";
import { type StaticServer, startStaticServer } from "./static-server.js";

/** A request the page made to the data server, and its HTTP status once answered. */
interface DataRequest {
  path: string;
  status?: number;
}

const cliBin = fileURLToPath(new URL("../../../packages/cli/bin/zarr.js", import.meta.url));

/** Starts `zarr serve <dir>` on a free port; resolves with its URL once it prints it. */
function startZarrServe(dir: string): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, [cliBin, "serve", dir, "--port", "0"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const timer = setTimeout(() => {
      child.kill();
      fail(new Error(`zarr serve printed no URL in 20 s (run \`pnpm build\` first?):\n${output}`));
    }, 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /https?:\/\/[^\s]+/.exec(output)?.[0];
      if (url) {
        clearTimeout(timer);
        ok({ child, url: url.endsWith("/") ? url : `${url}/` });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`zarr serve exited with ${code}:\n${output}`));
    });
  });
}

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const skipReason = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} not found (apt-get install chromium, or set CHROMIUM_PATH): browser test skipped`;
if (skipReason) console.warn(skipReason);

const viewerDir = fileURLToPath(new URL("..", import.meta.url));
const SHAPE = [3, 300, 400];
const CHUNKS = [1, 64, 64];
/** A chunk left unwritten: it reads as the NaN fill value (drawn transparent). */
const HOLE = [2, 4, 5];

/** The array's values (float32): smooth waves, different on each z plane. */
function value(z: number, y: number, x: number): number {
  return Math.fround(50 * Math.sin(x / 23 + z) * Math.cos(y / 31) + y / 10);
}

function isInHole(z: number, y: number, x: number): boolean {
  return [z, y, x].every((c, d) => Math.floor(c / CHUNKS[d]!) === HOLE[d]);
}

async function writeArray(dir: string): Promise<void> {
  const store = new FileSystemStore(dir);
  await createGroup(store, "");
  const array = await createArray(store, "volume", {
    shape: SHAPE,
    dataType: "float32",
    chunkShape: CHUNKS,
    fillValue: "NaN",
    dimensionNames: ["time", "y", "x"],
    codecs: [
      { name: "bytes", configuration: { endian: "little" } },
      { name: "gzip", configuration: { level: 5 } },
    ],
  });
  const [, ny, nx] = SHAPE as [number, number, number];
  for (let z = 0; z < SHAPE[0]!; z++) {
    const plane = new Float32Array(ny * nx);
    for (let y = 0; y < ny; y++) for (let x = 0; x < nx; x++) plane[y * nx + x] = value(z, y, x);
    await array.set([z, null, null], plane);
  }
  // A small zstd array, for the lazily loaded WebAssembly codec.
  const small = await createArray(store, "small", {
    shape: [40, 50],
    dataType: "int16",
    chunkShape: [16, 16],
    codecs: [
      { name: "bytes", configuration: { endian: "little" } },
      { name: "zstd", configuration: { level: 3, checksum: false } },
    ],
  });
  await small.set(
    null,
    Int16Array.from({ length: 40 * 50 }, (_, i) => ((i * 37) % 1001) - 500),
  );
  // Erase one chunk so a missing chunk (404) is part of a view.
  await store.erase(`volume/c/${HOLE.join("/")}`);
}

/** Expected RGBA bytes of the window [rowStart, +rows) x [colStart, +cols) of plane z. */
function expectedPixels(
  z: number,
  w: { rowStart: number; colStart: number; rows: number; cols: number },
  lo: number,
  hi: number,
  cmap: string,
): Uint8Array {
  const table = COLOUR_MAPS[cmap]!;
  const out = new Uint8Array(w.rows * w.cols * 4);
  for (let r = 0; r < w.rows; r++) {
    for (let c = 0; c < w.cols; c++) {
      const [y, x] = [w.rowStart + r, w.colStart + c];
      const k = isInHole(z, y, x) ? -1 : colourIndex(value(z, y, x), lo, hi);
      const p = 4 * (r * w.cols + c);
      if (k >= 0) out.set([table[3 * k]!, table[3 * k + 1]!, table[3 * k + 2]!, 255], p);
    }
  }
  return out;
}

async function canvasPixels(
  page: Page,
): Promise<{ width: number; height: number; data: Uint8Array }> {
  const { width, height, base64 } = await page.evaluate(() => {
    const canvas = document.getElementById("view") as HTMLCanvasElement;
    const data = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height).data;
    let binary = "";
    for (let i = 0; i < data.length; i++) binary += String.fromCharCode(data[i]!);
    return { width: canvas.width, height: canvas.height, base64: btoa(binary) };
  });
  return { width, height, data: new Uint8Array(Buffer.from(base64, "base64")) };
}

/** Counts pixels that differ from `expected`, and describes the first one. */
function compare(
  actual: Uint8Array,
  expected: Uint8Array,
  cols: number,
): { mismatches: number; first?: string } {
  let mismatches = 0;
  let first: string | undefined;
  for (let p = 0; p < expected.length; p += 4) {
    if (
      actual[p] !== expected[p] ||
      actual[p + 1] !== expected[p + 1] ||
      actual[p + 2] !== expected[p + 2] ||
      actual[p + 3] !== expected[p + 3]
    ) {
      mismatches++;
      first ??= `pixel (${Math.floor(p / 4 / cols)}, ${(p / 4) % cols}): got ${[...actual.subarray(p, p + 4)]}, expected ${[...expected.subarray(p, p + 4)]}`;
    }
  }
  return { mismatches, first };
}

/** Chunk keys (relative to the array) requested since `from` in the log. */
function chunkKeysFetched(log: DataRequest[], from: number): string[] {
  const prefix = "/volume/c/";
  return [
    ...new Set(
      log
        .slice(from)
        .filter((r) => r.path.startsWith(prefix))
        .map((r) => `c/${r.path.slice(prefix.length)}`),
    ),
  ].sort();
}

function expectedKeys(state: Partial<ViewState>): string[] {
  const full: ViewState = {
    rowAxis: 1,
    colAxis: 2,
    indices: [0, 0, 0],
    rowStart: 0,
    colStart: 0,
    maxRows: 256,
    maxCols: 256,
    ...state,
  };
  return chunksInView(SHAPE, CHUNKS, full)
    .map((c) => `c/${c.join("/")}`)
    .sort();
}

/**
 * Runs `action`, then waits until the viewer finished one more read (counting
 * from 0 when `action` loads a new page).
 */
async function afterRead(
  page: Page,
  action: () => Promise<unknown>,
  navigates = false,
): Promise<void> {
  const generation = () =>
    page.evaluate(() => Number(document.getElementById("status")?.dataset.generation ?? 0));
  const before = navigates || page.url() === "about:blank" ? 0 : await generation();
  await action();
  await page.waitForFunction(
    (n) => Number(document.getElementById("status")!.dataset.generation ?? 0) > n,
    before,
  );
  const state = await page.locator("#status").getAttribute("data-state");
  expect(state, (await page.locator("#status").textContent()) ?? "").toBe("ready");
}

describe.skipIf(skipReason !== undefined)("viewer in Chromium", () => {
  let work: string;
  let server: StaticServer;
  let zarrServe: ChildProcess | undefined;
  let dataUrl = "";
  const dataLog: DataRequest[] = [];
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "zarr-viewer-"));
    const appDir = join(work, "app");
    const vite = join(
      dirname(createRequire(import.meta.url).resolve("vite/package.json")),
      "bin/vite.js",
    );
    await Promise.all([
      promisify(execFile)(
        process.execPath,
        [vite, "build", "--outDir", appDir, "--logLevel", "warn"],
        { cwd: viewerDir },
      ),
      writeArray(join(work, "demo.zarr")),
    ]);
    server = await startStaticServer({ "/app/": appDir });
    ({ child: zarrServe, url: dataUrl } = await startZarrServe(join(work, "demo.zarr")));
    context = await chromium.launchPersistentContext(join(work, "profile"), {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1000, height: 680 },
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(15_000);
    page.on("pageerror", (e) => pageErrors.push(e.message));
    // What the page asked the data server for, as the browser saw it.
    const entries = new Map<Request, DataRequest>();
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.origin !== new URL(dataUrl).origin) return;
      const entry: DataRequest = { path: url.pathname };
      entries.set(request, entry);
      dataLog.push(entry);
    });
    page.on("response", (response) => {
      const entry = entries.get(response.request());
      if (entry) entry.status = response.status();
    });
  });

  afterAll(async () => {
    await context?.close();
    await server?.close();
    zarrServe?.kill();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("opens the array from the URL and draws plane 0 with the array's values (16 chunks of 35)", async () => {
    const from = dataLog.length;
    await afterRead(page, async () => {
      await page.goto(
        `${server.origin}/app/index.html?store=${encodeURIComponent(dataUrl)}&array=volume&min=-60&max=90`,
      );
    });
    expect(chunkKeysFetched(dataLog, from)).toEqual(expectedKeys({}));
    expect(chunkKeysFetched(dataLog, from)).toHaveLength(16);
    // Lazy codecs stay unloaded for a gzip array: one script, no WebAssembly.
    const assets = server.log.filter((r) => r.path.startsWith("/app/assets/"));
    expect(assets.filter((r) => r.path.endsWith(".js"))).toHaveLength(1);
    expect(assets.filter((r) => r.path.endsWith(".wasm"))).toEqual([]);
    const pixels = await canvasPixels(page);
    expect([pixels.height, pixels.width]).toEqual([256, 256]);
    const w = { rowStart: 0, colStart: 0, rows: 256, cols: 256 };
    expect(compare(pixels.data, expectedPixels(0, w, -60, 90, "viridis"), 256)).toEqual({
      mismatches: 0,
    });
    expect(pageErrors).toEqual([]);
  });

  it("the time slider reads only plane 2's chunks in view", async () => {
    const from = dataLog.length;
    await afterRead(page, () => page.locator("#index-0").fill("2"));
    expect(chunkKeysFetched(dataLog, from)).toEqual(expectedKeys({ indices: [2, 0, 0] }));
    const pixels = await canvasPixels(page);
    const w = { rowStart: 0, colStart: 0, rows: 256, cols: 256 };
    expect(compare(pixels.data, expectedPixels(2, w, -60, 90, "viridis"), 256)).toEqual({
      mismatches: 0,
    });
  });

  it("panning the window reads the chunks under it; the missing chunk draws transparent", async () => {
    let from = dataLog.length;
    await afterRead(page, () => page.locator("#row-start").fill("44"));
    expect(chunkKeysFetched(dataLog, from)).toEqual(
      expectedKeys({ indices: [2, 0, 0], rowStart: 44 }),
    );
    from = dataLog.length;
    await afterRead(page, () => page.locator("#col-start").fill("144"));
    const keys = chunkKeysFetched(dataLog, from);
    expect(keys).toEqual(expectedKeys({ indices: [2, 0, 0], rowStart: 44, colStart: 144 }));
    expect(keys).toContain(`c/${HOLE.join("/")}`);
    const hole = dataLog.slice(from).find((r) => r.path.endsWith(`/c/${HOLE.join("/")}`));
    expect(hole?.status).toBe(404);
    const pixels = await canvasPixels(page);
    const w = { rowStart: 44, colStart: 144, rows: 256, cols: 256 };
    const expected = expectedPixels(2, w, -60, 90, "viridis");
    expect(compare(pixels.data, expected, 256)).toEqual({ mismatches: 0 });
    // The hole's 44 x 64 elements are transparent.
    let transparent = 0;
    for (let p = 3; p < pixels.data.length; p += 4) if (pixels.data[p] === 0) transparent++;
    expect(transparent).toBe(44 * 64);
  });

  it("changing the colour range and map redraws without reading anything", async () => {
    const from = dataLog.length;
    await page.locator("#min").fill("-20");
    await page.locator("#max").fill("40");
    await page.locator("#cmap").selectOption("diverging");
    const pixels = await canvasPixels(page);
    const w = { rowStart: 44, colStart: 144, rows: 256, cols: 256 };
    expect(compare(pixels.data, expectedPixels(2, w, -20, 40, "diverging"), 256)).toEqual({
      mismatches: 0,
    });
    expect(dataLog.slice(from)).toEqual([]);
  });

  it("saves a screenshot", async () => {
    await page.locator("#cmap").selectOption("viridis");
    await page.locator("#auto-range").click();
    await page.locator("#view").hover({ position: { x: 200, y: 300 } });
    const outDir = join(viewerDir, "test-results");
    mkdirSync(outDir, { recursive: true });
    const file = join(outDir, "viewer.png");
    await page.screenshot({ path: file });
    console.log(`viewer screenshot: ${file}`);
    expect(existsSync(file)).toBe(true);
    expect(await page.locator("#readout").textContent()).toMatch(/^\[\d+, \d+\] = /);
    expect(pageErrors).toEqual([]);
  });

  it("a sharded blosc array (examples/data/weather.zarr) loads blosc on demand and draws its values", async () => {
    const weather = fileURLToPath(new URL("../../data/weather.zarr", import.meta.url));
    const served = await startZarrServe(weather);
    try {
      const assetsBefore = server.log.filter((r) => r.path.endsWith(".js")).length;
      await afterRead(
        page,
        () =>
          page.goto(
            `${server.origin}/app/index.html?store=${encodeURIComponent(served.url)}&array=temperature&min=-5&max=30`,
          ),
        true,
      );
      // The reference: the same plane read in Node from the directory.
      const array = await openArray(new FileSystemStore(weather), "temperature");
      const plane = await array.get([0, null, null]);
      const [rows, cols] = plane.shape as [number, number];
      const table = COLOUR_MAPS.viridis!;
      const expected = new Uint8Array(rows * cols * 4);
      for (let i = 0; i < rows * cols; i++) {
        const k = colourIndex((plane.data as Float32Array)[i]!, -5, 30);
        if (k >= 0) expected.set([table[3 * k]!, table[3 * k + 1]!, table[3 * k + 2]!, 255], 4 * i);
      }
      const pixels = await canvasPixels(page);
      expect([pixels.height, pixels.width]).toEqual([rows, cols]);
      expect(compare(pixels.data, expected, cols)).toEqual({ mismatches: 0 });
      // index.js and, loaded on demand (the page reloaded: they are fetched again), the
      // blosc codec, core's sharding_indexed codec, the crc32c codec of its index and
      // codec-blosc's WebAssembly block kernels (the data is blosc lz4).
      const scripts = server.log.filter((r) => r.path.endsWith(".js")).slice(assetsBefore);
      expect(scripts, scripts.map((r) => r.path).join(", ")).toHaveLength(5);
      expect(scripts.some((r) => /crc32c-[^/]*\.js$/.test(r.path))).toBe(true);
      expect(scripts.some((r) => /kernels-wasm\.generated-[^/]*\.js$/.test(r.path))).toBe(true);
      expect(server.log.some((r) => r.path.endsWith(".wasm"))).toBe(false);
      expect(pageErrors).toEqual([]);
    } finally {
      served.child.kill();
    }
  });

  it("a zstd array loads the codec and its WebAssembly on demand and draws its values", async () => {
    // libzstd's WebAssembly is inlined in a chunk of its own (no .wasm file to serve).
    const isLibzstd = (path: string) => /zstd-wasm\.generated-[^/]*\.js$/.test(path);
    const libzstdBefore = server.log.filter((r) => isLibzstd(r.path)).length;
    await afterRead(
      page,
      () =>
        page.goto(
          `${server.origin}/app/index.html?store=${encodeURIComponent(dataUrl)}&array=small&min=-500&max=500`,
        ),
      true,
    );
    const table = COLOUR_MAPS.viridis!;
    const expected = new Uint8Array(40 * 50 * 4);
    for (let i = 0; i < 40 * 50; i++) {
      const k = colourIndex(((i * 37) % 1001) - 500, -500, 500);
      expected.set([table[3 * k]!, table[3 * k + 1]!, table[3 * k + 2]!, 255], 4 * i);
    }
    const pixels = await canvasPixels(page);
    expect([pixels.height, pixels.width]).toEqual([40, 50]);
    expect(compare(pixels.data, expected, 50)).toEqual({ mismatches: 0 });
    const libzstd = server.log.filter((r) => isLibzstd(r.path)).slice(libzstdBefore);
    expect(libzstd.map((r) => r.status)).toEqual([200]);
    expect(server.log.some((r) => r.path.endsWith(".wasm"))).toBe(false);
    expect(pageErrors).toEqual([]);
  });

  it("reports a missing array in the status line", async () => {
    await page.goto(
      `${server.origin}/app/index.html?store=${encodeURIComponent(dataUrl)}&array=nope`,
    );
    await page.waitForFunction(() => document.getElementById("status")!.dataset.state === "error");
    expect(await page.locator("#status").textContent()).toContain("nope");
  });
});

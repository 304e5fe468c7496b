/**
 * The viewer in a real browser: builds the Vite app and serves it from a local
 * static server; makes the example OME-Zarr pyramids (0.5 sharded v3, 0.4 v2,
 * and a 4096² one) with scripts/make-ome-data.mjs and serves them, and the
 * bundled weather dataset, with `zarr serve` (another origin: CORS and Range as
 * a real deployment); drives Debian's Chromium through playwright-core. Canvas
 * pixels are compared with the colours of values read in Node at two zoom
 * levels and a panned view; requests are counted from the browser's own log;
 * screenshots go to docs/ with VIEWER_SCREENSHOTS=1. Needs `pnpm build` first (the
 * CLI's bin runs dist).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import "@zarr/codec-gzip/register";
import "@zarr/codec-blosc/register";
import "@zarr/v2-compat/register";
import { type NDArray, openArray, slice } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { type BrowserContext, chromium, type Page, type Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script (no types)
import { makeBig, makeOme04, makeOme05 } from "../scripts/make-ome-data.mjs";
import type { ChannelSettings } from "../src/image.js";
import { compositeColour, numberAt } from "../src/render.js";
import type { View } from "../src/tiles.js";
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
    { timeout: 30_000 },
  );
  const state = await page.locator("#status").getAttribute("data-state");
  expect(state, (await page.locator("#status").textContent()) ?? "").toBe("ready");
}

const W = 768;
const H = 512;

/** One plane (y, x) of each channel of an array, read in Node: the reference values. */
async function planes(
  dir: string,
  path: string,
  leading: (c: number) => (number | null)[],
  count: number,
) {
  const array = await openArray(new FileSystemStore(dir), path);
  const out: NDArray[] = [];
  for (let c = 0; c < count; c++) {
    const sel = leading(c).map((i) => (i === null ? slice(0, array.shape[out.length]!) : i));
    out.push(await array.get([...sel, null, null]));
  }
  return out;
}

/**
 * The canvas the viewer should show: each pixel's centre mapped to an element
 * of the level (f level-0 elements per element), its channels composited;
 * transparent outside the image.
 */
function expectedCanvas(
  view: View,
  f: number,
  channelPlanes: NDArray[],
  settings: ChannelSettings[],
): Uint8Array {
  const [rows, cols] = channelPlanes[0]!.shape as [number, number];
  const out = new Uint8Array(W * H * 4);
  const channels = settings
    .map((s, index) => ({ index, settings: s }))
    .filter((c) => c.settings.active);
  for (let py = 0; py < H; py++) {
    const row = Math.floor((view.cy + (py + 0.5 - H / 2) / view.zoom) / f);
    if (row < 0 || row >= rows) continue;
    for (let px = 0; px < W; px++) {
      const col = Math.floor((view.cx + (px + 0.5 - W / 2) / view.zoom) / f);
      if (col < 0 || col >= cols) continue;
      const rgba = compositeColour(channels, (c) => numberAt(channelPlanes[c]!, row * cols + col));
      out.set(rgba, 4 * (py * W + px));
    }
  }
  return out;
}

const tint = (color: [number, number, number], lo: number, hi: number): ChannelSettings => ({
  label: "",
  map: "tint",
  color,
  lo,
  hi,
  active: true,
});

/** The `view` of the page URL (written 100 ms after a change). */
async function urlView(page: Page): Promise<View> {
  await page.waitForFunction(() => new URL(location.href).searchParams.has("view"));
  const [cx, cy, zoom] = new URL(page.url()).searchParams.get("view")!.split(",").map(Number);
  return { cx: cx!, cy: cy!, zoom: zoom! };
}

describe.skipIf(skipReason !== undefined)("viewer in Chromium", () => {
  let work: string;
  let server: StaticServer;
  const served: ChildProcess[] = [];
  let dataUrl = "";
  let weatherUrl = "";
  const dataLog: DataRequest[] = [];
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  const weather = fileURLToPath(new URL("../../data/weather.zarr", import.meta.url));
  // The README's screenshots are rewritten only on request (VIEWER_SCREENSHOTS=1), so
  // a test run leaves the working tree as it was.
  const docs = process.env.VIEWER_SCREENSHOTS
    ? join(viewerDir, "docs")
    : mkdtempSync(join(tmpdir(), "zarr-viewer-shots-"));
  let app = "";

  const open = (store: string, query = "") =>
    afterRead(page, () => page.goto(`${app}?store=${encodeURIComponent(store)}${query}`), true);

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "zarr-viewer-"));
    const appDir = join(work, "app");
    const vite = join(
      dirname(createRequire(import.meta.url).resolve("vite/package.json")),
      "bin/vite.js",
    );
    const data = join(work, "data");
    mkdirSync(data);
    await Promise.all([
      promisify(execFile)(
        process.execPath,
        [vite, "build", "--outDir", appDir, "--logLevel", "warn"],
        { cwd: viewerDir },
      ),
      (async () => {
        await makeOme05(join(data, "ome05.zarr"));
        await makeOme04(join(data, "ome04.zarr"));
        await makeBig(join(data, "big.zarr"));
      })(),
    ]);
    server = await startStaticServer({ "/app/": appDir });
    app = `${server.origin}/app/index.html`;
    const a = await startZarrServe(data);
    const b = await startZarrServe(weather);
    served.push(a.child, b.child);
    dataUrl = a.url;
    weatherUrl = b.url;
    context = await chromium.launchPersistentContext(join(work, "profile"), {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1280, height: 720 },
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
    page.setDefaultTimeout(30_000);
    page.on("pageerror", (e) => pageErrors.push(e.message));
    // Console errors, except the browser's own line for a 404 (absent keys are part of
    // Zarr: a v2 node has no zarr.json, a chunk may be missing).
    page.on("console", (m) => {
      if (m.type() === "error" && !/status of 404/.test(m.text())) pageErrors.push(m.text());
    });
    const entries = new Map<Request, DataRequest>();
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.origin !== new URL(dataUrl).origin && url.origin !== new URL(weatherUrl).origin)
        return;
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
    for (const child of served) child.kill();
    if (work) rmSync(work, { recursive: true, force: true });
    if (!process.env.VIEWER_SCREENSHOTS) rmSync(docs, { recursive: true, force: true });
  });

  const ome05Channels = [tint([0, 255, 0], 0, 4000), tint([255, 0, 255], 500, 3500)];
  const ome05Planes = (level: number) =>
    planes(join(work, "data/ome05.zarr"), String(level), (c) => [c, 1], 2);

  /** Vite's chunk of `@zarr/v2-compat/register` (the v2/v1 formats and numcodecs). */
  const isV2Chunk = (path: string) => /\/assets\/register-[^/]*\.js$/.test(path);

  it("OME-Zarr 0.5 (sharded v3): the fitted view draws level 1 with omero colours and windows", async () => {
    const assetsFrom = server.log.length;
    await open(`${dataUrl}ome05.zarr/`);
    // A v3 image does not load the v2 format's code.
    expect(server.log.slice(assetsFrom).filter((r) => isV2Chunk(r.path))).toEqual([]);
    const view = await urlView(page);
    expect(view).toEqual({ cx: 512, cy: 512, zoom: 0.5 });
    const pixels = await canvasPixels(page);
    expect([pixels.width, pixels.height]).toEqual([W, H]);
    const expected = expectedCanvas(view, 2, await ome05Planes(1), ome05Channels);
    expect(compare(pixels.data, expected, W)).toEqual({ mismatches: 0 });
    // Only level 1 was read: its 4 x 4 inner chunks of z = 1 (defaultZ) for 2 channels.
    const chunkReads = dataLog.filter((r) => /\/ome05\.zarr\/\d+\/c\//.test(r.path));
    expect(chunkReads.every((r) => r.path.includes("/ome05.zarr/1/c/"))).toBe(true);
    const info = await page.locator("#info").textContent();
    expect(info).toContain("OME-Zarr 0.5");
    expect(info).toContain(
      "sharding_indexed (inner chunks [1, 1, 128, 128]; codecs: bytes (endian little) → gzip (level 1); index: bytes (endian little) → crc32c",
    );
    // A level chosen by hand: level 2 drawn 2x at the same view; back to automatic.
    await afterRead(page, () => page.locator("#level").selectOption("2"));
    await page.waitForFunction(() => new URL(location.href).searchParams.get("level") === "2");
    const coarse = expectedCanvas(view, 4, await ome05Planes(2), ome05Channels);
    expect(compare((await canvasPixels(page)).data, coarse, W)).toEqual({ mismatches: 0 });
    await afterRead(page, () => page.locator("#level").selectOption(""));
    expect(compare((await canvasPixels(page)).data, expected, W)).toEqual({ mismatches: 0 });
    expect(pageErrors).toEqual([]);
  });

  it("panning within the tiles already read makes no request", async () => {
    const from = dataLog.length;
    await afterRead(page, async () => {
      await page.mouse.move(400, 300);
      await page.mouse.down();
      await page.mouse.move(430, 320, { steps: 3 });
      await page.mouse.up();
    });
    expect(dataLog.slice(from)).toEqual([]);
  });

  it("a plane seen before is drawn again without requests (decoded chunks kept)", async () => {
    let from = dataLog.length;
    await afterRead(page, () => page.locator("#axis-z").fill("2"));
    expect(dataLog.slice(from).length).toBeGreaterThan(0);
    from = dataLog.length;
    await afterRead(page, () => page.locator("#axis-z").fill("1"));
    expect(dataLog.slice(from)).toEqual([]);
    const expected = expectedCanvas(await urlView(page), 2, await ome05Planes(1), ome05Channels);
    expect(compare((await canvasPixels(page)).data, expected, W)).toEqual({ mismatches: 0 });
  });

  it("zooming in shows the coarser level's tiles already read while the finer ones load", async () => {
    // Hold every level-0 chunk request until the placeholder is checked.
    let release = () => {};
    const gate = new Promise<void>((ok) => {
      release = ok;
    });
    const pattern = /\/ome05\.zarr\/0\/c\//;
    await page.route(pattern, async (route) => {
      await gate;
      // The page may have moved on (a failed check): the request is gone then.
      await route.continue().catch(() => {});
    });
    try {
      await page.locator("#zoom-in").click();
      await page.waitForFunction(
        () =>
          document.getElementById("status")!.dataset.state === "loading" &&
          new URL(location.href).searchParams.get("view")?.endsWith(",1"),
      );
      const view = await urlView(page);
      expect(view.zoom).toBe(1);
      // Level 1 drawn 2x: every canvas pixel from the level-1 values.
      const placeholder = expectedCanvas(view, 2, await ome05Planes(1), ome05Channels);
      expect(compare((await canvasPixels(page)).data, placeholder, W)).toEqual({ mismatches: 0 });
      await afterRead(page, async () => release());
      const final = expectedCanvas(view, 1, await ome05Planes(0), ome05Channels);
      expect(compare((await canvasPixels(page)).data, final, W)).toEqual({ mismatches: 0 });
    } finally {
      release();
      await page.unroute(pattern);
    }
  });

  it("zoomed in to level 0 and panned by dragging: pixels match level 0, and the URL restores the view", async () => {
    await open(`${dataUrl}ome05.zarr/`, "&view=512,512,1");
    let view = await urlView(page);
    const level0 = await ome05Planes(0);
    let expected = expectedCanvas(view, 1, level0, ome05Channels);
    expect(compare((await canvasPixels(page)).data, expected, W)).toEqual({ mismatches: 0 });
    const box = (await page.locator("#view").boundingBox())!;
    await page.mouse.move(box.x + 400, box.y + 300);
    await page.mouse.down();
    await page.mouse.move(box.x + 300, box.y + 250, { steps: 4 });
    await page.mouse.up();
    // The drag's last move is in the URL (written 100 ms after it) and its tiles are drawn.
    await page.waitForFunction(
      () =>
        new URL(location.href).searchParams.get("view") === "612,562,1" &&
        document.getElementById("status")!.dataset.state === "ready",
    );
    view = await urlView(page);
    expect(view).toEqual({ cx: 612, cy: 562, zoom: 1 });
    expected = expectedCanvas(view, 1, level0, ome05Channels);
    expect(compare((await canvasPixels(page)).data, expected, W)).toEqual({ mismatches: 0 });
    // Values and coordinates under the cursor, with units.
    await page.mouse.move(box.x + 384, box.y + 256);
    const readout = await page.locator("#readout").textContent();
    const v = numberAt(level0[0]!, 562 * 1024 + 612);
    expect(readout).toContain("[562, 612]");
    expect(readout).toContain("x 306 micrometer");
    expect(readout).toContain(`rings ${v}`);
    // The URL holds the state: a reload draws the same pixels.
    await afterRead(page, () => page.reload(), true);
    expect(compare((await canvasPixels(page)).data, expected, W)).toEqual({ mismatches: 0 });
    mkdirSync(docs, { recursive: true });
    await page.mouse.move(box.x + 384, box.y + 256);
    await expect.poll(() => page.locator("#readout").textContent()).toContain("[562, 612]");
    await page.screenshot({ path: join(docs, "ome05-level0.png") });
    expect(pageErrors).toEqual([]);
  });

  it("a 4096² pyramid: the first image reads at most 6 chunks (level 3's four)", async () => {
    const from = dataLog.length;
    await open(`${dataUrl}big.zarr/`);
    const chunks = dataLog.slice(from).filter((r) => /\/big\.zarr\/\d+\/c\//.test(r.path));
    expect(chunks.length).toBeLessThanOrEqual(6);
    expect(chunks.map((r) => r.path).sort()).toEqual(
      ["0/0", "0/1", "1/0", "1/1"].map((k) => `/big.zarr/3/c/${k}`),
    );
    expect(await urlView(page)).toEqual({ cx: 2048, cy: 2048, zoom: 0.125 });
    // The wheel zooms by 1.25 around the cursor: the point under it stays put.
    // (Mouse events land on whole CSS pixels; the canvas may not start on one.)
    const box = (await page.locator("#view").boundingBox())!;
    const [mx, my] = [Math.round(box.x) + 100, Math.round(box.y) + 100];
    await page.mouse.move(mx, my);
    await afterRead(page, () => page.mouse.wheel(0, -100));
    await page.waitForFunction(
      () => new URL(location.href).searchParams.get("view") !== "2048,2048,0.125",
    );
    const zoomed = await urlView(page);
    const [px, py] = [mx - box.x, my - box.y];
    expect(zoomed.zoom).toBe(0.15625);
    // The level-0 point under the cursor, before and after.
    expect(zoomed.cx + (px - W / 2) / zoomed.zoom).toBeCloseTo(2048 + (px - W / 2) / 0.125, 3);
    expect(zoomed.cy + (py - H / 2) / zoomed.zoom).toBeCloseTo(2048 + (py - H / 2) / 0.125, 3);
    const all = dataLog.slice(from);
    console.log(
      `4096² pyramid, first image: ${all.length} requests (${chunks.length} chunks): ${all.map((r) => r.path).join(" ")}`,
    );
  });

  it("OME-Zarr 0.4 (v2): loads the v2 format on demand, three tinted channels, the time slider", async () => {
    const assetsFrom = server.log.length;
    await open(`${dataUrl}ome04.zarr/`);
    // The v2 support is fetched once the image turns out to be v2 (.zattrs/.zgroup).
    expect(server.log.slice(assetsFrom).filter((r) => isV2Chunk(r.path))).toHaveLength(1);
    const channels = [
      tint([255, 0, 0], 0, 255),
      tint([0, 255, 0], 0, 255),
      tint([0, 0, 255], 0, 255),
    ];
    const dir = join(work, "data/ome04.zarr");
    let view = await urlView(page);
    expect(view.zoom).toBe(1);
    let expected = expectedCanvas(view, 1, await planes(dir, "0", (c) => [0, c], 3), channels);
    expect(compare((await canvasPixels(page)).data, expected, W)).toEqual({ mismatches: 0 });
    await afterRead(page, () => page.locator("#axis-t").fill("1"));
    view = await urlView(page);
    expected = expectedCanvas(view, 1, await planes(dir, "0", (c) => [1, c], 3), channels);
    expect(compare((await canvasPixels(page)).data, expected, W)).toEqual({ mismatches: 0 });
    expect(pageErrors).toEqual([]);
  });

  it("the weather dataset: the sharded blosc array and the v2 legacy/pressure draw their values", async () => {
    for (const [path, lo, hi, leading] of [
      ["temperature", -5, 30, [0]],
      ["legacy/pressure", 10080, 10180, [0]],
    ] as const) {
      await open(weatherUrl, `&path=${path}&ch=${lo}:${hi}:1`);
      const view = await urlView(page);
      const plane = await planes(weather, path, () => [...leading], 1);
      const expected = expectedCanvas(view, 1, plane, [
        { label: "", map: "viridis", color: [0, 0, 0], lo, hi, active: true },
      ]);
      expect(compare((await canvasPixels(page)).data, expected, W), path).toEqual({
        mismatches: 0,
      });
      if (path === "temperature") {
        const box = (await page.locator("#view").boundingBox())!;
        await page.mouse.move(box.x + 300, box.y + 200);
        await page.screenshot({ path: join(docs, "weather.png") });
      }
    }
    expect(await page.locator("#info").textContent()).toContain("zarr v2");
    // The store cannot list: the tree holds the paths opened.
    expect(await page.locator("#tree").textContent()).toContain("cannot be listed");
    expect(pageErrors).toEqual([]);
  });

  it("a local folder (<input webkitdirectory>): the tree lists the hierarchy, v2 nodes included; a click opens an array", async () => {
    await page.goto(app);
    await afterRead(page, () => page.locator("#dir-files").setInputFiles(weather));
    const tree = page.locator("#tree");
    for (const path of [
      "temperature",
      "masks",
      "legacy",
      "legacy/pressure",
      "legacy/station_ids",
    ]) {
      await expect.poll(() => tree.locator(`button[data-path="${path}"]`).count()).toBe(1);
    }
    await afterRead(page, () => tree.locator('button[data-path="legacy/pressure"]').click());
    await afterRead(page, () => page.locator("#ch-0-lo").fill("10080"));
    await afterRead(page, () => page.locator("#ch-0-hi").fill("10180"));
    const plane = await planes(weather, "legacy/pressure", () => [0], 1);
    const expected = expectedCanvas(await urlView(page), 1, plane, [
      { label: "", map: "viridis", color: [0, 0, 0], lo: 10080, hi: 10180, active: true },
    ]);
    expect(compare((await canvasPixels(page)).data, expected, W)).toEqual({ mismatches: 0 });
    await page.screenshot({ path: join(docs, "local-folder.png") });
    expect(pageErrors).toEqual([]);
  });

  it("a .zip of a folder, local and from a URL: the hierarchy inside is found and drawn", async () => {
    const zipFile = join(work, "ome04.zip");
    try {
      await promisify(execFile)("zip", ["-q", "-r", zipFile, "ome04.zarr"], {
        cwd: join(work, "data"),
      });
    } catch (e) {
      console.warn(`zip not available (${(e as Error).message}): zip file test skipped`);
      return;
    }
    await page.goto(app);
    await afterRead(page, () => page.locator("#zip-file").setInputFiles(zipFile));
    const channels = [
      tint([255, 0, 0], 0, 255),
      tint([0, 255, 0], 0, 255),
      tint([0, 0, 255], 0, 255),
    ];
    const expected = expectedCanvas(
      await urlView(page),
      1,
      await planes(join(work, "data/ome04.zarr"), "0", (c) => [0, c], 3),
      channels,
    );
    expect(compare((await canvasPixels(page)).data, expected, W)).toEqual({ mismatches: 0 });
    // The same archive from a URL, read by ranges (central directory, then the entries in view).
    copyFileSync(zipFile, join(work, "data/ome04.zip"));
    const from = dataLog.length;
    await open(`${dataUrl}ome04.zip`);
    expect(compare((await canvasPixels(page)).data, expected, W)).toEqual({ mismatches: 0 });
    expect(dataLog.slice(from).every((r) => r.path === "/ome04.zip")).toBe(true);
    expect(pageErrors).toEqual([]);
  });

  it("reports a missing node in the status line", async () => {
    await page.goto(`${app}?store=${encodeURIComponent(weatherUrl)}&path=nope`);
    await page.waitForFunction(() => document.getElementById("status")!.dataset.state === "error");
    expect(await page.locator("#status").textContent()).toContain("nope");
  });
});

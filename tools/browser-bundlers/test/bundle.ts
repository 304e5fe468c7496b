/**
 * Builds app/main.js with each bundler as an application would, with nothing
 * specific to WebAssembly: no loader, no plugin for assets, no configuration
 * beyond the entry and the output directory (Rollup gets node-resolve, without
 * which it resolves no package at all). Each output directory gets an
 * index.html that loads the bundle.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { nodeResolve } from "@rollup/plugin-node-resolve";
import { build as esbuild } from "esbuild";
import { rollup } from "rollup";
import { build as viteBuild } from "vite";
import webpack from "webpack";

export const appDir = fileURLToPath(new URL("../app", import.meta.url));
const entry = join(appDir, "main.js");

function page(out: string, script: string): void {
  writeFileSync(
    join(out, "index.html"),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"></head><body>${script}</body></html>\n`,
  );
}

/** `esbuild app/main.js --bundle --format=esm --splitting --platform=browser --outdir=out` */
export async function buildEsbuild(out: string): Promise<void> {
  await esbuild({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    splitting: true,
    platform: "browser",
    outdir: out,
    logLevel: "silent",
  });
  page(out, '<script type="module" src="./main.js"></script>');
}

/** `vite build` of app/ (app/index.html), without a config file. */
export async function buildVite(out: string): Promise<void> {
  await viteBuild({
    root: appDir,
    configFile: false,
    logLevel: "silent",
    base: "./",
    build: { outDir: out, emptyOutDir: true },
  });
}

/** `webpack --mode production` with the entry and output path only. */
export async function buildWebpack(out: string): Promise<void> {
  const compiler = webpack({
    mode: "production",
    context: appDir,
    entry: "./main.js",
    output: { path: out, filename: "main.js" },
    performance: { hints: false },
  });
  await new Promise<void>((ok, fail) => {
    compiler.run((error, stats) => {
      compiler.close(() => {});
      if (error) fail(error);
      else if (stats?.hasErrors()) fail(new Error(stats.toString("errors-only")));
      else ok();
    });
  });
  page(out, '<script src="./main.js"></script>');
}

/** `rollup app/main.js -p node-resolve={browser:true} -f es -d out` */
export async function buildRollup(out: string): Promise<void> {
  const bundle = await rollup({
    input: entry,
    plugins: [nodeResolve({ browser: true })],
    logLevel: "silent",
  });
  await bundle.write({ dir: out, format: "es" });
  await bundle.close();
  page(out, '<script type="module" src="./main.js"></script>');
}

interface Manifest {
  name: string;
  exports: Record<string, string | Record<string, string>>;
  imports?: Record<string, Record<string, string | Record<string, string>>>;
}

/**
 * No bundler: the app and the packages' dist files as they are, served under
 * /pkg/<dir>/ (the repository's packages/<dir>), with an import map for the
 * bare specifiers, as a page written by hand would do.
 */
export function noBundlerPage(out: string, packagesDir: string, dirs: string[]): void {
  const imports: Record<string, string> = {};
  const scopes: Record<string, Record<string, string>> = {};
  const target = (t: string | Record<string, string>) =>
    typeof t === "string" ? t : (t.browser ?? t.default)!;
  for (const dir of dirs) {
    const m = JSON.parse(readFileSync(join(packagesDir, dir, "package.json"), "utf8")) as Manifest;
    for (const [key, value] of Object.entries(m.exports)) {
      if (key.endsWith(".json")) continue;
      imports[m.name + key.slice(1)] = `/pkg/${dir}/${target(value).replace(/^\.\//, "")}`;
    }
    for (const [key, value] of Object.entries(m.imports ?? {})) {
      const t = target(value as Record<string, string>);
      scopes[`/pkg/${dir}/`] ??= {};
      scopes[`/pkg/${dir}/`]![key] = `/pkg/${dir}/${t.replace(/^\.\//, "")}`;
    }
  }
  if (existsSync(out)) rmSync(out, { recursive: true });
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "main.js"), readFileSync(entry));
  page(
    out,
    `<script type="importmap">${JSON.stringify({ imports, scopes })}</script>` +
      '<script type="module" src="./main.js"></script>',
  );
}

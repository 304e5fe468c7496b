/**
 * Bundles one entry the way a browser application would (esbuild, platform
 * "browser", the packages' published `dist` files, minified ESM) and measures
 * it: minified bytes, gzip -9 bytes, the Node built-ins left in the output,
 * the biggest input modules, and WebAssembly assets loaded next to the bundle.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { gzipSync } from "node:zlib";
import { build, type Metafile, type Plugin } from "esbuild";
import { isNodeBuiltin, NODE_BUILTIN_FILTER } from "./node-builtins.js";

/** A Node built-in import found in a browser bundle, and the module that imports it. */
export interface BuiltinImport {
  specifier: string;
  importer: string;
}

/** One input module's share of the minified output. */
export interface InputShare {
  path: string;
  bytes: number;
}

/** A file the bundle loads at run time (`new URL("./x.wasm", import.meta.url)`). */
export interface RuntimeAsset {
  path: string;
  bytes: number;
  gzipBytes: number;
}

/** What {@link measureEntry} found. */
export interface BundleMeasurement {
  /** Minified bytes loaded up front: the entry chunk and the chunks it imports statically. */
  minBytes: number;
  /** gzip -9 bytes of the same (each file compressed on its own, as served). */
  gzipBytes: number;
  /** gzip -9 bytes of chunks loaded only on demand (`import()`), e.g. an encoder. */
  lazyGzipBytes: number;
  builtins: BuiltinImport[];
  inputs: InputShare[];
  assets: RuntimeAsset[];
}

/** gzip at level 9, as served by a well-configured static host. */
export function gzipSize(data: Uint8Array): number {
  return gzipSync(data, { level: 9 }).length;
}

/**
 * Marks Node built-ins external instead of failing the build, remembering who
 * imported them; whether they survive tree shaking is read from the metafile.
 */
function recordBuiltins(seen: Map<string, string>): Plugin {
  return {
    name: "record-node-builtins",
    setup(b) {
      b.onResolve({ filter: NODE_BUILTIN_FILTER }, (args) => {
        if (!seen.has(args.path)) seen.set(args.path, args.importer);
        return { path: args.path, external: true };
      });
    },
  };
}

/** `new URL("./file", import.meta.url)` references, which bundlers emit as assets. */
const ASSET_URL = /new URL\(\s*["'`](\.{1,2}\/[^"'`]+)["'`]\s*,\s*import\.meta\.url\s*\)/g;

function runtimeAssets(metafile: Metafile, absWorkingDir: string): RuntimeAsset[] {
  const assets: RuntimeAsset[] = [];
  for (const input of Object.keys(metafile.inputs)) {
    const file = resolve(absWorkingDir, input);
    if (!/\.[cm]?js$/.test(file)) continue;
    for (const match of readFileSync(file, "utf8").matchAll(ASSET_URL)) {
      const assetPath = resolve(dirname(file), match[1]!);
      const data = readFileSync(assetPath);
      assets.push({ path: assetPath, bytes: data.length, gzipBytes: gzipSize(data) });
    }
  }
  return assets;
}

/** An output file's path as the metafile names it (relative to the working directory). */
function relativeOutput(path: string, absWorkingDir: string): string {
  return relative(absWorkingDir, path).split(sep).join("/");
}

/** An entry module: a path relative to the working directory, or its source text. */
export type Entry = string | { contents: string };

/** Bundles `entry` for browsers, resolving packages from `absWorkingDir`, and measures the result. */
export async function measureEntry(
  entry: Entry,
  absWorkingDir: string,
): Promise<BundleMeasurement> {
  const seen = new Map<string, string>();
  const result = await build({
    ...(typeof entry === "string"
      ? { entryPoints: [entry] }
      : { stdin: { contents: entry.contents, resolveDir: absWorkingDir, loader: "ts" as const } }),
    absWorkingDir,
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    // Code behind import() goes to its own chunks, as application bundlers do:
    // the budget counts what a page loads up front.
    splitting: true,
    outdir: "out",
    write: false,
    metafile: true,
    logLevel: "silent",
    plugins: [recordBuiltins(seen)],
  });
  const outputs = result.metafile.outputs;
  // Chunks behind import() are entry points too: find the one of `entry` itself.
  const entryPoint = typeof entry === "string" ? entry.replace(/^\.\//, "") : "<stdin>";
  const entryName = Object.keys(outputs).find((name) => outputs[name]!.entryPoint === entryPoint);
  if (!entryName) throw new Error("esbuild produced no entry output");
  // The entry chunk and, transitively, the chunks it imports statically.
  const initial = new Set<string>([entryName]);
  for (const name of initial) {
    for (const imp of outputs[name]!.imports) {
      if (imp.kind === "import-statement" && !imp.external && outputs[imp.path])
        initial.add(imp.path);
    }
  }
  const contents = new Map(
    result.outputFiles.map((f) => [relativeOutput(f.path, absWorkingDir), f.contents] as const),
  );
  let minBytes = 0;
  let gzipBytes = 0;
  let lazyGzipBytes = 0;
  for (const [name, data] of contents) {
    if (!name.endsWith(".js")) continue;
    if (initial.has(name)) {
      minBytes += data.length;
      gzipBytes += gzipSize(data);
    } else {
      lazyGzipBytes += gzipSize(data);
    }
  }
  const builtins = Object.values(outputs)
    .flatMap((o) => o.imports)
    .filter((imp) => imp.external && isNodeBuiltin(imp.path))
    .map((imp) => ({ specifier: imp.path, importer: seen.get(imp.path) ?? "?" }));
  const inputs = [...initial]
    .flatMap((name) => Object.entries(outputs[name]!.inputs))
    .map(([path, info]) => ({ path, bytes: info.bytesInOutput }))
    .filter((share) => share.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
  return {
    minBytes,
    gzipBytes,
    lazyGzipBytes,
    builtins,
    inputs,
    assets: runtimeAssets(result.metafile, absWorkingDir),
  };
}

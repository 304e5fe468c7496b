/**
 * Bundles one entry the way a browser application would (esbuild, platform
 * "browser", the packages' published `dist` files, minified ESM) and measures
 * it: minified bytes, gzip -9 bytes, the Node built-ins left in the output,
 * the biggest input modules, and WebAssembly assets loaded next to the bundle.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
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
  minBytes: number;
  gzipBytes: number;
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
    write: false,
    metafile: true,
    logLevel: "silent",
    plugins: [recordBuiltins(seen)],
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error("esbuild produced no output");
  const outputMeta = Object.values(result.metafile.outputs)[0]!;
  const builtins = outputMeta.imports
    .filter((imp) => imp.external && isNodeBuiltin(imp.path))
    .map((imp) => ({ specifier: imp.path, importer: seen.get(imp.path) ?? "?" }));
  const inputs = Object.entries(outputMeta.inputs)
    .map(([path, info]) => ({ path, bytes: info.bytesInOutput }))
    .filter((share) => share.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
  return {
    minBytes: output.contents.length,
    gzipBytes: gzipSize(output.contents),
    builtins,
    inputs,
    assets: runtimeAssets(result.metafile, absWorkingDir),
  };
}

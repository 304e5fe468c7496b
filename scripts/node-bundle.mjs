#!/usr/bin/env node
/**
 * Builds a package's Node entry points over one bundled module.
 *
 *   node ../../scripts/node-bundle.mjs        (in a package, after `tsc`)
 *
 * Node loads ES modules one file at a time (resolution, a read, a compile and
 * a link each), and Node 20 keeps no compile cache: core's 76 modules were
 * 45-65 ms of every `zarr` command and every worker's start on a 2-core
 * machine. For every exports entry whose `node` condition names the
 * `*.node.js` file beside its `default` file, this writes that file:
 *
 * - an entry without side effects becomes a facade re-exporting, from
 *   `dist/node-bundle.js`, exactly what its `default` file exports;
 * - an entry the manifest lists in `sideEffects` (`register`) keeps its own
 *   code, with its imports of the package's modules pointed at the bundle.
 *
 * The bundle (esbuild, ESM, names kept, dependencies left as imports) holds
 * each of the package's modules once, so a package's state (its registries, a
 * shared pool) stays one per process whichever entries a program imports, as
 * with the per-module files that browsers and bundlers use through `default`.
 * An entry without a `node` condition stays per-module and out of the bundle.
 * The build fails unless every written file loads and exports what its
 * `default` file does, and when an entry's Node file would load a package its
 * per-module graph loads only on demand.
 *
 * esbuild comes from the calling package's devDependencies.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import { pathToFileURL } from "node:url";

const pkgDir = process.cwd();
const distDir = join(pkgDir, "dist");
const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
const { build } = createRequire(join(pkgDir, "package.json"))("esbuild");
const fail = (message) => {
  throw new Error(`${manifest.name}: ${message}`);
};

const sideEffectFiles = new Set(
  (Array.isArray(manifest.sideEffects) ? manifest.sideEffects : []).map((p) => join(pkgDir, p)),
);
/**
 * Entries with a Node file: its `default` file, its node file, whether it has
 * side effects, and the package modules it imports statically (itself, for a
 * facade; filled in while building a side-effect entry).
 */
const entries = Object.values(manifest.exports ?? {})
  .filter((c) => typeof c === "object" && c.node?.endsWith(".node.js"))
  .map((c) => {
    if (c.node !== c.default.replace(/\.js$/, ".node.js")) {
      fail(`the node condition ${c.node} must sit beside ${c.default}`);
    }
    const file = join(pkgDir, c.default);
    const effects = sideEffectFiles.has(file);
    return { file, nodeFile: join(pkgDir, c.node), effects, staticImports: effects ? [] : [file] };
  });
if (entries.length === 0) fail("no exports entry has a *.node.js node condition");
// The bundle resolves the package's own `imports` map (`#engine`) once, as
// Node does. Where that map has browser variants, a Node process run with
// `--conditions=browser` must keep getting them: each entry then names its
// per-module file under `browser`, ahead of `node`.
const hasBrowserVariant = (value) =>
  typeof value === "object" &&
  value !== null &&
  Object.entries(value).some(([k, v]) => k === "browser" || hasBrowserVariant(v));
if (hasBrowserVariant(manifest.imports)) {
  for (const c of Object.values(manifest.exports)) {
    if (typeof c === "object" && c.node?.endsWith(".node.js") && c.browser !== c.default) {
      fail(
        `its imports map has browser variants: the entry of ${c.default} needs "browser": "${c.default}" before "node"`,
      );
    }
  }
}
/**
 * Entries left without a Node file stay per-module in Node too, and out of the
 * bundle: an entry whose graph loads packages the others must not (store-reference's
 * `./parquet`, the Parquet reader the package imports on demand). They must hold
 * no state the bundle's modules share, as they get their own copies of the modules
 * they import.
 */
const perModuleFiles = new Set(
  Object.values(manifest.exports ?? {})
    .filter((c) => typeof c === "object" && typeof c.default === "string" && c.node === undefined)
    .map((c) => join(pkgDir, c.default)),
);
/** A relative import of a per-module entry's file, made from `fromFile` (it stays an import). */
const perModuleImport = (args, fromFile) => {
  const file = join(dirname(args.importer), args.path);
  return perModuleFiles.has(file)
    ? { path: importPath(fromFile, file), external: true }
    : undefined;
};

const bundle = join(distDir, "node-bundle.js");
const importPath = (fromFile, toFile) => {
  const path = relative(dirname(fromFile), toFile).split(sep).join("/");
  return path.startsWith(".") ? path : `./${path}`;
};
const common = {
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Class and function names (error names, messages) stay as written.
  keepNames: true,
  // Dependencies (other packages, Node's) stay imports.
  packages: "external",
  legalComments: "none",
  logLevel: "warning",
};

// Side-effect entries: their own code, every import of the package's modules
// taken from the bundle, which re-exports those modules for them.
const reexported = new Set(entries.filter((e) => !e.effects).map((e) => e.file));
for (const entry of entries.filter((e) => e.effects)) {
  const toBundle = {
    name: "package-modules-from-the-bundle",
    setup(b) {
      b.onResolve({ filter: /^\./ }, (args) => {
        if (args.importer !== entry.file) fail(`${args.importer} is not an entry`);
        const kept = perModuleImport(args, entry.nodeFile);
        if (kept) return kept;
        const file = join(dirname(args.importer), args.path);
        reexported.add(file);
        if (args.kind === "import-statement") entry.staticImports.push(file);
        return { path: importPath(entry.nodeFile, bundle), external: true };
      });
    },
  };
  await build({
    ...common,
    entryPoints: [entry.file],
    outfile: entry.nodeFile,
    sourcemap: true,
    plugins: [toBundle],
  });
}

// A name two re-exported modules both export must be the same value there:
// `export *` silently drops a name two modules export differently.
const values = new Map();
for (const file of reexported) {
  const module = await import(pathToFileURL(file).href);
  for (const [name, value] of Object.entries(module)) {
    if (values.has(name) && values.get(name) !== value) {
      fail(`two modules of the bundle export different values named ${name}`);
    }
    values.set(name, value);
  }
}
const { metafile } = await build({
  ...common,
  stdin: {
    contents: [...reexported].map((f) => `export * from ${JSON.stringify(f)};`).join("\n"),
    resolveDir: pkgDir,
    sourcefile: "node-bundle-entry.js",
  },
  sourcemap: true,
  metafile: true,
  outfile: bundle,
  plugins: [
    {
      name: "per-module-entries-stay-imports",
      setup(b) {
        b.onResolve({ filter: /^\./ }, (args) => perModuleImport(args, bundle));
      },
    },
  ],
});

// esbuild lifts every package a bundled module imports to the bundle's top,
// also for modules the package imports lazily (`await import("./parquet.js")`
// to load a parser only when needed): loading the bundle would load them. So
// an entry's Node file may statically load no package its per-module graph
// loads only lazily; such a module must import that package with `import()`.
const packageOf = (path) =>
  path
    .split("/")
    .slice(0, path.startsWith("@") ? 2 : 1)
    .join("/");
const staticPackages = (files) => {
  const seen = new Set();
  const found = new Set();
  const queue = files.map((f) => relative(pkgDir, f).split(sep).join("/"));
  while (queue.length > 0) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    for (const i of metafile.inputs[file]?.imports ?? []) {
      if (i.kind !== "import-statement") continue;
      if (i.external) found.add(packageOf(i.path));
      else queue.push(i.path);
    }
  }
  return found;
};
const bundled = (metafile.outputs[relative(pkgDir, bundle).split(sep).join("/")]?.imports ?? [])
  .filter((i) => i.external && i.kind === "import-statement")
  .map((i) => packageOf(i.path));
for (const entry of entries) {
  if (entry.staticImports.length === 0) continue; // a register importing the bundle lazily
  const own = staticPackages(entry.staticImports);
  const lazy = [...new Set(bundled)].filter((p) => !own.has(p) && !p.startsWith("node:"));
  if (lazy.length > 0) {
    fail(
      `${relative(pkgDir, entry.nodeFile)} would load ${lazy.join(", ")}, which ${relative(pkgDir, entry.file)} loads only lazily or not at all: import ${lazy.length > 1 ? "them" : "it"} with import() where needed`,
    );
  }
}

// Facades for the entries without side effects.
for (const entry of entries.filter((e) => !e.effects)) {
  const names = Object.keys(await import(pathToFileURL(entry.file).href));
  const from = JSON.stringify(importPath(entry.nodeFile, bundle));
  writeFileSync(
    entry.nodeFile,
    names.length > 0 ? `export { ${names.join(", ")} } from ${from};\n` : `import ${from};\n`,
  );
}

// Every Node file loads; a facade exports what its `default` file does. (A
// side-effect entry's `default` file is not imported: its effects would run twice.)
for (const entry of entries) {
  const got = Object.keys(await import(pathToFileURL(entry.nodeFile).href)).join();
  if (entry.effects) continue;
  const expected = Object.keys(await import(pathToFileURL(entry.file).href)).join();
  if (got !== expected) fail(`${entry.nodeFile} exports ${got} instead of ${expected}`);
}

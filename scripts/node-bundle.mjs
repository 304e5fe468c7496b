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
 * The build fails unless every written file loads and exports what its
 * `default` file does.
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
/** Entries with a Node file: its `default` file, its node file, whether it has side effects. */
const entries = Object.values(manifest.exports ?? {})
  .filter((c) => typeof c === "object" && c.node?.endsWith(".node.js"))
  .map((c) => {
    if (c.node !== c.default.replace(/\.js$/, ".node.js")) {
      fail(`the node condition ${c.node} must sit beside ${c.default}`);
    }
    const file = join(pkgDir, c.default);
    return { file, nodeFile: join(pkgDir, c.node), effects: sideEffectFiles.has(file) };
  });
if (entries.length === 0) fail("no exports entry has a *.node.js node condition");

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
        reexported.add(join(dirname(args.importer), args.path));
        return { path: importPath(entry.nodeFile, bundle), external: true };
      });
    },
  };
  await build({
    ...common,
    entryPoints: [entry.file],
    outfile: entry.nodeFile,
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
await build({
  ...common,
  stdin: {
    contents: [...reexported].map((f) => `export * from ${JSON.stringify(f)};`).join("\n"),
    resolveDir: pkgDir,
    sourcefile: "node-bundle-entry.js",
  },
  sourcemap: true,
  outfile: bundle,
});

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

// The Node entry points (`node` condition, scripts/node-bundle.mjs; issue 18):
// each package's entries load in Node from one bundled module instead of one
// file per source module. Checked in child processes, which resolve package
// names with Node's own conditions, as users' programs do: every Node entry
// exports what its per-module entry does; a package's entries share one
// module instance (one registry, one store class); register modules still
// load no implementation; and importing core loads a handful of files.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const packagesDir = fileURLToPath(new URL("../../../packages/", import.meta.url));
const hook = fileURLToPath(new URL("./fixtures/record-loads.mjs", import.meta.url));

interface Entry {
  specifier: string;
  defaultFile: string;
  nodeFile: string;
  effects: boolean;
}

/** Packages with Node entry points, and their entries. */
const PACKAGES = readdirSync(packagesDir)
  .filter((p) => existsSync(join(packagesDir, p, "package.json")))
  .map((p) => {
    const manifest = JSON.parse(readFileSync(join(packagesDir, p, "package.json"), "utf8"));
    const effects = new Set<string>(
      Array.isArray(manifest.sideEffects) ? manifest.sideEffects : [],
    );
    const entries: Entry[] = Object.entries(manifest.exports ?? {}).flatMap(([sub, c]) => {
      const conditions = c as Record<string, string>;
      if (typeof conditions !== "object" || !conditions.node?.endsWith(".node.js")) return [];
      return [
        {
          specifier: `${manifest.name}${sub.slice(1)}`,
          defaultFile: join(packagesDir, p, conditions.default),
          nodeFile: join(packagesDir, p, conditions.node),
          effects: effects.has(conditions.default),
        },
      ];
    });
    const browserVariants = JSON.stringify(manifest.imports ?? {}).includes('"browser"');
    return { dir: p, name: manifest.name as string, entries, browserVariants };
  })
  .filter((p) => p.entries.length > 0);

/**
 * Runs `code` as an ES module in a child Node process started in `cwd` (so that
 * package names resolve from there); returns its stdout, parsed as JSON.
 */
function runChild(
  code: string,
  cwd: string,
  env: Record<string, string> = {},
  args: string[] = [],
) {
  const r = spawnSync(process.execPath, [...args, "--input-type=module", "-e", code], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/** The third-party packages (their node_modules paths) that importing `specifier` (from `cwd`) loads. */
function thirdPartyLoaded(specifier: string, cwd: string): string[] {
  const urls = urlsLoaded(specifier, cwd);
  const names = urls.flatMap((u) => {
    // The last node_modules of the path (pnpm's are under node_modules/.pnpm/…).
    const m = [...u.matchAll(/\/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].at(-1);
    return m && !m[1].startsWith("@zarr/") ? [m[1]] : [];
  });
  return [...new Set(names)].sort();
}

/** The URLs of the modules that importing `specifier` (from `cwd`) loads. */
function urlsLoaded(specifier: string, cwd: string): string[] {
  const tmp = mkdtempSync(join(tmpdir(), "node-bundle-loads-"));
  try {
    const log = join(tmp, "loads.txt");
    runChild(
      `await import(${JSON.stringify(specifier)}); console.log("[]");`,
      cwd,
      { RECORD_LOADS: log },
      ["--import", hook],
    );
    return readFileSync(log, "utf8").split("\n").filter(Boolean);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The files of `dir`'s dist that importing `specifier` (from `cwd`) loads. */
function filesLoaded(specifier: string, dir: string, cwd: string): string[] {
  const own = pathToFileURL(join(packagesDir, dir, "dist")).href;
  const files = urlsLoaded(specifier, cwd)
    .filter((u) => u.startsWith(`${own}/`))
    .map((u) => u.slice(own.length + 1));
  return [...new Set(files)];
}

describe("Node entry points", () => {
  it("are found (core, v2-compat, the codecs and the stores)", () => {
    const names = PACKAGES.map((p) => p.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "@zarr/core",
        "@zarr/v2-compat",
        "@zarr/store-fs",
        "@zarr/codec-blosc",
      ]),
    );
  });

  it.each(PACKAGES)(
    "$name: each resolves in Node and exports what its per-module entry does",
    (pkg) => {
      const cwd = join(packagesDir, pkg.dir);
      const pure = pkg.entries.filter((e) => !e.effects);
      const pairs = pure.map((e) => [e.specifier, pathToFileURL(e.defaultFile).href]);
      const got = runChild(
        `const out = [];
       for (const [specifier, perModuleUrl] of ${JSON.stringify(pairs)}) {
         const names = Object.keys(await import(specifier));
         const perModule = Object.keys(await import(perModuleUrl));
         out.push({ resolved: import.meta.resolve(specifier), same: names.join() === perModule.join() });
       }
       console.log(JSON.stringify(out));`,
        cwd,
      );
      for (const [i, entry] of pure.entries()) {
        expect(got[i].resolved, entry.specifier).toBe(pathToFileURL(entry.nodeFile).href);
        expect(got[i].same, `${entry.specifier} exports what ${entry.defaultFile} does`).toBe(true);
      }
    },
  );

  it("core: every entry shares one module instance (one registry)", () => {
    const got = runChild(
      `const core = await import("@zarr/core");
       const codec = await import("@zarr/core/codec");
       core.registerCodec("node-bundle-test", { load: async () => ({}) });
       console.log(JSON.stringify({
         registered: codec.codecRegistry.has("node-bundle-test"),
         sameStore: core.MemoryStore === (await import("@zarr/core/store")).MemoryStore,
       }));`,
      join(packagesDir, "cli"),
    );
    expect(got).toEqual({ registered: true, sameStore: true });
  });

  it("store-fs: a store opened through the lazy register is the class the package exports", () => {
    const dir = mkdtempSync(join(tmpdir(), "node-bundle-store-"));
    try {
      const got = runChild(
        `await import("@zarr/store-fs/register");
         const { openStore } = await import("@zarr/core/store");
         const { FileSystemStore } = await import("@zarr/store-fs");
         const store = await openStore(${JSON.stringify(pathToFileURL(dir).href)});
         console.log(JSON.stringify({ same: store instanceof FileSystemStore }));`,
        join(packagesDir, "cli"),
      );
      expect(got).toEqual({ same: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // What importing a register entry loads from its package: its own file and,
  // for v2-compat (which registers node formats and data types eagerly), the bundle.
  it.each(PACKAGES.filter((p) => p.entries.some((e) => e.effects)))(
    "$name: the Node register module loads no implementation",
    (pkg) => {
      const register = pkg.entries.find((e) => e.effects)!;
      const loaded = filesLoaded(register.specifier, pkg.dir, join(packagesDir, "cli"));
      const allowed =
        pkg.name === "@zarr/v2-compat"
          ? ["register.node.js", "node-bundle.js"]
          : ["register.node.js"];
      expect(loaded.filter((f) => !allowed.includes(f))).toEqual([]);
      expect(loaded).toContain("register.node.js");
    },
  );

  // esbuild lifts a lazily imported module's imports of other packages to the
  // bundle's top; the build refuses that (store-reference's Parquet reader stays
  // a per-module entry), and this checks what is actually loaded.
  it.each(PACKAGES)(
    "$name: a Node entry loads no third-party package its per-module entry does not",
    (pkg) => {
      const cwd = join(packagesDir, pkg.dir);
      for (const entry of pkg.entries.filter((e) => !e.effects)) {
        const viaNode = thirdPartyLoaded(entry.specifier, cwd);
        const perModule = thirdPartyLoaded(pathToFileURL(entry.defaultFile).href, cwd);
        expect(
          viaNode.filter((p) => !perModule.includes(p)),
          entry.specifier,
        ).toEqual([]);
      }
    },
  );

  it("store-reference: JSON references load no Parquet reader", () => {
    const loaded = thirdPartyLoaded("@zarr/store-reference", join(packagesDir, "cli"));
    expect(loaded.filter((p) => /hyparquet|fzstd/.test(p))).toEqual([]);
  });

  // Packages whose private imports map has browser variants (#engine, #native):
  // `node --conditions=browser` keeps resolving to the per-module files, which
  // pick those variants, as before the Node entries.
  it.each(PACKAGES.filter((p) => p.browserVariants))(
    "$name: under --conditions=browser, Node resolves the per-module entries",
    (pkg) => {
      const pure = pkg.entries.filter((e) => !e.effects);
      const got = runChild(
        `console.log(JSON.stringify(${JSON.stringify(pure.map((e) => e.specifier))}.map((s) => import.meta.resolve(s))));`,
        join(packagesDir, pkg.dir),
        {},
        ["--conditions=browser"],
      );
      expect(got).toEqual(pure.map((e) => pathToFileURL(e.defaultFile).href));
    },
  );

  it("importing all of core's entries loads its facades and one bundle", () => {
    const loaded = filesLoaded("@zarr/core/internal", "core", join(packagesDir, "cli"));
    expect(loaded.sort()).toEqual(["internal.node.js", "node-bundle.js"]);
  });
});

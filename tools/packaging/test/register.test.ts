// Every package's `register` module registers lazily (issue 18): importing it
// loads none of the package's implementation, so the CLI, the worker pool's
// workers and a bundled web app pay only for what metadata names. Each name it
// registers resolves, on first use, to a factory or opener the package
// exports, and core's install hints name the same package.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { NotRegisteredError } from "@zarr/core";
import { codecRegistry } from "@zarr/core/codec";
import { storeRegistry } from "@zarr/core/store";
import { describe, expect, it } from "vitest";

const packagesDir = fileURLToPath(new URL("../../../packages/", import.meta.url));
const hook = fileURLToPath(new URL("./fixtures/record-loads.mjs", import.meta.url));

/** Packages whose `register` registers codecs or stores (workers' sets a default pool; cli's imports the others). */
const REGISTERING = readdirSync(packagesDir).filter(
  (p) =>
    /^(codec-|store-|v2-compat$)/.test(p) && existsSync(join(packagesDir, p, "src/register.ts")),
);

/** The modules of `pkg`'s dist that importing its built register module evaluates. */
function modulesLoadedBy(pkg: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), "register-loads-"));
  try {
    const log = join(dir, "loads.txt");
    const entry = pathToFileURL(join(packagesDir, pkg, "dist/register.js")).href;
    const r = spawnSync(
      process.execPath,
      ["--import", hook, "--input-type=module", "-e", `await import(${JSON.stringify(entry)});`],
      { encoding: "utf8", env: { ...process.env, RECORD_LOADS: log }, timeout: 30_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    const own = pathToFileURL(join(packagesDir, pkg, "dist")).href;
    return readFileSync(log, "utf8")
      .split("\n")
      .filter((u) => u.startsWith(`${own}/`))
      .map((u) => u.slice(own.length + 1));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every value a package's main entry exports, and the values of exported records of them. */
async function exportedValues(pkg: string): Promise<Set<unknown>> {
  const index = await import(join(packagesDir, pkg, "src/index.ts"));
  const out = new Set<unknown>();
  for (const v of Object.values(index)) {
    out.add(v);
    if (v && typeof v === "object" && !Array.isArray(v))
      for (const w of Object.values(v)) out.add(w);
  }
  return out;
}

describe("register modules", () => {
  it("are found", () => {
    expect(REGISTERING.length).toBeGreaterThanOrEqual(15);
  });

  it.each(REGISTERING)("%s: importing register loads no implementation", (pkg) => {
    const loaded = modulesLoadedBy(pkg);
    expect(loaded).toContain("register.js");
    // v2-compat registers its node formats and data types eagerly (lookups of
    // them are synchronous); its codecs load on demand like every other codec.
    const allowed =
      pkg === "v2-compat"
        ? (m: string) => !m.startsWith("codecs/")
        : (m: string) => m === "register.js";
    expect(loaded.filter((m) => !allowed(m))).toEqual([]);
  });

  it.each(REGISTERING)(
    "%s: each name resolves lazily to something the package exports",
    async (pkg) => {
      const codecsBefore = new Set(codecRegistry.names());
      const storesBefore = new Set(storeRegistry.names());
      await import(join(packagesDir, pkg, "src/register.ts"));
      const codecs = codecRegistry.names().filter((n) => !codecsBefore.has(n));
      const stores = storeRegistry.names().filter((n) => !storesBefore.has(n));
      expect(codecs.length + stores.length).toBeGreaterThan(0);
      const exported = await exportedValues(pkg);
      for (const name of codecs) {
        expect(codecRegistry.getSync(name), `${name} is registered eagerly`).toBeUndefined();
        expect(exported.has(await codecRegistry.get(name)), `codec ${name}`).toBe(true);
        // Core's hint for a missing codec names this package.
        const hint = codecRegistry.notRegistered(name);
        expect(hint).toBeInstanceOf(NotRegisteredError);
        if (!/no known package/.test(hint.message)) {
          expect(hint.message, name).toContain(`@zarr/${pkg}`);
        }
      }
      for (const scheme of stores) {
        expect(storeRegistry.getSync(scheme), `${scheme} is registered eagerly`).toBeUndefined();
        expect(exported.has(await storeRegistry.get(scheme)), `store ${scheme}`).toBe(true);
      }
    },
  );
  // Last: the cases above need the register modules not yet imported when they run.
  it.each([
    ["codec-checksums", "src/index.ts", "CHECKSUM_CODECS"],
    ["v2-compat", "src/codecs/index.ts", "NUMCODECS"],
  ])(
    "%s: the register module's name list covers every codec of %s's %s",
    async (pkg, file, record) => {
      await import(join(packagesDir, pkg, "src/register.ts"));
      const codecs = (await import(join(packagesDir, pkg, file)))[record] as Record<
        string,
        unknown
      >;
      const missing = Object.keys(codecs).filter((name) => !codecRegistry.has(name));
      expect(Object.keys(codecs).length).toBeGreaterThan(0);
      expect(missing).toEqual([]);
    },
  );
});

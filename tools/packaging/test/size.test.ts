/**
 * Browser bundle budgets (issue 9): each budgeted entry is a real application
 * module on the public API, bundled for browsers from the published dist files.
 * Fails when an entry grows past its budget or a Node built-in reaches a
 * browser bundle. Needs a build first (`pnpm build`; `pnpm test` does it).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { budgetFailures } from "../src/budget-check.js";
import { readBudgets } from "../src/budgets.js";
import { type BundleMeasurement, measureEntry } from "../src/bundle-size.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const budgets = readBudgets(join(root, "size-budgets.json"));
const measured = new Map<string, BundleMeasurement>();

const distMissing = ["core", "store-http", "codec-gzip", "codec-blosc", "codec-zstd"].filter(
  (pkg) => !existsSync(join(root, "../../packages", pkg, "dist/index.js")),
);

function kB(bytes: number): string {
  return `${(bytes / 1000).toFixed(1)} kB`;
}

describe("size budgets", () => {
  it("the packages are built", () => {
    // The budgets measure what npm users get: the dist files.
    expect(distMissing, "run `pnpm build` first; missing dist for").toEqual([]);
  });

  for (const budget of budgets.entries) {
    it(`${budget.name} stays within ${kB(budget.gzipBudget)} min+gzip`, async () => {
      const m = await measureEntry(budget.entry, root);
      measured.set(budget.name, m);
      const baseBudget = budgets.entries.find((e) => e.name === budget.extends);
      const base = baseBudget
        ? (measured.get(baseBudget.name) ?? (await measureEntry(baseBudget.entry, root)))
        : undefined;
      expect(budgetFailures(budget, m, base), `${budget.name} (${budget.entry})`).toEqual([]);
    });
  }

  afterAll(() => {
    const rows = budgets.entries
      .filter((b) => measured.has(b.name))
      .map((b) => {
        const m = measured.get(b.name)!;
        const asset = m.assets.reduce((sum, a) => sum + a.gzipBytes, 0);
        return {
          entry: b.name,
          min: kB(m.minBytes),
          "min+gzip": kB(m.gzipBytes),
          budget: kB(b.gzipBudget),
          "on demand (gzip)": m.lazyGzipBytes ? kB(m.lazyGzipBytes) : "",
          "wasm gzip": asset ? kB(asset) : "",
        };
      });
    if (rows.length > 0) console.table(rows);
  });
});

describe("the budget check", () => {
  const budget = {
    name: "app",
    entry: "app.ts",
    gzipBudget: 1000,
    extends: "base",
    incrementBudget: 100,
  };
  const m = (gzipBytes: number, extra: Partial<BundleMeasurement> = {}): BundleMeasurement => ({
    minBytes: 3 * gzipBytes,
    gzipBytes,
    lazyGzipBytes: 0,
    builtins: [],
    inputs: [{ path: "big.js", bytes: 2000 }],
    assets: [],
    ...extra,
  });

  it("passes within the budgets", () => {
    expect(budgetFailures(budget, m(1000), m(900))).toEqual([]);
  });

  it("fails past the total or the increment budget, naming the biggest inputs", () => {
    const [total] = budgetFailures(budget, m(1001), m(990));
    expect(total).toMatch(
      /^1001 B min\+gzip > budget 1000 B; biggest inputs.*\n {2}big\.js: 2000$/s,
    );
    expect(budgetFailures(budget, m(1000), m(899))).toEqual([
      'adds 101 B over "base" > budget 100 B',
    ]);
  });

  it("fails on a Node built-in and on unbudgeted or over-budget WebAssembly", () => {
    const builtins = [{ specifier: "node:zlib", importer: "x/engine.js" }];
    expect(budgetFailures(budget, m(10, { builtins }), m(0))).toEqual([
      'Node built-in "node:zlib" (imported by x/engine.js) in the browser bundle',
    ]);
    const assets = [{ path: "z.wasm", bytes: 900, gzipBytes: 300 }];
    expect(budgetFailures(budget, m(10, { assets }), m(0))).toEqual([
      "unbudgeted run-time asset z.wasm (300 B gzip)",
    ]);
    expect(budgetFailures({ ...budget, assetGzipBudget: 299 }, m(10, { assets }), m(0))).toEqual([
      "run-time assets 300 B gzip > budget 299 B",
    ]);
  });
});

describe("the on-demand budget", () => {
  it("fails when the chunks behind import() grow past lazyGzipBudget", () => {
    const budget = { name: "app", entry: "app.ts", gzipBudget: 1000, lazyGzipBudget: 500 };
    const m = (lazyGzipBytes: number): BundleMeasurement => ({
      minBytes: 900,
      gzipBytes: 300,
      lazyGzipBytes,
      builtins: [],
      inputs: [],
      assets: [],
    });
    expect(budgetFailures(budget, m(500))).toEqual([]);
    expect(budgetFailures(budget, m(501))).toEqual([
      "chunks loaded on demand 501 B gzip > budget 500 B",
    ]);
  });
});

describe("browser bundles never contain Node built-ins", () => {
  for (const pkg of budgets.browserPackages) {
    it(`${pkg} (main entry, everything exported)`, async () => {
      const m = await measureEntry({ contents: `export * from "${pkg}";` }, root);
      expect(m.builtins, `Node built-ins reached from ${pkg}`).toEqual([]);
    });
  }

  it("the check itself catches a Node built-in (node:zlib through a dependency)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "zarr-size-"));
    try {
      writeFileSync(
        join(dir, "dep.js"),
        'import { gzipSync } from "node:zlib";\nexport const z = gzipSync;\n',
      );
      writeFileSync(join(dir, "entry.js"), 'import { z } from "./dep.js";\nconsole.log(z);\n');
      const m = await measureEntry("entry.js", dir);
      expect(m.builtins).toEqual([{ specifier: "node:zlib", importer: join(dir, "dep.js") }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

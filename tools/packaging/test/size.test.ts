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
      expect(m.builtins, `Node built-ins in the browser bundle of ${budget.entry}`).toEqual([]);
      const top = m.inputs
        .slice(0, 8)
        .map((i) => `${i.path}: ${i.bytes}`)
        .join("\n  ");
      expect(
        m.gzipBytes,
        `${budget.name}: ${m.gzipBytes} B > budget ${budget.gzipBudget} B; biggest inputs (minified bytes):\n  ${top}`,
      ).toBeLessThanOrEqual(budget.gzipBudget);
      if (budget.extends !== undefined && budget.incrementBudget !== undefined) {
        const base =
          measured.get(budget.extends) ??
          (await measureEntry(budgets.entries.find((e) => e.name === budget.extends)!.entry, root));
        const increment = m.gzipBytes - base.gzipBytes;
        expect(
          increment,
          `${budget.name} adds ${increment} B over ${budget.extends}`,
        ).toBeLessThanOrEqual(budget.incrementBudget);
      }
      const assetBytes = m.assets.reduce((sum, a) => sum + a.gzipBytes, 0);
      if (budget.assetGzipBudget !== undefined) {
        expect(m.assets.length, `${budget.entry} loads no run-time asset`).toBeGreaterThan(0);
        expect(assetBytes, `${budget.name}: run-time assets`).toBeLessThanOrEqual(
          budget.assetGzipBudget,
        );
      } else {
        expect(
          m.assets.map((a) => a.path),
          `unbudgeted run-time assets of ${budget.entry}`,
        ).toEqual([]);
      }
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
          "wasm gzip": asset ? kB(asset) : "",
        };
      });
    if (rows.length > 0) console.table(rows);
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

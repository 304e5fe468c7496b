/**
 * The committed size budgets (`size-budgets.json`): one real browser entry per
 * line, its min+gzip budget, and optionally a budget for what it adds over
 * another entry and for the WebAssembly it loads at run time.
 *
 * @module
 */
import { readFileSync } from "node:fs";

/** One budgeted browser entry. */
export interface SizeBudget {
  /** Display name, e.g. "core + store-http + codec-gzip". */
  name: string;
  /** Entry module, relative to tools/packaging. */
  entry: string;
  /** Budget for the minified, gzip -9 JavaScript bundle, in bytes. */
  gzipBudget: number;
  /** Name of another entry this one extends, for {@link SizeBudget.incrementBudget}. */
  extends?: string;
  /** Budget for the gzip bytes this entry adds over `extends`. */
  incrementBudget?: number;
  /** Budget for the gzip bytes of run-time assets (`.wasm`) the bundle fetches. */
  assetGzipBudget?: number;
  /**
   * Budget for the gzip bytes of the chunks loaded on demand (behind `import()`,
   * e.g. an inlined WebAssembly module); not counted in `gzipBudget`.
   */
  lazyGzipBudget?: number;
  /** What was measured when the budget was set (informational). */
  measured?: {
    minBytes: number;
    gzipBytes: number;
    assetGzipBytes?: number;
    lazyGzipBytes?: number;
  };
}

/** The budgets file. */
export interface SizeBudgets {
  entries: SizeBudget[];
  /** Packages whose main browser entry must bundle without Node built-ins. */
  browserPackages: string[];
}

function fail(file: string, reason: string): never {
  throw new Error(`${file}: ${reason}`);
}

/** Reads and validates the budgets file. */
export function readBudgets(file: string): SizeBudgets {
  const json = JSON.parse(readFileSync(file, "utf8")) as Partial<SizeBudgets>;
  if (!Array.isArray(json.entries)) fail(file, '"entries" must be an array');
  if (!Array.isArray(json.browserPackages)) fail(file, '"browserPackages" must be an array');
  const names = new Set<string>();
  for (const [i, e] of json.entries.entries()) {
    if (typeof e.name !== "string" || typeof e.entry !== "string") {
      fail(file, `entries[${i}] needs "name" and "entry" strings`);
    }
    if (!Number.isInteger(e.gzipBudget) || e.gzipBudget <= 0) {
      fail(file, `entries[${i}] (${e.name}): "gzipBudget" must be a positive integer`);
    }
    if (e.extends !== undefined && !names.has(e.extends)) {
      fail(file, `entries[${i}] (${e.name}): "extends" names no earlier entry: ${e.extends}`);
    }
    names.add(e.name);
  }
  return json as SizeBudgets;
}

/**
 * Compares a measured bundle with its budget: the reasons it fails, if any.
 *
 * @module
 */
import type { SizeBudget } from "./budgets.js";
import type { BundleMeasurement } from "./bundle-size.js";

/** Every way `m` breaks `budget` (empty when within it); `base` is the measurement of `budget.extends`. */
export function budgetFailures(
  budget: SizeBudget,
  m: BundleMeasurement,
  base?: BundleMeasurement,
): string[] {
  const failures: string[] = [];
  for (const b of m.builtins) {
    failures.push(
      `Node built-in "${b.specifier}" (imported by ${b.importer}) in the browser bundle`,
    );
  }
  if (m.gzipBytes > budget.gzipBudget) {
    const top = m.inputs
      .slice(0, 8)
      .map((i) => `${i.path}: ${i.bytes}`)
      .join("\n  ");
    failures.push(
      `${m.gzipBytes} B min+gzip > budget ${budget.gzipBudget} B; biggest inputs (minified bytes):\n  ${top}`,
    );
  }
  if (budget.incrementBudget !== undefined) {
    if (!base) throw new Error(`${budget.name}: no measurement of "${budget.extends}"`);
    const increment = m.gzipBytes - base.gzipBytes;
    if (increment > budget.incrementBudget) {
      failures.push(
        `adds ${increment} B over "${budget.extends}" > budget ${budget.incrementBudget} B`,
      );
    }
  }
  if (budget.lazyGzipBudget !== undefined && m.lazyGzipBytes > budget.lazyGzipBudget) {
    failures.push(
      `chunks loaded on demand ${m.lazyGzipBytes} B gzip > budget ${budget.lazyGzipBudget} B`,
    );
  }
  const assetBytes = m.assets.reduce((sum, a) => sum + a.gzipBytes, 0);
  if (budget.assetGzipBudget === undefined) {
    for (const a of m.assets)
      failures.push(`unbudgeted run-time asset ${a.path} (${a.gzipBytes} B gzip)`);
  } else if (m.assets.length === 0) {
    failures.push("has an asset budget but loads no run-time asset (update size-budgets.json)");
  } else if (assetBytes > budget.assetGzipBudget) {
    failures.push(`run-time assets ${assetBytes} B gzip > budget ${budget.assetGzipBudget} B`);
  }
  return failures;
}

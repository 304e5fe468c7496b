/**
 * The shared conformance fixtures (`../shared/fixtures/zarrita`), read in place.
 * Tests that need them skip with {@link fixturesSkipReason} when `../shared` is absent.
 *
 * @module
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
/** Repository root. */
export const repoRoot: string = resolve(here, "../../..");
/** `../shared/fixtures/zarrita` beside the repository (or `$ZARR_SHARED/fixtures/zarrita`). */
export const zarritaFixtures: string = join(
  process.env.ZARR_SHARED ?? resolve(repoRoot, "../shared"),
  "fixtures/zarrita",
);

/** True when the zarrita fixtures are present. */
export function haveFixtures(): boolean {
  return existsSync(join(zarritaFixtures, "expected-v3.json"));
}

/** Why fixture tests are skipped. */
export const fixturesSkipReason = `skipping: zarrita fixtures not found at ${zarritaFixtures} (the conformance data lives in ../shared beside the repository)`;

/** Expected values: `{key: {shape, data}}`. */
export function loadExpected(version: 2 | 3): Record<string, { shape: number[]; data: unknown[] }> {
  return JSON.parse(readFileSync(join(zarritaFixtures, `expected-v${version}.json`), "utf8"));
}

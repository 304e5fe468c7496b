/**
 * API snapshots (issue 17): the exported surface of every entry point of every
 * published package (`@zarr/core`, `@zarr/core/store`, `@zarr/core/codec`,
 * ..., except `@zarr/core/internal`, which has no semver promise) must equal
 * the reports committed in `tools/packaging/api/*.api.md`. A change to the
 * public API is then always visible in review. After a deliberate change, run
 * `pnpm api:update` (build, then this test with API_UPDATE=1, which rewrites the
 * reports) and commit the reports with the change.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { apiEntries, apiReport, readSnapshot, reportDiff, reportFile } from "../src/api-report.js";
import { publishablePackages } from "../src/packs.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const packagingDir = fileURLToPath(new URL("..", import.meta.url));
const update = process.env.API_UPDATE === "1";

describe("API snapshots", () => {
  for (const pkg of publishablePackages(root)) {
    it(`${pkg.name}: exports match ${reportFile(pkg.name)}`, { timeout: 60_000 }, () => {
      const actual = apiReport(pkg.name, apiEntries(pkg));
      const file = join(packagingDir, reportFile(pkg.name));
      if (update) {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, actual);
        return;
      }
      const expected = readSnapshot(packagingDir, pkg.name);
      const hint = `The API of ${pkg.name} differs from tools/packaging/${reportFile(pkg.name)}. If the change is deliberate, run \`pnpm api:update\` and commit the report.`;
      if (expected === undefined) throw new Error(`${hint}\n(no report committed yet)`);
      if (actual !== expected) {
        throw new Error(`${hint}\n\n${reportDiff(expected, actual)}`);
      }
    });
  }

  it("the guarded entries of @zarr/core are its public ones", () => {
    const core = publishablePackages(root).find((p) => p.name === "@zarr/core");
    expect(core && apiEntries(core).map((e) => e.subpath)).toEqual(
      expect.arrayContaining([".", "./store", "./codec", "./builtin-codecs"]),
    );
    expect(core && apiEntries(core).map((e) => e.subpath)).not.toContain("./internal");
  });
});

describe("the report catches every change to an export", () => {
  const dir = mkdtempSync(join(tmpdir(), "zarr-api-report-"));
  const report = (dts: string) => {
    const file = join(dir, `v${Math.random().toString(36).slice(2)}.d.ts`);
    writeFileSync(file, dts);
    return apiReport("x", [{ subpath: ".", types: file }]);
  };
  const base = [
    "/** documented */",
    "export declare function f(a: number): string;",
    "export interface Options { limit?: number }",
    "export declare class C { get(key: string): Promise<Uint8Array | undefined>; }",
    "export declare const K: 4;",
  ].join("\n");

  it("is stable and ignores comments", () => {
    expect(report(base)).toBe(report(base.replace("/** documented */", "// other words")));
  });

  it.each([
    ["an added export", `${base}\nexport declare function g(): void;`, "+ function g(): void"],
    ["a removed export", base.replace("export declare const K: 4;", ""), "- const K: 4"],
    ["a changed parameter type", base.replace("a: number", "a: bigint"), "+ function f(a: bigint)"],
    ["a changed member", base.replace("limit?: number", "limit: number"), "+     limit: number"],
    [
      "a changed class method",
      base.replace("key: string", "key: string, range?: number"),
      "range?",
    ],
    [
      "an export turned type-only",
      base.replace("declare class C", "interface C"),
      "type interface",
    ],
  ])("%s", (_what, changed, expectedLine) => {
    const before = report(base);
    const after = report(changed);
    expect(after).not.toBe(before);
    expect(reportDiff(before, after)).toContain(expectedLine);
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));
});

/**
 * Publish checks on local packs (issue 9), offline: every non-private package
 * is packed with `pnpm pack` (what `pnpm publish` would upload) and checked by
 * publint, by arethetypeswrong (ESM-only profile: node16 ESM and bundler
 * resolution) and by the repository's own conventions. Needs a build first.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type CheckResult,
  checkPackage,
  createPackageFromTarballData,
  type ResolutionKind,
} from "@arethetypeswrong/core";
import { problemAffectsResolutionKind } from "@arethetypeswrong/core/problems";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkManifest, checkProjectLinks } from "../src/manifest-rules.js";
import { pack, publishablePackages, type WorkspacePackage } from "../src/packs.js";
import { readTarball } from "../src/tarball.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const rootManifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
/** The monorepo's repository URL: every package names it, with its own directory. */
const repositoryUrl: string | undefined = rootManifest.repository?.url;
const packages = publishablePackages(root);
const tarballs = new Map<string, Promise<Uint8Array>>();
const destination = mkdtempSync(join(tmpdir(), "zarr-packs-"));

/** ESM-only packages are not meant for node10 or require(); attw's "esm-only" profile. */
const CHECKED_RESOLUTIONS: ResolutionKind[] = ["node16-esm", "bundler"];

/** Packs with at most two pnpm processes at a time (a 2-core machine). */
function packAll(list: WorkspacePackage[]): void {
  const chain: [Promise<unknown>, Promise<unknown>] = [Promise.resolve(), Promise.resolve()];
  list.forEach((pkg, i) => {
    const lane = i % 2;
    const p = chain[lane]!.then(() => pack(pkg, destination));
    chain[lane] = p.catch(() => {});
    tarballs.set(pkg.name, p);
  });
}

function tarball(name: string): Promise<Uint8Array> {
  return tarballs.get(name)!;
}

describe("published packages", () => {
  beforeAll(() => packAll(packages));
  afterAll(() => rmSync(destination, { recursive: true, force: true }));

  it("finds the publishable packages", () => {
    expect(packages.map((p) => p.name)).toContain("@zarr/core");
    expect(packages.length).toBeGreaterThanOrEqual(10);
  });

  for (const pkg of packages) {
    describe(pkg.name, () => {
      it("publint: no errors, warnings or suggestions", async () => {
        const tgz = await tarball(pkg.name);
        const { messages, pkg: manifest } = await publint({
          pack: { tarball: tgz.slice().buffer },
          level: "suggestion",
        });
        expect(messages.map((m) => `${m.type}: ${formatMessage(m, manifest) ?? m.code}`)).toEqual(
          [],
        );
      });

      it("arethetypeswrong: types resolve for node16 ESM and bundlers", async () => {
        const result: CheckResult = await checkPackage(
          createPackageFromTarballData(await tarball(pkg.name)),
        );
        expect(result.types, `${pkg.name} ships no types`).not.toBe(false);
        if (!("problems" in result)) throw new Error(`${pkg.name}: untyped`);
        const problems = result.problems.filter((problem) =>
          CHECKED_RESOLUTIONS.some((kind) => problemAffectsResolutionKind(problem, kind, result)),
        );
        expect(problems).toEqual([]);
        // Every exported subpath was analysed (not just ".").
        const subpaths = Object.keys(pkg.manifest.exports as object).filter(
          (s) => s !== "./package.json",
        );
        expect(Object.keys(result.entrypoints).sort()).toEqual(
          expect.arrayContaining(subpaths.sort()),
        );
      });

      it("follows the repository's packaging conventions", async () => {
        const files = readTarball(await tarball(pkg.name));
        const manifest = JSON.parse(new TextDecoder().decode(files.get("package.json")!));
        const directory = relative(root, pkg.dir).split("\\").join("/");
        expect(checkManifest(manifest, files, { repositoryUrl, directory })).toEqual([]);
      });
    });
  }
});

// Without packing: the root manifest and every workspace package (published or
// private: packages/*, tools/*, examples/*, bench) link to the repository,
// their folder in it, their README and the issue tracker.
describe("workspace manifests", () => {
  it("the root package.json names the repository, homepage and bugs", () => {
    expect(repositoryUrl, "root package.json repository.url").toBeTypeOf("string");
    expect(checkProjectLinks(rootManifest)).toEqual([]);
  });

  const manifests = [
    ...["packages", "tools", "examples"].flatMap((group) =>
      readdirSync(join(root, group), { withFileTypes: true })
        .filter((e) => e.isDirectory() && existsSync(join(root, group, e.name, "package.json")))
        .map((e) => `${group}/${e.name}`),
    ),
    "bench",
  ];

  it("finds the workspace packages", () => {
    expect(manifests).toContain("packages/core");
    expect(manifests.length).toBeGreaterThanOrEqual(packages.length);
  });

  for (const directory of manifests) {
    it(`${directory}/package.json has repository (with directory), homepage and bugs`, () => {
      const manifest = JSON.parse(readFileSync(join(root, directory, "package.json"), "utf8"));
      expect(checkProjectLinks(manifest, { repositoryUrl, directory })).toEqual([]);
    });
  }
});

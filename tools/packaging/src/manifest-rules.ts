/**
 * The repository's own packaging conventions (DESIGN.md "Conventions"), checked
 * on a packed package: ESM, exports maps whose entries carry types and a
 * default, `sideEffects` limited to register entry points, engines, license,
 * repository (with its directory), homepage and bugs, no workspace: ranges left, a README with a short example, and no
 * tests or build caches in the tarball.
 *
 * @module
 */

/** A violated convention: where and why. */
export interface RuleViolation {
  field: string;
  reason: string;
}

type Json = Record<string, unknown>;

/** Conditions an exports entry may use, in the order they must appear. */
const CONDITION_ORDER = ["source", "types", "browser", "node", "default"];

function checkExportsEntry(subpath: string, value: unknown, out: RuleViolation[]): void {
  if (subpath === "./package.json") return;
  const field = `exports["${subpath}"]`;
  if (typeof value !== "object" || value === null) {
    out.push({ field, reason: "must be a conditions object with types and default" });
    return;
  }
  const keys = Object.keys(value);
  for (const key of keys) {
    if (!CONDITION_ORDER.includes(key))
      out.push({ field, reason: `unexpected condition "${key}"` });
  }
  const known = keys.filter((k) => CONDITION_ORDER.includes(k));
  const sorted = [...known].sort((a, b) => CONDITION_ORDER.indexOf(a) - CONDITION_ORDER.indexOf(b));
  if (known.join() !== sorted.join()) {
    out.push({
      field,
      reason: `conditions must be ordered ${CONDITION_ORDER.join(", ")}: got ${keys.join(", ")}`,
    });
  }
  const entry = value as Json;
  if (typeof entry.types !== "string" || !entry.types.endsWith(".d.ts")) {
    out.push({ field, reason: 'needs a "types" condition naming a .d.ts file' });
  }
  if (typeof entry.default !== "string" || !entry.default.startsWith("./dist/")) {
    out.push({ field, reason: 'needs a "default" condition in ./dist/' });
  }
}

/** What the packed manifest is compared with. */
export interface ManifestExpectations {
  /** The monorepo's repository URL (root package.json); each package must name it. */
  repositoryUrl?: string;
  /** The package's folder relative to the repository root (e.g. `packages/core`). */
  directory?: string;
}

function isHttpsUrl(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    return new URL(value).protocol === "https:";
  } catch {
    return false;
  }
}

/**
 * `repository` (`type: "git"`, the monorepo's url and the package's
 * `directory`), `homepage` and `bugs` (https URLs), so that npm links each
 * package to its source, its README and the issue tracker. Without
 * `expect.directory` (the root manifest) no directory is asked for.
 */
export function checkProjectLinks(
  manifest: Json,
  expect: ManifestExpectations = {},
): RuleViolation[] {
  const out: RuleViolation[] = [];
  const repository = manifest.repository as Json | undefined;
  if (typeof repository !== "object" || repository === null) {
    out.push({ field: "repository", reason: "missing (an object with type, url and directory)" });
  } else {
    if (repository.type !== "git") out.push({ field: "repository.type", reason: 'must be "git"' });
    if (typeof repository.url !== "string" || !/^git\+https:\/\/.+\.git$/.test(repository.url)) {
      out.push({ field: "repository.url", reason: "must be git+https://….git" });
    } else if (expect.repositoryUrl !== undefined && repository.url !== expect.repositoryUrl) {
      out.push({ field: "repository.url", reason: `must be ${expect.repositoryUrl}` });
    }
    if (expect.directory !== undefined && repository.directory !== expect.directory) {
      out.push({ field: "repository.directory", reason: `must be "${expect.directory}"` });
    }
  }
  if (!isHttpsUrl(manifest.homepage)) {
    out.push({ field: "homepage", reason: "missing or not an https URL" });
  } else if (
    expect.directory !== undefined &&
    !(manifest.homepage as string).endsWith(`/${expect.directory}#readme`)
  ) {
    out.push({ field: "homepage", reason: `must point at ${expect.directory}'s README` });
  }
  const bugs = manifest.bugs as Json | undefined;
  if (!isHttpsUrl(bugs?.url)) {
    out.push({ field: "bugs.url", reason: "missing or not an https URL" });
  }
  return out;
}

/** Checks `manifest` (the packed package.json) and the packed file list. */
export function checkManifest(
  manifest: Json,
  files: ReadonlyMap<string, Uint8Array>,
  expect: ManifestExpectations = {},
): RuleViolation[] {
  const out: RuleViolation[] = [];
  const text = JSON.stringify(manifest);
  if (manifest.type !== "module")
    out.push({ field: "type", reason: 'must be "module" (ESM only)' });
  if (typeof manifest.license !== "string") out.push({ field: "license", reason: "missing" });
  if (typeof manifest.description !== "string")
    out.push({ field: "description", reason: "missing" });
  out.push(...checkProjectLinks(manifest, expect));
  const publishConfig = manifest.publishConfig as Json | undefined;
  if (publishConfig?.access !== "public") {
    out.push({ field: "publishConfig.access", reason: 'must be "public" (scoped packages)' });
  }
  if (!Array.isArray(manifest.keywords) || !manifest.keywords.includes("zarr")) {
    out.push({ field: "keywords", reason: 'must include "zarr"' });
  }
  const engines = manifest.engines as Json | undefined;
  if (typeof engines?.node !== "string") out.push({ field: "engines.node", reason: "missing" });
  if (text.includes('"workspace:')) {
    out.push({
      field: "dependencies",
      reason: "a workspace: range was left in the packed manifest",
    });
  }
  const exportsMap = manifest.exports;
  if (typeof exportsMap !== "object" || exportsMap === null || !("." in exportsMap)) {
    out.push({ field: "exports", reason: 'needs an exports map with "."' });
  } else {
    for (const [subpath, value] of Object.entries(exportsMap))
      checkExportsEntry(subpath, value, out);
  }
  const sideEffects = manifest.sideEffects;
  const registerOnly =
    Array.isArray(sideEffects) &&
    sideEffects.every((p) => typeof p === "string" && /(^|\/)register(\.node)?\.(js|ts)$/.test(p));
  if (sideEffects !== false && !registerOnly && manifest.bin === undefined) {
    out.push({ field: "sideEffects", reason: "must be false or list only register entry points" });
  }
  const readme = files.get("README.md");
  if (!readme) {
    out.push({ field: "files", reason: "README.md is not published" });
  } else {
    const blocks = new TextDecoder()
      .decode(readme)
      .match(/```(ts|js|typescript|sh|bash)( [\w.-]+)?\n[\s\S]*?```/g); // ```ts check too
    if (!blocks) out.push({ field: "README.md", reason: "has no ```ts/js/sh example block" });
  }
  for (const path of files.keys()) {
    if (/(^|\/)(test|tests|__tests__)\//.test(path) || /\.test\.[cm]?[jt]s$/.test(path)) {
      out.push({ field: "files", reason: `publishes a test file: ${path}` });
    }
    if (path.endsWith(".tsbuildinfo")) out.push({ field: "files", reason: `publishes ${path}` });
  }
  return out;
}

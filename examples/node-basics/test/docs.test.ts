// Every ```ts block in docs/*.md, README.md and packages/*/README.md is
// type-checked against the workspace packages, and the runnable ones are
// executed, so the guides and READMEs cannot rot.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import {
  blockFileName,
  blockSource,
  type DocBlock,
  extractBlocks,
  extractFileBlocks,
  typeCheckBlocks,
} from "./doc-blocks.js";

const projectDir = fileURLToPath(new URL("..", import.meta.url));
const repoDir = fileURLToPath(new URL("../../..", import.meta.url));
const docsDir = join(repoDir, "docs");
const blocks = extractBlocks(docsDir);
const checked = blocks.filter((b) => b.mode !== "skip");
const runnable = blocks.filter((b) => b.mode === "run");

/**
 * Registers one test per runnable block. Blocks are written beside the package
 * at `dir` (so that its node_modules resolve) and run from a temporary working
 * directory, so relative paths such as "data.zarr" land there.
 */
function runBlocks(dir: string, list: readonly DocBlock[]): void {
  const runDir = join(dir, ".docs-run");
  const cwd = process.cwd();
  afterAll(() => {
    process.chdir(cwd);
    rmSync(runDir, { recursive: true, force: true });
  });
  for (const block of list) {
    it(`${block.doc}:${block.line}`, async () => {
      mkdirSync(runDir, { recursive: true });
      const file = join(runDir, blockFileName(dir, block).split("/").pop()!);
      writeFileSync(file, blockSource(block));
      const work = mkdtempSync(join(tmpdir(), "zarr-docs-"));
      // DOCS_VERBOSE=1 shows what the blocks print, to compare with their comments.
      const log = vi.spyOn(console, "log");
      if (!process.env.DOCS_VERBOSE) log.mockImplementation(() => {});
      try {
        process.chdir(work);
        await import(pathToFileURL(file).href);
      } finally {
        process.chdir(cwd);
        log.mockRestore();
        rmSync(work, { recursive: true, force: true });
      }
    });
  }
}

describe("docs/ code blocks", () => {
  it("every guide is listed in docs/README.md and has checked code", () => {
    const index = readFileSync(join(docsDir, "README.md"), "utf8");
    for (const doc of readdirSync(docsDir).filter((f) => f.endsWith(".md") && f !== "README.md")) {
      expect(index, `docs/README.md links ${doc}`).toContain(`(${doc})`);
      expect(
        checked.some((b) => b.doc === `docs/${doc}`),
        `${doc} has a checked block`,
      ).toBe(true);
    }
    expect(runnable.length).toBeGreaterThan(10);
  });

  it(`type-checks ${checked.length} blocks against the workspace packages`, () => {
    expect(typeCheckBlocks(projectDir, checked)).toEqual([]);
  });

  describe("runs the runnable blocks", () => runBlocks(projectDir, runnable));
});

// READMEs: the root one and each package's. A package README's blocks resolve
// from this package when it depends on that package, else from the package's
// own folder (its devDependencies, and its own name through "exports").
interface Readme {
  doc: string;
  dir: string;
  blocks: DocBlock[];
}
const readmes: Readme[] = [
  { doc: "README.md", dir: projectDir, blocks: [] },
  ...readdirSync(join(repoDir, "packages"))
    .sort()
    .filter((p) => existsSync(join(repoDir, "packages", p, "README.md")))
    .map((p) => {
      const pkg = JSON.parse(readFileSync(join(repoDir, "packages", p, "package.json"), "utf8"));
      const here = existsSync(join(projectDir, "node_modules", pkg.name, "package.json"));
      return {
        doc: `packages/${p}/README.md`,
        dir: here ? projectDir : join(repoDir, "packages", p),
        blocks: [],
      };
    }),
];
for (const r of readmes) r.blocks = extractFileBlocks(join(repoDir, r.doc), r.doc);
const readmeBlocks = readmes.flatMap((r) => r.blocks);

const where = (dir: string) => (dir === projectDir ? "this package" : relative(repoDir, dir));

describe("README code blocks", () => {
  it("README.md's examples run, and no README block is skipped", () => {
    const rootRuns = readmeBlocks.filter((b) => b.doc === "README.md" && b.mode === "run");
    expect(rootRuns.length).toBeGreaterThan(0);
    // A README example either runs or, when it needs a server or credentials,
    // is type-checked (```ts check, with the reason beside it): never skipped.
    const skipped = readmeBlocks.filter((b) => b.mode === "skip");
    expect(skipped.map((b) => `${b.doc}:${b.line}`)).toEqual([]);
  });

  for (const dir of new Set(readmes.map((r) => r.dir))) {
    const here = readmes.filter((r) => r.dir === dir);
    const checkedHere = here.flatMap((r) => r.blocks).filter((b) => b.mode !== "skip");
    const runHere = checkedHere.filter((b) => b.mode === "run");
    if (checkedHere.length === 0) continue;
    const docs = here.filter((r) => r.blocks.length > 0).map((r) => r.doc);
    it(`type-checks ${checkedHere.length} blocks of ${docs.join(", ")} from ${where(dir)}`, () => {
      expect(typeCheckBlocks(dir, checkedHere)).toEqual([]);
    });
    if (runHere.length > 0) {
      describe(`runs the runnable blocks from ${where(dir)}`, () => runBlocks(dir, runHere));
    }
  }
});

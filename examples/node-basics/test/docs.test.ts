// Every ```ts block in docs/*.md is type-checked against the workspace packages,
// and the runnable ones are executed, so the guides cannot rot.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import { blockFileName, blockSource, extractBlocks, typeCheckBlocks } from "./doc-blocks.js";

const projectDir = fileURLToPath(new URL("..", import.meta.url));
const docsDir = fileURLToPath(new URL("../../../docs", import.meta.url));
const blocks = extractBlocks(docsDir);
const checked = blocks.filter((b) => b.mode !== "skip");
const runnable = blocks.filter((b) => b.mode === "run");

describe("docs/ code blocks", () => {
  it("every guide is listed in docs/README.md and has checked code", () => {
    const index = readFileSync(join(docsDir, "README.md"), "utf8");
    for (const doc of readdirSync(docsDir).filter((f) => f.endsWith(".md") && f !== "README.md")) {
      expect(index, `docs/README.md links ${doc}`).toContain(`(${doc})`);
      expect(
        checked.some((b) => b.doc === doc),
        `${doc} has a checked block`,
      ).toBe(true);
    }
    expect(runnable.length).toBeGreaterThan(10);
  });

  it(`type-checks ${checked.length} blocks against the workspace packages`, () => {
    expect(typeCheckBlocks(projectDir, checked)).toEqual([]);
  });

  describe("runs the runnable blocks", () => {
    // Runnable blocks are written beside the package (so that its node_modules
    // resolve) and run from a temporary working directory, so relative paths
    // such as "data.zarr" land there.
    const runDir = join(projectDir, ".docs-run");
    const cwd = process.cwd();
    afterAll(() => {
      process.chdir(cwd);
      rmSync(runDir, { recursive: true, force: true });
    });
    for (const block of runnable) {
      it(`${block.doc}:${block.line}`, async () => {
        mkdirSync(runDir, { recursive: true });
        const file = join(runDir, blockFileName(projectDir, block).split("/").pop()!);
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
  });
});

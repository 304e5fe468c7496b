/**
 * API docs (issue 9): typedoc renders every published package's entry point
 * (root typedoc.json, `pnpm docs:api` writes dist/api) with no errors. Warnings
 * (e.g. a referenced type that is not exported) are printed, not failed on.
 *
 * TSDoc coverage (issue 17): every function, constructor and public method
 * that `@zarr/core`'s root entry exports has a summary and an `@param` per
 * parameter, and every exported function and class an `@example`
 * (`src/api-docs-check.ts` says exactly what is checked).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { checkApiDocs, formatFindings } from "../src/api-docs-check.js";
import { publishablePackages } from "../src/packs.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const typedoc = fileURLToPath(new URL("../node_modules/typedoc/bin/typedoc", import.meta.url));
const config = JSON.parse(readFileSync(join(root, "typedoc.json"), "utf8")) as {
  entryPoints: string[];
};

describe("API docs", () => {
  it("typedoc.json lists every published package", () => {
    const listed = new Set(config.entryPoints);
    const missing = publishablePackages(root)
      .map((p) => `packages/${p.dir.split(/[\\/]/).at(-1)}`)
      .filter((dir) => !listed.has(dir));
    expect(missing).toEqual([]);
  });

  it("typedoc renders every package with no errors", { timeout: 240_000 }, async () => {
    const out = mkdtempSync(join(tmpdir(), "zarr-api-docs-"));
    try {
      const { stdout, stderr } = await promisify(execFile)(
        process.execPath,
        [typedoc, "--options", "typedoc.json", "--out", out, "--logLevel", "Warn"],
        {
          cwd: root,
          maxBuffer: 32 * 1024 * 1024,
          env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
        },
      ).catch((e: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(`typedoc failed: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
      });
      const log = `${stdout}\n${stderr}`;
      const summary = /Found (\d+) errors? and (\d+) warnings?/.exec(log);
      if (summary?.[2] !== "0") console.warn(log);
      expect(summary?.[1] ?? "0", log).toBe("0");
      for (const pkg of publishablePackages(root)) {
        const page = join(out, "modules", `${pkg.name.replace(/[@/]/g, "_")}.html`);
        expect(existsSync(page), `no API page for ${pkg.name}`).toBe(true);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

/**
 * Source files of the root entry whose TSDoc is not yet complete: their
 * findings are printed, not failed on. Remove a file once it is documented.
 */
const PENDING_DOCS: ReadonlySet<string> = new Set<string>([]);

describe("TSDoc of the @zarr/core user API", () => {
  it("documents every parameter and has an @example per function and class", () => {
    const report = checkApiDocs(join(root, "packages/core/src/index.ts"), root);
    const pending = report.findings.filter((f) => PENDING_DOCS.has(f.file.replace(/\\/g, "/")));
    const failing = report.findings.filter((f) => !pending.includes(f));
    console.info(
      `@zarr/core root entry: ${report.documentedParams}/${report.params} parameters documented`,
    );
    if (pending.length > 0) {
      console.warn(
        `TSDoc still missing in files pending documentation:\n${formatFindings(pending)}`,
      );
    }
    expect(report.params).toBeGreaterThan(50);
    expect(formatFindings(failing), "add the missing TSDoc").toBe("");
  });
});

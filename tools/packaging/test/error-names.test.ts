/**
 * Error names survive minification: applications log and match `error.name`
 * ("CodecError", "NodeNotFoundError"), and minifiers rename classes, so a name
 * taken from the constructor would read "B" in a production bundle. Bundles
 * @zarr/core's published dist with esbuild --minify and checks every exported
 * error class. Needs a build first (`pnpm test` does it).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

describe("error names in a minified bundle", () => {
  it("every exported error class keeps its name", async () => {
    const dir = mkdtempSync(join(tmpdir(), "zarr-error-names-"));
    try {
      const out = join(dir, "bundle.mjs");
      await build({
        stdin: { contents: 'export * from "@zarr/core";', resolveDir: root },
        bundle: true,
        minify: true,
        format: "esm",
        platform: "browser",
        outfile: out,
        logLevel: "silent",
      });
      writeFileSync(join(dir, "package.json"), '{"type":"module"}');
      const core = (await import(pathToFileURL(out).href)) as Record<string, unknown>;
      const errorClasses = Object.entries(core).filter(
        ([, value]) => typeof value === "function" && value.prototype instanceof Error,
      );
      expect(errorClasses.length).toBeGreaterThan(10);
      const names = errorClasses.map(([exported, Cls]) => {
        const ctor = Cls as new (...args: unknown[]) => Error;
        const error =
          exported === "NotRegisteredError"
            ? new ctor("codec", "x", "install it")
            : new ctor("message");
        return [exported, error.name];
      });
      expect(names).toEqual(names.map(([exported]) => [exported, exported]));
      // A subclass an application defines keeps its own name.
      const CodecError = core.CodecError as new (message: string) => Error;
      class ChecksumMismatch extends CodecError {}
      expect(new ChecksumMismatch("bad").name).toBe("ChecksumMismatch");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

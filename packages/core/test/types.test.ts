/**
 * Type tests in CI: compiles `types/*.test-d.ts` (arrays typed by data type,
 * issue 17) and `typed-arrays.test.ts` (whose table of the claimed arrays must
 * match the type map) with the repository's TypeScript, and fails on any
 * diagnostic.
 * CI runs `pnpm test` (vitest), not `pnpm typecheck`, so this test is what
 * keeps the type tests checked there. The type tests fail to compile when a
 * type regresses: `expectTypeOf` on a differing type, and `@ts-expect-error`
 * on a line that is no longer an error.
 */
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const project = fileURLToPath(new URL("types/tsconfig.json", import.meta.url));

it("the type tests compile (tsc --noEmit -p test/types)", { timeout: 120_000 }, async () => {
  const result = await promisify(execFile)(process.execPath, [tsc, "--noEmit", "-p", project], {
    maxBuffer: 16 << 20,
  }).then(
    () => "",
    (e: { stdout?: string; stderr?: string; message: string }) =>
      `${e.stdout ?? ""}${e.stderr ?? ""}` || e.message,
  );
  expect(result).toBe("");
});

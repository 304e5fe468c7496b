import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import ProgressReporter from "./.ci/progress-reporter.mjs";

// One vitest run over every workspace package. Tests import packages by name;
// the "source" export condition points them at TypeScript sources, so unit
// tests never run against a stale build (CLI tests use the built bin).
export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"], externalConditions: ["source"] } },
  test: {
    include: [
      "packages/*/test/**/*.test.ts",
      "examples/*/test/**/*.test.ts",
      "tools/*/test/**/*.test.ts",
    ],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // At least two test files at a time (vitest's default is cores − 1, so one on
    // a 2-core machine): most of the suite's time goes to waiting on child
    // processes, servers and timers. On CI's 2-core machine the Node 24 run took
    // 791 s with one fork and 531 s with two.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // CI also writes a JSON report, from which .ci/run prints "N passed, M failed"
    // (ZARR_TEST_REPORT names another file: the Node 24 run writes its own), and,
    // with ZARR_TEST_PROGRESS, a log of what started when (named if a run hangs).
    reporters: [
      "default",
      ...(process.env.CI
        ? [["json", { outputFile: process.env.ZARR_TEST_REPORT ?? ".ci/results.json" }] as const]
        : []),
      ...(process.env.ZARR_TEST_PROGRESS
        ? [new ProgressReporter(process.env.ZARR_TEST_PROGRESS)]
        : []),
    ],
  },
});

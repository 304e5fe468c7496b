/**
 * The Node platform starts workers with a small young generation: V8's default
 * lets a worker's grow to 48 MiB (Node 20) or 192 MiB (Node 24) of resident
 * memory that its few objects per job never need (bench/RESULTS.md, peak RSS).
 */
import { describe, expect, it } from "vitest";
import { spawnWorker, WORKER_YOUNG_GENERATION_MB } from "../src/platform/node.js";

interface Report {
  resourceLimits: { maxYoungGenerationSizeMb: number; maxOldGenerationSizeMb: number };
  newSpaceBytes: number;
  kept: number;
}

function runFixture(): Promise<Report> {
  return new Promise((resolve, reject) => {
    const handle = spawnWorker(new URL("./fixtures/report-limits.mjs", import.meta.url), {
      message: (data) => {
        void handle.terminate();
        resolve(data as Report);
      },
      failed: reject,
    });
  });
}

describe("Node workers", () => {
  it("start with a young generation of WORKER_YOUNG_GENERATION_MB and the default old one", async () => {
    const report = await runFixture();
    expect(WORKER_YOUNG_GENERATION_MB).toBeLessThanOrEqual(4);
    expect(report.resourceLimits.maxYoungGenerationSizeMb).toBe(WORKER_YOUNG_GENERATION_MB);
    // Only the young generation is capped: a worker may still hold large heaps.
    expect(report.resourceLimits.maxOldGenerationSizeMb).toBeGreaterThanOrEqual(1024);
    // 200,000 short-lived objects, some kept, ran and the new space stayed within the cap.
    expect(report.kept).toBe(2000);
    expect(report.newSpaceBytes).toBeLessThanOrEqual(WORKER_YOUNG_GENERATION_MB * 2 ** 20);
  });
});

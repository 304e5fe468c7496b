// `zarr copy --part auto`: each task of a job array finds its part in the
// environment its scheduler sets (Kubernetes Indexed Jobs, AWS Batch, GCP
// Batch, Slurm), and N such tasks together copy exactly what one process does.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createArray, openArray } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import "@zarr/v2-compat/register";
import { repoRoot } from "@zarr/test-utils";
import { afterAll, describe, expect, it } from "vitest";
import { partFromEnvironment } from "../src/copy/job-array.js";

const bin = join(repoRoot, "packages/cli/bin/zarr.js");
const dir = mkdtempSync(join(tmpdir(), "zarr-cli-jobs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the part of a job array, from the environment", () => {
  it("Kubernetes Indexed Job: JOB_COMPLETION_INDEX with --parts or ZARR_COPY_PARTS", () => {
    expect(partFromEnvironment({ JOB_COMPLETION_INDEX: "3" }, 8)).toMatchObject({
      part: 3,
      parts: 8,
    });
    expect(
      partFromEnvironment({ JOB_COMPLETION_INDEX: "0", ZARR_COPY_PARTS: "4" }, undefined),
    ).toMatchObject({ part: 0, parts: 4, source: expect.stringMatching(/Kubernetes/) });
    expect(() => partFromEnvironment({ JOB_COMPLETION_INDEX: "3" }, undefined)).toThrow(
      /JOB_COMPLETION_INDEX=3 \(Kubernetes Indexed Job\) gives this task's index but not how many parts there are: pass --parts N or set ZARR_COPY_PARTS/,
    );
  });

  it("AWS Batch: AWS_BATCH_JOB_ARRAY_INDEX with --parts", () => {
    expect(partFromEnvironment({ AWS_BATCH_JOB_ARRAY_INDEX: "15" }, 16)).toMatchObject({
      part: 15,
      parts: 16,
      source: expect.stringMatching(/AWS Batch/),
    });
  });

  it("GCP Batch: BATCH_TASK_INDEX and BATCH_TASK_COUNT", () => {
    expect(
      partFromEnvironment({ BATCH_TASK_INDEX: "2", BATCH_TASK_COUNT: "5" }, undefined),
    ).toMatchObject({ part: 2, parts: 5, source: expect.stringMatching(/GCP Batch/) });
    expect(() => partFromEnvironment({ BATCH_TASK_INDEX: "2" }, undefined)).toThrow(
      /BATCH_TASK_COUNT is not/,
    );
  });

  it("Slurm: the task id less the array's minimum, over its step", () => {
    const env = {
      SLURM_ARRAY_TASK_ID: "14",
      SLURM_ARRAY_TASK_MIN: "10",
      SLURM_ARRAY_TASK_STEP: "2",
      SLURM_ARRAY_TASK_COUNT: "4",
    };
    expect(partFromEnvironment(env, undefined)).toMatchObject({ part: 2, parts: 4 });
    expect(() => partFromEnvironment({ ...env, SLURM_ARRAY_TASK_ID: "13" }, undefined)).toThrow(
      /SLURM_ARRAY_TASK_ID=13 is not MIN \+ k × STEP/,
    );
    expect(
      partFromEnvironment(
        { SLURM_ARRAY_TASK_ID: "1", SLURM_ARRAY_TASK_COUNT: "3", SLURM_ARRAY_TASK_MIN: "1" },
        undefined,
      ),
    ).toMatchObject({ part: 0, parts: 3 });
  });

  it("a count given by --parts or ZARR_COPY_PARTS must agree with the scheduler's own", () => {
    const slurm = { SLURM_ARRAY_TASK_ID: "3", SLURM_ARRAY_TASK_COUNT: "4" };
    expect(() => partFromEnvironment(slurm, 8)).toThrow(
      /--parts says 8 parts but SLURM_ARRAY_TASK_COUNT=4: leave --parts out, or make them agree/,
    );
    expect(partFromEnvironment(slurm, 4)).toMatchObject({ part: 3, parts: 4 });
    const gcp = { BATCH_TASK_INDEX: "2", BATCH_TASK_COUNT: "3", ZARR_COPY_PARTS: "5" };
    expect(() => partFromEnvironment(gcp, undefined)).toThrow(
      /ZARR_COPY_PARTS says 5 parts but BATCH_TASK_COUNT=3/,
    );
  });

  it("refuses no index, two schedulers that disagree, an index past the count, and junk", () => {
    expect(() => partFromEnvironment({}, 4)).toThrow(/no job-array index in the environment/);
    expect(() =>
      partFromEnvironment(
        { JOB_COMPLETION_INDEX: "1", BATCH_TASK_INDEX: "2", BATCH_TASK_COUNT: "4" },
        4,
      ),
    ).toThrow(/says part 1\/4 but BATCH_TASK_INDEX\/BATCH_TASK_COUNT \(GCP Batch\) says 2\/4/);
    expect(() => partFromEnvironment({ JOB_COMPLETION_INDEX: "4" }, 4)).toThrow(
      /gives part 4 of 4: the index must be below the count/,
    );
    expect(() => partFromEnvironment({ JOB_COMPLETION_INDEX: "-1" }, 4)).toThrow(
      /JOB_COMPLETION_INDEX="-1" is not a non-negative integer/,
    );
    expect(() => partFromEnvironment({ JOB_COMPLETION_INDEX: "1.5" }, 4)).toThrow(
      /not a non-negative integer/,
    );
    // The same part from two schedulers is fine.
    expect(
      partFromEnvironment(
        { JOB_COMPLETION_INDEX: "1", BATCH_TASK_INDEX: "1", BATCH_TASK_COUNT: "4" },
        4,
      ),
    ).toMatchObject({ part: 1, parts: 4 });
  });
});

describe("zarr copy --part auto as a job array", () => {
  /** Only the scheduler variables a test sets: none inherited from the machine running the tests. */
  function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
    const env = { ...process.env };
    for (const name of Object.keys(env)) {
      if (/^(JOB_COMPLETION_INDEX|AWS_BATCH_|BATCH_TASK_|SLURM_ARRAY_|ZARR_COPY_PARTS)/.test(name))
        delete env[name];
    }
    return { ...env, ...extra };
  }

  function zarr(args: string[], env: Record<string, string>) {
    return spawnSync(process.execPath, [bin, ...args], {
      encoding: "utf8",
      env: cleanEnv(env),
      timeout: 60_000,
    });
  }

  it("tasks of every scheduler kind together copy the whole array, each its own part", async () => {
    const src = join(dir, "src.zarr");
    const a = await createArray(new FileSystemStore(src), "t", {
      shape: [90, 70],
      chunkShape: [10, 10],
      dataType: "int32",
      fillValue: -1,
    });
    const values = Int32Array.from({ length: 90 * 70 }, (_, i) => (i * 7) % 1000);
    await a.set(null, values);
    const schedulers: [string, (i: number) => Record<string, string>][] = [
      ["kubernetes", (i) => ({ JOB_COMPLETION_INDEX: String(i), ZARR_COPY_PARTS: "4" })],
      ["aws", (i) => ({ AWS_BATCH_JOB_ARRAY_INDEX: String(i), ZARR_COPY_PARTS: "4" })],
      ["gcp", (i) => ({ BATCH_TASK_INDEX: String(i), BATCH_TASK_COUNT: "4" })],
      [
        "slurm",
        (i) => ({
          SLURM_ARRAY_TASK_ID: String(5 + i),
          SLURM_ARRAY_TASK_MIN: "5",
          SLURM_ARRAY_TASK_COUNT: "4",
        }),
      ],
    ];
    for (const [name, envOf] of schedulers) {
      const dst = join(dir, `${name}.zarr`);
      // Part 0 writes the metadata; the others may start before it and write only data.
      for (const i of [3, 1, 2, 0]) {
        const r = zarr(["copy", src, dst, "--part", "auto", "--format", "2"], envOf(i));
        expect(r.stderr, `${name} task ${i}`).toMatch(
          new RegExp(`^zarr: note: --part auto: part ${i}/4 from `),
        );
        expect(r.status, `${name} task ${i}: ${r.stderr}`).toBe(0);
      }
      const copied = await openArray(new FileSystemStore(dst), "t");
      expect(copied.zarrFormat).toBe(2);
      const { data } = await copied.get(null);
      expect(Array.from(data as Int32Array)).toEqual(Array.from(values));
    }
  });

  it("without an index in the environment, or with --parts alone, it is a usage error", () => {
    const src = join(dir, "src.zarr");
    const none = zarr(["copy", src, join(dir, "x.zarr"), "--part", "auto"], {});
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/^zarr: usage: --part auto: no job-array index in the environment/);
    const alone = zarr(["copy", src, join(dir, "y.zarr"), "--parts", "4"], {});
    expect(alone.status).toBe(1);
    expect(alone.stderr).toBe("zarr: usage: --parts N goes with --part auto or --plan\n");
  });

  it("--plan prints each part's chunks and bytes, copies nothing, and agrees with the parts' own work", () => {
    const src = join(dir, "src.zarr");
    const dst = join(dir, "planned.zarr");
    const r = zarr(["copy", src, dst, "--format", "2", "--parts", "3", "--plan", "--json"], {});
    expect(r.status, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout);
    expect(plan).toMatchObject({ parts: 3, chunks: 63, bytes: 63 * 100 * 4 });
    expect(plan.per_part.map((p: { chunks: number }) => p.chunks)).toEqual([21, 21, 21]);
    expect(existsSync(dst)).toBe(false);
    for (const part of [0, 1, 2]) {
      const copied = zarr(["copy", src, dst, "--format", "2", "--part", `${part}/3`], {});
      expect(copied.status, copied.stderr).toBe(0);
      expect(copied.stdout).toMatch(new RegExp(`: ${plan.per_part[part].chunks} chunks \\(`));
    }
    const text = zarr(["copy", src, dst, "--format", "2", "--parts", "3", "--plan"], {});
    expect(text.stdout.split("\n")[0]).toBe("part 0/3: 21 chunks, 8.2 KiB");
    expect(text.stdout).toMatch(/\ntotal: 63 chunks, 24.6 KiB in 3 parts\n$/);
  });
});

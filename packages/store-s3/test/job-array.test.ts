// `zarr copy --part auto` as a Kubernetes Indexed Job against the real
// S3-compatible server: 8 tasks convert a v2 array into a sharded v3 array on
// S3 at once, one is killed mid-way and rerun with --resume, and the result
// verifies and holds the same values and the same shards as a copy made by
// one process.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateBucketCommand } from "@aws-sdk/client-s3";
import { createS3Client, S3Store, type S3StoreOptions } from "@zarr/store-s3";
import { repoRoot, s3TestServer, uniqueBucketName } from "@zarr/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const { server, reason } = s3TestServer();
if (!server) {
  if (process.env.CI) throw new Error(`S3 job-array tests cannot run in CI: ${reason}`);
  console.warn(`skipping zarr copy --part auto on s3:// tests: ${reason}`);
}

const bin = join(repoRoot, "packages/cli/bin/zarr.js");
const TASKS = 8;

/** A `zarr` process with the S3 credentials and only the job-array variables given. */
function zarr(args: string[], env: Record<string, string> = {}) {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(base)) {
    if (/^(JOB_COMPLETION_INDEX|AWS_BATCH_|BATCH_TASK_|SLURM_ARRAY_|ZARR_COPY_PARTS)/.test(name))
      delete base[name];
  }
  const s3Flags = ["--s3-endpoint", server!.endpoint, "--s3-legacy-checksums"];
  const child = spawn(process.execPath, [bin, ...args, ...s3Flags], {
    env: {
      ...base,
      AWS_ACCESS_KEY_ID: server!.accessKeyId,
      AWS_SECRET_ACCESS_KEY: server!.secretAccessKey,
      AWS_REGION: server!.region,
      AWS_EC2_METADATA_DISABLED: "true",
      ...env,
    },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  const done = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal })),
  );
  return { child: child as ChildProcess, done, out: () => stdout, err: () => stderr };
}

describe.skipIf(!server)("zarr copy --part auto: an indexed job on S3", () => {
  const bucket = uniqueBucketName("zarr-jobs");
  const dir = mkdtempSync(join(tmpdir(), "zarr-s3-jobs-"));
  const src = join(dir, "src.zarr");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const s3 = (prefix: string): S3StoreOptions => ({
    bucket,
    prefix,
    endpoint: server!.endpoint,
    region: server!.region,
    credentials: { accessKeyId: server!.accessKeyId, secretAccessKey: server!.secretAccessKey },
    legacyChecksums: true,
  });
  const values = Float32Array.from({ length: 512 * 512 }, (_, i) => Math.sin(i / 97) * 1000);
  const layout = [
    "--format",
    "3",
    "--chunks",
    "32,32",
    "--shards",
    "128,128",
    "--compressor",
    "zstd:3",
  ];

  beforeAll(async () => {
    await createS3Client(s3("")).send(new CreateBucketCommand({ Bucket: bucket }));
    // The source: a v2 array made by the CLI itself (zlib, 64×64 chunks).
    const made = zarr([
      "create",
      src,
      "t",
      "--format",
      "2",
      "--shape",
      "512,512",
      "--dtype",
      "float32",
      "--chunks",
      "64,64",
      "--compressor",
      "gzip:1",
    ]);
    expect((await made.done).code, made.err()).toBe(0);
    const raw = join(dir, "values.bin");
    writeFileSync(raw, new Uint8Array(values.buffer));
    const filled = zarr(["set", src, "t", "--from", raw]);
    expect((await filled.done).code, filled.err()).toBe(0);
  }, 120_000);

  it("8 tasks, one killed and resumed, give the shards and values of a one-process copy", async () => {
    const dst = `s3://${bucket}/job.zarr`;
    const tasks = Array.from({ length: TASKS }, (_, i) =>
      zarr(["copy", src, dst, ...layout, "--part", "auto"], {
        JOB_COMPLETION_INDEX: String(i),
        ZARR_COPY_PARTS: String(TASKS),
      }),
    );
    // Kill task 3 once it has taken its part and started copying.
    const victim = tasks[3];
    let exited = false;
    victim.done.then(() => {
      exited = true;
    });
    while (!exited && !victim.err().includes("--part auto")) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 150));
    victim.child.kill("SIGKILL");
    const results = await Promise.all(tasks.map((t) => t.done));
    results.forEach((r, i) => {
      if (i !== 3) expect(r.code, `task ${i}: ${tasks[i].err()}`).toBe(0);
    });
    for (const [i, t] of tasks.entries()) {
      expect(t.err(), `task ${i}`).toMatch(
        new RegExp(`^zarr: note: --part auto: part ${i}/${TASKS} from JOB_COMPLETION_INDEX`),
      );
    }
    // The scheduler retries the failed index: same environment, with --resume.
    const retry = zarr(["copy", src, dst, ...layout, "--part", "auto", "--resume"], {
      JOB_COMPLETION_INDEX: "3",
      ZARR_COPY_PARTS: String(TASKS),
    });
    expect((await retry.done).code, retry.err()).toBe(0);

    const verify = zarr(["verify", dst]);
    expect((await verify.done).code, verify.err() + verify.out()).toBe(0);
    expect(verify.out()).toMatch(/^ok: 16 chunks in 1 array decoded; 0 corrupt/);

    // One process, the reference.
    const single = zarr(["copy", src, `s3://${bucket}/single.zarr`, ...layout]);
    expect((await single.done).code, single.err()).toBe(0);
    const diff = zarr(["diff", dst, `s3://${bucket}/single.zarr`]);
    expect((await diff.done).code, diff.out() + diff.err()).toBe(0);
    expect(diff.out()).toMatch(/\nsame: 2 nodes, 1 array, 262144 elements compared\n$/);
    // The values, read back by the CLI (which has every codec).
    for (const name of ["job", "single"]) {
      const out = join(dir, `${name}.bin`);
      const got = zarr(["get", `s3://${bucket}/${name}.zarr`, "t", "--out", out]);
      expect((await got.done).code, got.err()).toBe(0);
      expect(readFileSync(out).equals(Buffer.from(values.buffer)), name).toBe(true);
    }
    // Byte for byte the same shards.
    const jobStore = new S3Store(s3("job.zarr"));
    const oneStore = new S3Store(s3("single.zarr"));
    for (let r = 0; r < 4; r++) {
      for (let c = 0; c < 4; c++) {
        const key = `t/c/${r}/${c}`;
        const [x, y] = await Promise.all([jobStore.get(key), oneStore.get(key)]);
        expect(x, key).toBeDefined();
        expect(Buffer.from(x!).equals(Buffer.from(y!)), key).toBe(true);
      }
    }
  }, 240_000);
});

// The `zarr` command on s3:// URLs against the real S3-compatible server
// (Swift + s3api on 127.0.0.1): an array written through S3Store reads the same
// through `zarr get s3://…` as through a local copy, with the endpoint from a
// flag and the credentials from the usual AWS_* variables.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { CreateBucketCommand } from "@aws-sdk/client-s3";
import { createArray } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { createS3Client, S3Store, type S3StoreOptions } from "@zarr/store-s3";
import { repoRoot, s3TestServer, uniqueBucketName } from "@zarr/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const { server, reason } = s3TestServer();
if (!server) {
  if (process.env.CI) throw new Error(`S3 CLI tests cannot run in CI: ${reason}`);
  console.warn(`skipping zarr CLI on s3:// tests: ${reason}`);
}

describe.skipIf(!server)("zarr get s3://", () => {
  const bucket = uniqueBucketName("zarr-cli");
  const dir = mkdtempSync(join(tmpdir(), "zarr-s3-cli-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const options = (): S3StoreOptions => ({
    bucket,
    prefix: "data.zarr",
    endpoint: server!.endpoint,
    region: server!.region,
    credentials: { accessKeyId: server!.accessKeyId, secretAccessKey: server!.secretAccessKey },
    legacyChecksums: true,
  });

  beforeAll(async () => {
    await createS3Client(options()).send(new CreateBucketCommand({ Bucket: bucket }));
  });

  it("prints the same JSON as the local copy of the array", async () => {
    const values = Float64Array.from({ length: 30 }, (_, i) => (i % 7 === 0 ? Number.NaN : i / 4));
    for (const store of [new S3Store(options()), new FileSystemStore(join(dir, "data.zarr"))]) {
      const a = await createArray(store, "g/a", {
        shape: [5, 6],
        dataType: "float64",
        chunkShape: [2, 4],
        codecs: [{ name: "bytes", configuration: { endian: "big" } }, { name: "crc32c" }],
      });
      await a.set(null, values);
    }
    const bin = join(repoRoot, "node_modules/.bin/zarr");
    const env = {
      ...process.env,
      AWS_ACCESS_KEY_ID: server!.accessKeyId,
      AWS_SECRET_ACCESS_KEY: server!.secretAccessKey,
      AWS_REGION: server!.region,
      AWS_EC2_METADATA_DISABLED: "true",
    };
    const viaS3 = await run(
      bin,
      [
        "get",
        `s3://${bucket}/data.zarr`,
        "g/a",
        "--select",
        "1:,::-2",
        "--json",
        "--s3-endpoint",
        server!.endpoint,
        "--s3-legacy-checksums",
      ],
      { env },
    );
    const local = await run(bin, [
      "get",
      join(dir, "data.zarr"),
      "g/a",
      "--select",
      "1:,::-2",
      "--json",
    ]);
    expect(viaS3.stdout).toBe(local.stdout);
    expect(JSON.parse(viaS3.stdout).shape).toEqual([4, 3]);
  });
});

// Fault injection between S3Store (through the AWS SDK) and the S3 test
// server: a proxy on 127.0.0.1 (@zarr/test-utils startFaultProxy) answers
// 500/503, resets connections before or during the body, and closes them
// after part of the body, as a seeded plan decides. Reads return exactly the
// stored bytes or fail with a StoreError naming the key; a write that fails
// leaves the old or the new value, never a mix; storms of 503s end in a
// StoreError after `maxAttempts`. The suite is shared with @zarr/store-gcs
// (@zarr/test-utils/store-suites). Skips with a printed reason when no S3
// server is configured (S3_ENDPOINT; see .ci/services.sh).
import { CreateBucketCommand } from "@aws-sdk/client-s3";
import type { ByteRange } from "@zarr/core/store";
import { S3Store, type S3StoreOptions } from "@zarr/store-s3";
import {
  type Fault,
  randomFaults,
  s3TestServer,
  startFaultProxy,
  uniqueBucketName,
} from "@zarr/test-utils";
import { describeFaults } from "@zarr/test-utils/store-suites";

const { server, reason } = s3TestServer();
if (!server) {
  if (process.env.CI) throw new Error(`S3 tests cannot run in CI: ${reason}`);
  console.warn(`skipping @zarr/store-s3 fault-injection tests: ${reason}`);
}

const RUNS = Math.max(120, Math.floor((Number(process.env.FUZZ_RUNS) || 10_000) / 80));
const bucket = uniqueBucketName("zarr-s3-fault");
const prefix = `fault-${process.pid}`;

function options(endpoint: string, extra: Partial<S3StoreOptions> = {}): S3StoreOptions {
  if (!server) throw new Error("no S3 server");
  return {
    bucket,
    prefix,
    endpoint,
    region: server.region,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
    legacyChecksums: true,
    ...extra,
  };
}

describeFaults({
  name: "S3Store",
  skip: !server,
  seed: 99,
  async start() {
    const proxy = await startFaultProxy(server!.endpoint, { seed: 42 });
    const direct = new S3Store(options(server!.endpoint));
    await direct.client.send(new CreateBucketCommand({ Bucket: bucket }));
    return {
      proxy,
      direct,
      // maxAttempts 3: the SDK's standard retry mode with its own backoff.
      faulty: new S3Store(options(proxy.url, { maxAttempts: 3 })),
      async close() {
        await proxy.close();
        if (!process.env.CI) await direct.erasePrefix("").catch(() => {});
      },
    };
  },
  retried: { wholeRead: false },
  midBody: {
    title: "%s is a StoreError naming the key, never short data",
    cases: [
      ["a 200 body shorter than its Content-Length", "truncate", undefined],
      ["a truncated 206 body", "truncate", { offset: 1000, length: 200_000 }],
      ["a connection reset in the middle of a 200 body", "reset-mid-body", undefined],
      ["a connection reset in the middle of a 206 body", "reset-mid-body", { suffix: 150_000 }],
    ] as [string, Fault, ByteRange | undefined][],
    thenExact: true,
  },
  storm: {
    title: "503 storms end in a StoreError after maxAttempts, within bounded time",
    requests: [3, 3],
    message: /"big".*HTTP 503/,
    maxMs: 10_000,
    write: true,
  },
  random: {
    runs: RUNS,
    keys: ["a/0", "a/1", "b/0", "c/zarr.json"],
    writeRate: 0.3,
    plan: randomFaults(0.4),
  },
});

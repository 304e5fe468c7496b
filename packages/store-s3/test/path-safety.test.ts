// Path safety of S3Store: keys with `..` or `.` segments, a leading `/`,
// empty segments, backslashes, NUL and other control characters (and such
// prefixes) are rejected with InvalidKeyError before any request is sent,
// whether the store is used through core's resolveStore or directly, so a
// store under a prefix cannot reach the objects beside it (the suite keeps one
// there). Requests are counted by a pass-through proxy on 127.0.0.1. The suite
// is shared with @zarr/store-gcs (@zarr/test-utils/store-suites). Skips with a
// printed reason when no S3 server is configured (S3_ENDPOINT).
import { CreateBucketCommand } from "@aws-sdk/client-s3";
import { S3Store, type S3StoreOptions } from "@zarr/store-s3";
import { s3TestServer, startFaultProxy, uniqueBucketName } from "@zarr/test-utils";
import { describePathSafety } from "@zarr/test-utils/store-suites";

const { server, reason } = s3TestServer();
if (!server) {
  if (process.env.CI) throw new Error(`S3 tests cannot run in CI: ${reason}`);
  console.warn(`skipping @zarr/store-s3 path-safety tests: ${reason}`);
}

const bucket = uniqueBucketName("zarr-s3-paths");
const options = (endpoint: string, prefix: string): S3StoreOptions => ({
  bucket,
  prefix,
  endpoint,
  region: server!.region,
  credentials: { accessKeyId: server!.accessKeyId, secretAccessKey: server!.secretAccessKey },
  legacyChecksums: true,
  maxAttempts: 1,
});

describePathSafety({
  name: "S3Store",
  skip: !server,
  async start() {
    const proxy = await startFaultProxy(server!.endpoint);
    const direct = (prefix: string) => new S3Store(options(server!.endpoint, prefix));
    await direct("").client.send(new CreateBucketCommand({ Bucket: bucket }));
    return {
      direct,
      watched: (prefix) => new S3Store(options(proxy.url, prefix)),
      requests: () => proxy.log,
      clearRequests: () => {
        proxy.log.length = 0;
      },
      async close() {
        await proxy.close();
        if (!process.env.CI)
          await direct("paths")
            .erasePrefix("")
            .catch(() => {});
      },
    };
  },
});

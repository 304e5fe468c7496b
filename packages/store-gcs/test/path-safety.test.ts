// Path safety of GcsStore: keys with `..` or `.` segments, a leading `/`,
// empty segments, backslashes, NUL and other control characters (and such
// prefixes) are rejected with InvalidKeyError before any request is sent,
// whether the store is used through core's resolveStore or directly, so a
// store under a prefix cannot reach the objects beside it (the suite keeps one
// there). Runs against the in-process GCS emulator of @zarr/test-utils on
// 127.0.0.1, whose request log shows that nothing was sent. The suite is
// shared with @zarr/store-s3 (@zarr/test-utils/store-suites).
import { GcsStore, type GcsStoreOptions } from "@zarr/store-gcs";
import { startGcsEmulator } from "@zarr/test-utils";
import { describePathSafety } from "@zarr/test-utils/store-suites";

process.env.METADATA_SERVER_DETECTION = "none";

const BUCKET = "zarr-gcs-paths";

describePathSafety({
  name: "GcsStore",
  async start() {
    const emulator = await startGcsEmulator();
    emulator.createBucket(BUCKET);
    const store = (prefix: string) =>
      new GcsStore({
        bucket: BUCKET,
        prefix,
        apiEndpoint: emulator.endpoint,
        projectId: "test",
        retryOptions: { autoRetry: false },
      } satisfies GcsStoreOptions);
    return {
      direct: store,
      watched: store,
      requests: () => emulator.requests,
      clearRequests: () => {
        emulator.requests.length = 0;
      },
      close: () => emulator.close(),
    };
  },
});

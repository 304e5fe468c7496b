// Fault injection between GcsStore (the real @google-cloud/storage client)
// and the GCS emulator of @zarr/test-utils: a proxy on 127.0.0.1
// (startFaultProxy) answers 500/503, resets connections before or during the
// body, and closes them after part of the body, as a seeded plan decides.
// Requests failing before the response are retried and reads return exactly
// the stored bytes or fail with a StoreError naming the key; a write that
// fails leaves the old or the new value; storms of 503s end in a StoreError
// within bounded time. Faults in the middle of a body hang the client library
// (a known issue, bounded by the store's idle timeout below). The suite is
// shared with @zarr/store-s3 (@zarr/test-utils/store-suites).
import { GcsStore, type GcsStoreOptions } from "@zarr/store-gcs";
import { type Fault, randomFaults, startFaultProxy, startGcsEmulator } from "@zarr/test-utils";
import { describeFaults } from "@zarr/test-utils/store-suites";

process.env.METADATA_SERVER_DETECTION = "none";

// Each retry waits about 1 s in the client, so this target stays small.
const RUNS = Math.max(40, Math.floor((Number(process.env.FUZZ_RUNS) || 10_000) / 250));
const BUCKET = "zarr-gcs-fault";

const options = (endpoint: string): GcsStoreOptions => ({
  bucket: BUCKET,
  prefix: "fault",
  apiEndpoint: endpoint,
  projectId: "test",
  // Short delays, at most 3 retries (the store's default count).
  retryOptions: { retryDelayMultiplier: 1, maxRetryDelay: 1, totalTimeout: 10 },
});

describeFaults({
  name: "GcsStore",
  seed: 5,
  async start() {
    const emulator = await startGcsEmulator();
    emulator.createBucket(BUCKET);
    const proxy = await startFaultProxy(emulator.endpoint, { seed: 42 });
    return {
      proxy,
      direct: new GcsStore(options(emulator.endpoint)),
      faulty: new GcsStore(options(proxy.url)),
      async close() {
        await proxy.close();
        await emulator.close();
      },
    };
  },
  retried: { wholeRead: true },
  // @google-cloud/storage 7 reads responses through node-fetch 2, which never
  // settles when a connection closes or resets in the middle of a body
  // (Content-Length not reached). GcsStore bounds every call with its
  // `idleTimeout`, so the read fails with a StoreError instead of hanging.
  midBody: {
    title: "a %s in the middle of a body is a StoreError within the idle timeout",
    cases: (["truncate", "reset-mid-body"] as Fault[]).map((f) => [f, f, undefined]),
    store: ({ proxy }) => new GcsStore({ ...options(proxy.url), idleTimeout: 1500 }),
    thenExact: true,
  },
  storm: {
    title: "503 storms end in a StoreError within bounded time",
    range: { offset: 5, length: 10 },
    requests: [2, 5],
    message: /"big".*HTTP 503/,
    maxMs: 15_000,
    write: false,
  },
  random: {
    runs: RUNS,
    keys: ["a/0", "a/1", "c/zarr.json"],
    writeRate: 0.25,
    // Faults before the response only: mid-body faults hang the client (see above).
    plan: randomFaults(0.2, ["500", "503", "reset"]),
  },
});

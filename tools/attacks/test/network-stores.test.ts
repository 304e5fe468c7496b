// S3Store (@aws-sdk/client-s3, path-style) and GcsStore (@google-cloud/storage,
// apiEndpoint) pointed at the hostile server of src/hostile-http.ts playing
// the endpoint (the bucket names the scenario). A silent server, headers then
// nothing, a slow drip, endless bodies (also behind an error status) and
// bodies longer than their Content-Length or than the range asked must end in
// a StoreError naming the key within the configured total, without unbounded
// memory; each read runs in a child process under the watchdog.
import type { ByteRange } from "@zarr/core/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attack, describeRun, type HostileServer, startHostileServer } from "../src/index.js";

/** The configured total of every read below (ms). */
const TOTAL = 3_000;
/** Watchdog caps: the total plus room for a child's start on a loaded machine. */
const LIMITS = { maxRssMiB: 400, timeoutMs: TOTAL + 12_000 };

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(async () => {
  await server?.close();
});

type Kind = "s3" | "gcs";

/** The store constructor call for `kind` on the hostile bucket `scenario`. */
function makeStore(kind: Kind, scenario: string, extra: object = {}): string {
  if (kind === "s3") {
    const options = {
      bucket: scenario,
      prefix: "data",
      endpoint: server.url,
      region: "us-east-1",
      credentials: { accessKeyId: "hostile", secretAccessKey: "hostile" },
      maxAttempts: 2,
      timeouts: { connect: 1_000, response: 1_000, idle: 1_000, total: TOTAL },
      ...extra,
    };
    return `new (await import("@zarr/store-s3")).S3Store(${JSON.stringify(options)})`;
  }
  const options = {
    bucket: scenario,
    prefix: "data",
    apiEndpoint: server.url,
    projectId: "hostile",
    retryOptions: { maxRetries: 1, retryDelayMultiplier: 1, maxRetryDelay: 0.05 },
    idleTimeout: 1_000,
    timeout: TOTAL,
    ...extra,
  };
  return `new (await import("@zarr/store-gcs")).GcsStore(${JSON.stringify(options)})`;
}

interface Outcome {
  ms: number;
  length?: number;
  error?: string;
  message?: string;
  path?: string;
}

/** `store.get(key, range, {maxBytes})` (or `getSize`) in a watched child. */
async function read(
  kind: Kind,
  scenario: string,
  op: { range?: ByteRange; maxBytes?: number; size?: boolean; extra?: object } = {},
) {
  const call = op.size
    ? `store.getSize("c/0")`
    : `store.get("c/0", ${JSON.stringify(op.range)}, ${JSON.stringify(op.maxBytes === undefined ? {} : { maxBytes: op.maxBytes })})`;
  const run = await attack(
    `
process.env.METADATA_SERVER_DETECTION = "none";
const store = ${makeStore(kind, scenario, op.extra)};
const t0 = performance.now();
try {
  const v = await ${call};
  return { ms: performance.now() - t0, length: typeof v === "number" ? v : v?.length };
} catch (e) {
  return { ms: performance.now() - t0, error: e?.name, message: String(e?.message), path: e?.path };
}`,
    LIMITS,
  );
  return { run, out: (run.value ?? {}) as Outcome };
}

function expectStoreError(r: Awaited<ReturnType<typeof read>>, pattern?: RegExp, peak = 300) {
  const info = `${describeRun(r.run)} ${JSON.stringify(r.out)}`;
  expect(r.run.killed, info).toBeUndefined();
  // A StoreError, or its ValueTooLargeError past options.maxBytes; a chunk read through
  // core past what its codecs can produce is reported as a damaged chunk (CodecError).
  expect(
    r.out.error === "StoreError" ||
      r.out.error === "ValueTooLargeError" ||
      (r.out.error === "CodecError" &&
        /larger than its codecs can produce/.test(r.out.message ?? "")),
    info,
  ).toBe(true);
  expect(r.out.path, info).toBe("c/0");
  expect(r.out.message, info).toContain('"c/0"');
  if (pattern) expect(r.out.message, info).toMatch(pattern);
  expect(r.out.ms, info).toBeLessThan(TOTAL + 1_000);
  expect(r.run.peakRssMiB, info).toBeLessThan(peak);
  console.info(
    `${r.out.message?.slice(0, 200)} | ${r.out.ms.toFixed(0)} ms, peak ${r.run.peakRssMiB} MiB`,
  );
}

describe.each(["s3", "gcs"] as const)("%s store against a hostile endpoint", (kind) => {
  describe.concurrent("time", () => {
    it.each(["silence", "headers-then-silence", "short-then-silence", "drip"])(
      "%s ends in a StoreError naming the key within the total",
      async (scenario) => {
        expectStoreError(await read(kind, scenario), /timed out|no data|timeout/i, 200);
      },
    );

    it("getSize of a silent server ends within the total", async () => {
      expectStoreError(await read(kind, "silence", { size: true }), /timed out|timeout/i, 200);
    });
  });

  describe.concurrent("size", () => {
    it("an endless body stops at options.maxBytes", async () => {
      expectStoreError(await read(kind, "endless", { maxBytes: 1 << 20 }), /1048576/, 200);
    });

    it("an endless body stops at maxBodyBytes when the caller gives no maxBytes", async () => {
      const r = await read(kind, "endless", { extra: { maxBodyBytes: 8 << 20 } });
      expectStoreError(r, /8388608/, 200);
    });

    it("an endless 200 to a Range request yields the range's bytes and stops reading", async () => {
      const r = await read(kind, "endless", { range: { offset: 0, length: 100 } });
      expect(r.out, describeRun(r.run)).toMatchObject({ length: 100 });
      expect(r.run.peakRssMiB).toBeLessThan(200);
    });

    it("an endless 206 stops once it passes the range asked", async () => {
      const r = await read(kind, "endless-206", { range: { offset: 0, length: 1000 } });
      expectStoreError(r, /1000/, 200);
    });

    it("a 206 whose Content-Length is longer than the range asked is refused", async () => {
      const r = await read(kind, "longer-than-range", { range: { offset: 0, length: 1000 } });
      expectStoreError(r, /1000|2000/, 200);
    });

    it("a 206 with a shifted Content-Range is refused", async () => {
      const r = await read(kind, "wrong-range-offset", { range: { offset: 10, length: 100 } });
      expectStoreError(r, undefined, 200);
    });

    it("a 200 body longer than its Content-Length yields the declared bytes or a StoreError, never more", async () => {
      // Node's HTTP parser ends the body at Content-Length; with `Connection:
      // close`, node-fetch (GCS client) reports the extra bytes as a parse error.
      const r = await read(kind, "longer-than-length");
      if (r.out.error === undefined) {
        expect(r.out, describeRun(r.run)).toMatchObject({ length: 100 });
        expect(r.run.peakRssMiB).toBeLessThan(200);
      } else expectStoreError(r, undefined, 200);
    });

    it("an error status with an endless body is a StoreError, bounded", async () => {
      expectStoreError(await read(kind, "endless-error"), undefined, 200);
    });
  });
});

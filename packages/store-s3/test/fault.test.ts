// Fault injection between S3Store (through the AWS SDK) and the S3 test
// server: a proxy on 127.0.0.1 (@zarr/test-utils startFaultProxy) answers
// 500/503, resets connections before or during the body, and closes them
// after part of the body, as a seeded plan decides. Reads return exactly the
// stored bytes or fail with a StoreError naming the key; a write that fails
// leaves the old or the new value, never a mix; storms of 503s end in a
// StoreError after `maxAttempts`. Skips with a printed reason when no S3
// server is configured (S3_ENDPOINT; see .ci/services.sh).
import { CreateBucketCommand } from "@aws-sdk/client-s3";
import { type ByteRange, resolveStore, StoreError } from "@zarr/core";
import { S3Store, type S3StoreOptions } from "@zarr/store-s3";
import {
  type Fault,
  type FaultProxy,
  randomFaults,
  s3TestServer,
  seededRandom,
  startFaultProxy,
  uniqueBucketName,
} from "@zarr/test-utils";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

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

const same = (a: Uint8Array | undefined, b: Uint8Array) =>
  a !== undefined && Buffer.from(a).equals(Buffer.from(b));

function expected(v: Uint8Array, range?: ByteRange): Uint8Array {
  if (range === undefined) return v;
  if ("suffix" in range) return v.subarray(Math.max(0, v.length - range.suffix));
  return v.subarray(
    range.offset,
    range.length === undefined ? undefined : range.offset + range.length,
  );
}

const random = seededRandom(99);
const bytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(random() * 256));

let proxy: FaultProxy;
/** Direct to the server (setup and final checks). */
let direct: S3Store;
/** Through the proxy. */
let faulty: S3Store;
const big = bytes(300_000);

describe.skipIf(!server)("S3Store behind a fault-injecting proxy", () => {
  beforeAll(async () => {
    proxy = await startFaultProxy(server!.endpoint, { seed: 42 });
    direct = new S3Store(options(server!.endpoint));
    await direct.client.send(new CreateBucketCommand({ Bucket: bucket }));
    await direct.set("big", big);
    // maxAttempts 3: the SDK's standard retry mode with its own backoff.
    faulty = new S3Store(options(proxy.url, { maxAttempts: 3 }));
  });
  afterAll(async () => {
    await proxy?.close();
    if (!process.env.CI && direct) {
      await direct.erasePrefix("").catch(() => {});
    }
  });
  beforeEach(() => {
    proxy.plan = () => "pass";
    proxy.log.length = 0;
  });

  it.each([
    ["a 200 body shorter than its Content-Length", "truncate", undefined],
    ["a truncated 206 body", "truncate", { offset: 1000, length: 200_000 }],
    ["a connection reset in the middle of a 200 body", "reset-mid-body", undefined],
    ["a connection reset in the middle of a 206 body", "reset-mid-body", { suffix: 150_000 }],
  ] as [string, Fault, ByteRange | undefined][])(
    "%s is a StoreError naming the key, never short data",
    async (_, fault, range) => {
      proxy.plan = (req) => (req.method === "GET" ? fault : "pass");
      const err = await faulty.get("big", range).catch((e) => e);
      expect(err).toBeInstanceOf(StoreError);
      expect(err.message).toContain('"big"');
      proxy.plan = () => "pass";
      expect(same(await faulty.get("big", range), expected(big, range))).toBe(true);
    },
  );

  it.each(["500", "503", "reset"] as Fault[])(
    "a %s before the response is retried: reads, sizes and writes succeed",
    async (fault) => {
      let n = 0;
      proxy.plan = () => (n++ % 2 === 0 ? fault : "pass");
      expect(same(await faulty.get("big", { offset: 7, length: 100 }), big.subarray(7, 107))).toBe(
        true,
      );
      expect(await faulty.getSize("big")).toBe(big.length);
      const v = bytes(5000);
      await faulty.set(`retried-${fault}`, v);
      expect(same(await direct.get(`retried-${fault}`), v)).toBe(true);
      expect(proxy.counts[fault]).toBeGreaterThanOrEqual(3);
    },
  );

  it("503 storms end in a StoreError after maxAttempts, within bounded time", async () => {
    proxy.plan = () => "503";
    const t0 = performance.now();
    const err = await faulty.get("big").catch((e) => e);
    const ms = performance.now() - t0;
    expect(err).toBeInstanceOf(StoreError);
    expect(err.message).toMatch(/"big".*HTTP 503/);
    expect(proxy.log.length).toBe(3);
    const err2 = await faulty.set("storm", bytes(10)).catch((e) => e);
    expect(err2).toBeInstanceOf(StoreError);
    expect(ms).toBeLessThan(10_000);
    console.info(`503 storm: ${proxy.log.length} requests, StoreError after ${ms.toFixed(0)} ms`);
  });

  it(`random faults (seeded, ${RUNS} operations): reads exact or StoreError; failed writes leave the old or the new value`, async () => {
    const keys = ["a/0", "a/1", "b/0", "c/zarr.json"];
    /** The values each key may hold: after a failed write, the old one or the new one. */
    const possible = new Map<string, Uint8Array[]>();
    for (const k of keys) {
      const v = bytes(1 + Math.floor(random() * 3000));
      await direct.set(k, v);
      possible.set(k, [v]);
    }
    proxy.plan = randomFaults(0.4);
    const s = resolveStore(faulty);
    const outcomes = { readExact: 0, readError: 0, writeOk: 0, writeError: 0 };
    for (let i = 0; i < RUNS; i++) {
      const key = keys[Math.floor(random() * keys.length)];
      if (random() < 0.3) {
        const v = bytes(Math.floor(random() * 3000));
        try {
          await s.set(key, v);
          possible.set(key, [v]);
          outcomes.writeOk++;
        } catch (e) {
          expect(e).toBeInstanceOf(StoreError);
          possible.get(key)!.push(v);
          outcomes.writeError++;
        }
        continue;
      }
      const r = random();
      const range: ByteRange | undefined =
        r < 0.4
          ? undefined
          : r < 0.6
            ? { suffix: 1 + Math.floor(random() * 500) }
            : { offset: Math.floor(random() * 2000), length: 1 + Math.floor(random() * 2000) };
      try {
        const got = await s.get(key, range);
        const match = possible.get(key)!.find((v) => same(got, expected(v, range)));
        expect(match, `get ${key} ${JSON.stringify(range)}`).toBeDefined();
        // What a read saw is what the key now holds (until the next write).
        possible.set(key, [match!]);
        outcomes.readExact++;
      } catch (e) {
        expect(e).toBeInstanceOf(StoreError);
        expect((e as StoreError).message).toContain(JSON.stringify(key));
        outcomes.readError++;
      }
    }
    proxy.plan = () => "pass";
    for (const k of keys) {
      const got = await direct.get(k);
      expect(possible.get(k)!.some((v) => same(got, v))).toBe(true);
    }
    console.info(
      `random faults: ${JSON.stringify(outcomes)}; faults injected: ${JSON.stringify(proxy.counts)}`,
    );
    expect(outcomes.readExact + outcomes.writeOk).toBeGreaterThan(0);
  });
});

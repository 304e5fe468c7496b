// Downloads are retried by GcsStore.get, not by the client: on Node ≥ 22 the
// client's own stream retries end the process with an unhandled
// ERR_STREAM_UNABLE_TO_PIPE at the first retried 5xx
// (googleapis/google-cloud-node#8670). Each case counts the requests a small
// server on 127.0.0.1 answered and fails on any unhandled rejection.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { StoreError } from "@zarr/core";
import { type GcsRetryOptions, GcsStore } from "@zarr/store-gcs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

process.env.METADATA_SERVER_DETECTION = "none";

/** What the server answers to request number n (1-based); `trickle`: a body that never ends. */
let answer: (n: number) => { status: number; body: string; trickle?: boolean } = () => ({
  status: 200,
  body: "",
});
let requests = 0;
/** The Range header of each request. */
let ranges: (string | undefined)[] = [];
let server: Server;
let endpoint: string;
const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => unhandled.push(e);

beforeAll(async () => {
  process.on("unhandledRejection", onUnhandled);
  server = createServer((req, res) => {
    requests++;
    ranges.push(req.headers.range);
    const { status, body, trickle } = answer(requests);
    req.resume();
    if (trickle) {
      res.writeHead(status, { "content-type": "application/json" });
      res.write(body);
      const timer = setInterval(() => res.write(" "), 50);
      res.on("close", () => clearInterval(timer));
      return;
    }
    res.writeHead(status, { "content-type": "text/plain", "content-length": String(body.length) });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  process.off("unhandledRejection", onUnhandled);
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

afterEach(async () => {
  // Let a late rejection surface before the check.
  await new Promise((r) => setTimeout(r, 50));
  expect(unhandled.map(String)).toEqual([]);
  requests = 0;
  ranges = [];
});

function store(retryOptions: GcsRetryOptions, timeout = 5_000, idleTimeout?: number): GcsStore {
  return new GcsStore({
    bucket: "b",
    prefix: "data",
    apiEndpoint: endpoint,
    projectId: "p",
    retryOptions: { retryDelayMultiplier: 1, maxRetryDelay: 0.02, ...retryOptions },
    timeout,
    ...(idleTimeout === undefined ? {} : { idleTimeout }),
  });
}

const busyThenOk = (failures: number) => (n: number) =>
  n <= failures ? { status: 503, body: "busy" } : { status: 200, body: "hello" };

describe("GcsStore.get retries downloads itself", () => {
  it("503s within maxRetries are retried and the value returned", async () => {
    answer = busyThenOk(2);
    const value = await store({ maxRetries: 2 }).get("c/0");
    expect(new TextDecoder().decode(value)).toBe("hello");
    expect(requests).toBe(3);
  });

  it("past maxRetries the 503 is a StoreError naming the key, after 1 + maxRetries requests", async () => {
    answer = busyThenOk(10);
    const e = await store({ maxRetries: 2 })
      .get("c/0")
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StoreError);
    expect((e as StoreError).message).toMatch(/"c\/0".*HTTP 503/);
    expect(requests).toBe(3);
  });

  it("429 and 500 are retried too; 403 and 404 are not", async () => {
    for (const [status, expected] of [
      [429, 2],
      [500, 2],
      [403, 1],
      [404, 1],
    ] as const) {
      requests = 0;
      answer = (n) => (n === 1 ? { status, body: "no" } : { status: 200, body: "ok" });
      const out = await store({ maxRetries: 3 })
        .get("c/0")
        .catch((x: unknown) => x);
      expect(requests, `status ${status}`).toBe(expected);
      if (status === 404) expect(out).toBeUndefined();
      if (status === 403) expect(out).toBeInstanceOf(StoreError);
    }
  });

  it("autoRetry: false makes one request", async () => {
    answer = busyThenOk(1);
    await expect(store({ autoRetry: false }).get("c/0")).rejects.toThrow(StoreError);
    expect(requests).toBe(1);
  });

  it("the store's total timeout ends the waits between retries", async () => {
    answer = busyThenOk(100);
    const started = Date.now();
    const e = await store({ maxRetries: 50, maxRetryDelay: 10, retryDelayMultiplier: 2 }, 600)
      .get("c/0")
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StoreError);
    expect((e as Error).message).toMatch(/took more than|timed out/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("a ranged read is retried with its range", async () => {
    answer = busyThenOk(1);
    // The test server ignores Range: the 200 with the whole value is then refused.
    await store({ maxRetries: 1 })
      .get("c/0", { offset: 1, length: 3 })
      .catch(() => undefined);
    expect(ranges).toEqual(["bytes=1-3", "bytes=1-3"]);
  });

  it("maxRetries: 0 makes one request (the client reads 0 as its default, 3)", async () => {
    answer = busyThenOk(10);
    await expect(store({ maxRetries: 0 }).get("c/0")).rejects.toThrow(StoreError);
    expect(requests).toBe(1);
  });

  it("a retryableErrorFn that throws retries nothing and the download's error is a StoreError", async () => {
    answer = busyThenOk(10);
    const e = await store({
      maxRetries: 3,
      retryableErrorFn: () => {
        throw new TypeError("boom");
      },
    })
      .get("c/0")
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StoreError);
    expect((e as Error).message).toMatch(/503/);
    expect(requests).toBe(1);
  });

  it("an error body that never ends: a StoreError at the idle timeout, and no unhandled rejection when its connection closes later", async () => {
    answer = () => ({ status: 503, body: '{"error":', trickle: true });
    const e = await store({ maxRetries: 2 }, 3_000, 300)
      .get("c/0")
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StoreError);
    expect((e as Error).message).toMatch(/no response progress/);
    server.closeAllConnections();
    await new Promise((r) => setTimeout(r, 200));
    // afterEach: no unhandled rejection (it ended the process before).
  });
});

// Bounds and location of S3Store that need no server: the location string,
// timeout and cap options, and bounded reading of a GetObject body through a
// client whose handler is scripted (no network). Against a hostile server
// under a watchdog: tools/attacks/test/network-stores.test.ts.
import { S3Client } from "@aws-sdk/client-s3";
import { openStore, StoreError } from "@zarr/core";
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_S3_TIMEOUTS, S3Store } from "@zarr/store-s3";
import "@zarr/store-s3/register";
import { describe, expect, it } from "vitest";

const creds = { accessKeyId: "k", secretAccessKey: "s" };

describe("S3Store > location", () => {
  it("names endpoint host:port, bucket and prefix", () => {
    const s = new S3Store({ bucket: "b", prefix: "/a/x.zarr/", endpoint: "http://127.0.0.1:9000" });
    expect(s.location).toBe("s3://127.0.0.1:9000/b/a/x.zarr");
    expect(new S3Store({ bucket: "b", endpoint: "https://S3.Example.com:443/" }).location).toBe(
      "s3://s3.example.com/b",
    );
    expect(new S3Store({ bucket: "b", endpoint: "http://h:9000/gateway/" }).location).toBe(
      "s3://h:9000/gateway/b",
    );
  });

  it("uses the region's endpoint name on AWS", () => {
    expect(new S3Store({ bucket: "b", prefix: "p", region: "eu-west-1" }).location).toBe(
      "s3://s3.eu-west-1.amazonaws.com/b/p",
    );
    expect(new S3Store({ bucket: "b", region: "cn-north-1" }).location).toBe(
      "s3://s3.cn-north-1.amazonaws.com.cn/b",
    );
  });

  it("is the same for the same place and nests for a sub-prefix", () => {
    const endpoint = "http://127.0.0.1:9000";
    const a = new S3Store({ bucket: "b", prefix: "data", endpoint });
    const b = new S3Store({ bucket: "b", prefix: "/data/", endpoint: `${endpoint}/`, region: "x" });
    expect(b.location).toBe(a.location);
    const sub = new S3Store({ bucket: "b", prefix: "data/sub", endpoint });
    expect(sub.location).toBe(`${a.location}/sub`);
    // Keys with spaces: core appends raw keys, so the prefix is not percent-encoded.
    const spaced = new S3Store({ bucket: "b", prefix: "data/a b", endpoint });
    expect(spaced.location).toBe(`${a.location}/a b`);
  });

  it("differs for another bucket or endpoint", () => {
    const a = new S3Store({ bucket: "b", endpoint: "http://127.0.0.1:9000" });
    expect(new S3Store({ bucket: "c", endpoint: "http://127.0.0.1:9000" }).location).not.toBe(
      a.location,
    );
    expect(new S3Store({ bucket: "b", endpoint: "http://127.0.0.1:9001" }).location).not.toBe(
      a.location,
    );
    expect(new S3Store({ bucket: "b", region: "us-east-1" }).location).not.toBe(a.location);
  });

  it("is undefined for a given client with an endpoint it cannot name", () => {
    const client = new S3Client({ endpoint: "http://127.0.0.1:9", region: "us-east-1" });
    expect(new S3Store({ bucket: "b", client }).location).toBeUndefined();
    expect(new S3Store({ bucket: "b", client, endpoint: "http://127.0.0.1:9" }).location).toBe(
      "s3://127.0.0.1:9/b",
    );
  });
});

describe("S3Store > bounds options", () => {
  it("has documented defaults and rejects bad values", async () => {
    expect(DEFAULT_S3_TIMEOUTS).toEqual({
      connect: 10_000,
      response: 10_000,
      idle: 10_000,
      total: 20_000,
      socket: 120_000,
    });
    expect(DEFAULT_MAX_BODY_BYTES).toBe(128 * 1024 * 1024);
    expect(() => new S3Store({ bucket: "b", region: "r", timeouts: { total: 0 } })).toThrow(
      /timeouts\.total/,
    );
    expect(() => new S3Store({ bucket: "b", region: "r", maxBodyBytes: -1 })).toThrow(
      /maxBodyBytes/,
    );
    await expect(openStore("s3://b/p", { region: "r", timeouts: { body: 1 } })).rejects.toThrow(
      StoreError,
    );
    await expect(openStore("s3://b/p", { region: "r", maxBodyBytes: "x" })).rejects.toThrow(
      /maxBodyBytes/,
    );
    expect(
      await openStore("s3://b/p", { region: "r", timeouts: { total: 5 }, maxBodyBytes: 10 }),
    ).toBeInstanceOf(S3Store);
  });
});

/** A client whose requests never leave the process: `handle` answers them. */
function scripted(
  handle: () => { statusCode: number; headers: Record<string, string>; body: unknown },
) {
  return new S3Client({
    region: "us-east-1",
    endpoint: "http://127.0.0.1:9",
    forcePathStyle: true,
    credentials: creds,
    maxAttempts: 1,
    requestHandler: {
      handle: async () => ({ response: handle() }),
      updateHttpClientConfig() {},
      httpHandlerConfigs: () => ({}),
    },
  });
}

/** An endless web stream of 64 KiB pieces that records whether it was cancelled. */
function endless() {
  const state = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        state.pulled += 65536;
        controller.enqueue(new Uint8Array(65536));
      },
      cancel() {
        state.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, state };
}

describe("S3Store > bounded GetObject bodies", () => {
  it("cuts an endless body at maxBytes and stops the stream", async () => {
    const { stream, state } = endless();
    const client = scripted(() => ({ statusCode: 200, headers: {}, body: stream }));
    const s = new S3Store({ bucket: "b", client });
    const err = await s.get("k", undefined, { maxBytes: 100_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err.path).toBe("k");
    expect(err.message).toMatch(/"k".*body passes 100000 bytes/);
    expect(state.cancelled).toBe(true);
    expect(state.pulled).toBeLessThanOrEqual(131072);
  });

  it("refuses a Content-Length above the cap before reading", async () => {
    const { stream, state } = endless();
    const client = scripted(() => ({
      statusCode: 200,
      headers: { "content-length": "999999999" },
      body: stream,
    }));
    const s = new S3Store({ bucket: "b", client, maxBodyBytes: 1000 });
    await expect(s.get("k")).rejects.toThrow(/Content-Length 999999999 is more than 1000/);
    expect(state.pulled).toBe(0);
  });

  it("a stalled body ends at timeouts.idle", async () => {
    const stalled = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
    const client = scripted(() => ({ statusCode: 200, headers: {}, body: stalled }));
    const s = new S3Store({ bucket: "b", client, timeouts: { idle: 50 } });
    await expect(s.get("k")).rejects.toThrow(/"k".*no body data for 50 ms \(timeouts\.idle\)/);
  });
});

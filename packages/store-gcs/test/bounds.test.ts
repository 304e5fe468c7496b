// Bounds and location of GcsStore: the location string; options; reads
// against the emulator of @zarr/test-utils with a maxBytes below the value
// (cut off with a StoreError) and the caller's abort. Against a hostile
// endpoint under a watchdog: tools/attacks/test/network-stores.test.ts.
import { openStore, StoreError } from "@zarr/core";
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUT, GcsStore, MAX_ERROR_BODY } from "@zarr/store-gcs";
import "@zarr/store-gcs/register";
import { type GcsEmulator, startGcsEmulator } from "@zarr/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

process.env.METADATA_SERVER_DETECTION = "none";

describe("GcsStore > location", () => {
  it("names the endpoint, bucket and prefix", () => {
    expect(new GcsStore({ bucket: "b", prefix: "/a/x.zarr/" }).location).toBe(
      "gs://storage.googleapis.com/b/a/x.zarr",
    );
    expect(new GcsStore({ bucket: "b", apiEndpoint: "http://127.0.0.1:4443" }).location).toBe(
      "gs://127.0.0.1:4443/b",
    );
    // With or without the API's base path, the same place.
    expect(
      new GcsStore({ bucket: "b", apiEndpoint: "http://127.0.0.1:4443/storage/v1/" }).location,
    ).toBe("gs://127.0.0.1:4443/b");
  });

  it("is the same for the same place and nests for a sub-prefix", () => {
    const apiEndpoint = "http://127.0.0.1:4443";
    const a = new GcsStore({ bucket: "b", prefix: "data", apiEndpoint });
    expect(
      new GcsStore({ bucket: "b", prefix: "/data/", apiEndpoint: `${apiEndpoint}/` }).location,
    ).toBe(a.location);
    expect(new GcsStore({ bucket: "b", prefix: "data/sub", apiEndpoint }).location).toBe(
      `${a.location}/sub`,
    );
    expect(new GcsStore({ bucket: "b", prefix: "data/a b", apiEndpoint }).location).toBe(
      `${a.location}/a b`,
    );
  });

  it("differs for another bucket or endpoint", () => {
    const a = new GcsStore({ bucket: "b", apiEndpoint: "http://127.0.0.1:4443" });
    for (const other of [
      new GcsStore({ bucket: "c", apiEndpoint: "http://127.0.0.1:4443" }),
      new GcsStore({ bucket: "b", apiEndpoint: "http://127.0.0.1:4444" }),
      new GcsStore({ bucket: "b" }),
    ]) {
      expect(other.location).not.toBe(a.location);
    }
  });
});

describe("GcsStore > bounds options", () => {
  it("has documented defaults and rejects bad values", async () => {
    expect(DEFAULT_TIMEOUT).toBe(20_000);
    expect(DEFAULT_MAX_BODY_BYTES).toBe(128 * 1024 * 1024);
    expect(MAX_ERROR_BODY).toBe(8192);
    expect(() => new GcsStore({ bucket: "b", timeout: 0 })).toThrow(/timeout/);
    expect(() => new GcsStore({ bucket: "b", maxBodyBytes: -1 })).toThrow(/maxBodyBytes/);
    await expect(openStore("gs://b/p", { timeout: "soon" })).rejects.toThrow(/timeout/);
    expect(await openStore("gs://b/p", { timeout: 5, maxBodyBytes: 10 })).toBeInstanceOf(GcsStore);
  });
});

describe("GcsStore > bounded reads (emulator)", () => {
  let emulator: GcsEmulator;
  let store: GcsStore;
  const value = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 7) & 0xff);
  beforeAll(async () => {
    emulator = await startGcsEmulator();
    emulator.createBucket("bounds");
    store = new GcsStore({ bucket: "bounds", apiEndpoint: emulator.endpoint, projectId: "t" });
    await store.set("v", value);
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it("reads within the bounds as before", async () => {
    expect(await store.get("v", undefined, { maxBytes: value.length })).toEqual(value);
    expect(await store.get("v", { offset: 10, length: 5 }, { maxBytes: 5 })).toEqual(
      value.slice(10, 15),
    );
    expect(await store.get("v", { suffix: 7 })).toEqual(value.slice(-7));
  });

  it("refuses a value longer than options.maxBytes with a StoreError naming the key", async () => {
    const err = await store.get("v", undefined, { maxBytes: 1000 }).catch((e) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err.path).toBe("v");
    expect(err.message).toMatch(/"v".*Content-Length 300000 is more than 1000 bytes/);
  });

  it("refuses a value longer than maxBodyBytes when the caller gives no maxBytes", async () => {
    const small = new GcsStore({
      bucket: "bounds",
      apiEndpoint: emulator.endpoint,
      projectId: "t",
      maxBodyBytes: 1000,
    });
    await expect(small.get("v")).rejects.toThrow(/more than 1000 bytes.*maxBodyBytes/);
  });

  it("a server that ignores Range: only the range's bytes are kept", async () => {
    emulator.ignoreRanges = true;
    try {
      expect(await store.get("v", { offset: 100, length: 10 })).toEqual(value.slice(100, 110));
      expect(await store.get("v", { suffix: 10 })).toEqual(value.slice(-10));
    } finally {
      emulator.ignoreRanges = false;
    }
  });
});

import { type AnyStore, createArray, openArray, openStore, StoreError } from "@zarr/core";
import {
  mapConcurrent,
  resolveStore,
  storeConformanceCases,
  storeRegistry,
} from "@zarr/core/store";
import { GcsStore, type GcsStoreOptions } from "@zarr/store-gcs";
import "@zarr/store-gcs/register";
import { type GcsEmulator, startGcsEmulator } from "@zarr/test-utils";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

// The real @google-cloud/storage client, over HTTP, against the in-memory GCS
// JSON API emulator of @zarr/test-utils on 127.0.0.1. No Google endpoint is
// contacted: custom endpoints get no authentication, and metadata-server
// detection is off.
process.env.METADATA_SERVER_DETECTION = "none";

let emulator: GcsEmulator;
const BUCKET = "zarr-gcs-test";
let counter = 0;

/** Short retry delays (uploads wait at least 1 s between attempts), so failure-injection tests stay quick. */
const quickRetries = { retryDelayMultiplier: 1, maxRetryDelay: 1, totalTimeout: 10 };

function options(extra: Partial<GcsStoreOptions> = {}): GcsStoreOptions {
  return {
    bucket: BUCKET,
    apiEndpoint: emulator.endpoint,
    projectId: "test",
    retryOptions: quickRetries,
    ...extra,
  };
}

async function freshStore(
  initial: ReadonlyMap<string, Uint8Array> = new Map(),
  extra: Partial<GcsStoreOptions> = {},
): Promise<GcsStore> {
  const store = new GcsStore(options({ prefix: `run/t${++counter}`, ...extra }));
  await mapConcurrent([...initial], 32, ([key, value]) => store.set(key, value));
  return store;
}

const pattern = (n: number, seed: number) =>
  Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed * 7 + (i >> 8)) & 0xff);

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

beforeAll(async () => {
  emulator = await startGcsEmulator();
  emulator.createBucket(BUCKET);
});
afterAll(() => emulator?.close());
afterEach(() => emulator?.clearFailures());

describe("GcsStore conformance (v3 core: abstract store interface)", () => {
  for (const c of storeConformanceCases({ create: (initial) => freshStore(initial) })) {
    it(c.name, c.run);
  }
});

describe("GcsStore requests", () => {
  it("ranged reads send Range headers, suffix ranges included (RFC 9110 14.1.2)", async () => {
    const value = pattern(100, 1);
    const store = await freshStore(new Map([["v", value]]));
    emulator.requests.length = 0;
    expect(await store.get("v", { offset: 10, length: 20 })).toEqual(value.subarray(10, 30));
    expect(await store.get("v", { offset: 90 })).toEqual(value.subarray(90));
    expect(await store.get("v", { suffix: 7 })).toEqual(value.subarray(93));
    expect(await store.get("v", { offset: 100, length: 5 })).toEqual(new Uint8Array(0));
    expect(emulator.requests.map((r) => r.range)).toEqual([
      "bytes=10-29",
      "bytes=90-",
      "bytes=-7",
      "bytes=100-104",
    ]);
  });

  it("a response that ignores Range is sliced, never returned whole", async () => {
    const value = pattern(100, 8);
    const store = await freshStore(new Map([["v", value]]));
    emulator.ignoreRanges = true;
    try {
      expect(await store.get("v", { offset: 90 })).toEqual(value.subarray(90));
      expect(await store.get("v", { offset: 10, length: 5 })).toEqual(value.subarray(10, 15));
      expect(await store.get("v", { suffix: 3 })).toEqual(value.subarray(97));
    } finally {
      emulator.ignoreRanges = false;
    }
  });

  it("listDir asks for a delimiter listing and follows page tokens (page size 7)", async () => {
    const initial = new Map<string, Uint8Array>();
    for (let i = 0; i < 40; i++) initial.set(`p/${i % 4}/${i}`, Uint8Array.of(i));
    for (let i = 0; i < 10; i++) initial.set(`p/k${i}`, Uint8Array.of(i));
    const store = await freshStore(initial, { listPageSize: 7 });
    const s = resolveStore(store);
    emulator.requests.length = 0;
    const dir = await s.listDir("p/");
    expect(dir.prefixes).toEqual(["0", "1", "2", "3"]);
    expect(dir.keys).toHaveLength(10);
    const lists = emulator.requests.filter((r) => r.method === "GET" && r.path.endsWith("/o"));
    expect(lists).toHaveLength(2); // 14 entries: two pages of 7
    expect(lists.every((r) => r.query.delimiter === "/")).toBe(true);
    expect(lists[1].query.pageToken).toBeTruthy();
    expect((await collect(s.list())).sort()).toEqual([...initial.keys()].sort());
    await s.erasePrefix("p/1/");
    expect((await s.listDir("p/")).prefixes).toEqual(["0", "2", "3"]);
    await s.erasePrefix("");
    expect(await collect(s.list())).toEqual([]);
  });

  it("large values go through chunked resumable uploads, small ones through one request", async () => {
    const store = await freshStore(new Map(), {
      resumableThreshold: 300 * 1024,
      chunkSize: 256 * 1024,
    });
    emulator.requests.length = 0;
    await store.set("small", pattern(1000, 2));
    expect(emulator.requests.map((r) => r.query.uploadType)).toEqual(["multipart"]);
    emulator.requests.length = 0;
    const big = pattern(1024 * 1024 + 17, 3);
    await store.set("big", big);
    const puts = emulator.requests.filter((r) => r.method === "PUT" && r.query.upload_id);
    expect(puts.length).toBe(5); // 4 full chunks of 256 KiB + 17 bytes
    // Buffer.compare: vitest's toEqual takes seconds on a MiB of bytes.
    expect(
      Buffer.compare(emulator.object(BUCKET, `${store.prefix}/big`) ?? Buffer.alloc(0), big),
    ).toBe(0);
    expect(Buffer.compare((await store.get("big")) ?? Buffer.alloc(0), big)).toBe(0);
  });

  it("retries transient server errors on reads, writes and listings", async () => {
    const store = await freshStore(new Map([["k", pattern(10, 4)]]));
    emulator.failNext(2, 503);
    expect(await store.get("k")).toEqual(pattern(10, 4));
    emulator.failNext(1, 503);
    await store.set("k2", pattern(5, 5));
    emulator.failNext(1, 500);
    expect((await collect(store.list())).sort()).toEqual(["k", "k2"]);
  });

  it("persistent errors become a StoreError naming the key and status", async () => {
    const store = await freshStore(new Map([["k", pattern(10, 4)]]), {
      retryOptions: { ...quickRetries, maxRetries: 1 },
    });
    emulator.failNext(5, 503);
    const error = await store.get("k").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).path).toBe("k");
    expect((error as Error).message).toMatch(/GCS download of "k" .* \(HTTP 503\)/);
    emulator.failNext(5, 503);
    await expect(store.set("k", Uint8Array.of(1))).rejects.toThrow(/GCS upload of "k"/);
    emulator.failNext(5, 503);
    await expect(collect(store.list())).rejects.toThrow(StoreError);
  });

  it("a missing bucket is a StoreError, not a missing key", async () => {
    const store = new GcsStore(options({ bucket: "no-such-bucket" }));
    await expect(store.get("zarr.json")).rejects.toThrow(/bucket does not exist/);
    await expect(store.get("zarr.json")).rejects.toBeInstanceOf(StoreError);
    await expect(collect(store.list())).rejects.toThrow(StoreError);
  });

  it("an aborted signal stops an operation with an AbortError", async () => {
    const store = await freshStore(new Map([["k", Uint8Array.of(1)]]));
    const controller = new AbortController();
    controller.abort();
    await expect(store.get("k", undefined, { signal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    await expect(collect(store.list({ signal: controller.signal }))).rejects.toMatchObject({
      name: "AbortError",
    });
  });

  it("an array written through @zarr/core reads back identical", async () => {
    const store = await freshStore();
    const a = await createArray(store, "grp/temps", {
      shape: [37, 23],
      chunkShape: [8, 5],
      dataType: "int32",
      fillValue: -1,
    });
    const data = Int32Array.from({ length: 37 * 23 }, (_, i) => i * 7919 - 40_000);
    await a.set(null, data);
    const again = await openArray(new GcsStore(options({ prefix: store.prefix })), "grp/temps");
    const got = await again.get();
    expect(got.shape).toEqual([37, 23]);
    expect(got.data).toEqual(data);
  });

  it("the gs: opener (registered by @zarr/store-gcs/register) opens a prefix", async () => {
    const seeded = await freshStore(new Map([["a/b c", Uint8Array.of(7)]]));
    const opener = await storeRegistry.get("gs");
    const store = (await opener.open(`gs://${BUCKET}/${encodeURI(seeded.prefix)}/`, {
      endpoint: emulator.endpoint,
    })) as AnyStore;
    expect(store).toBeInstanceOf(GcsStore);
    expect((store as GcsStore).prefix).toBe(seeded.prefix);
    expect(await store.get("a/b c")).toEqual(Uint8Array.of(7));
    const viaCore = await openStore(`gcs://${BUCKET}/${seeded.prefix}`, {
      apiEndpoint: emulator.endpoint,
    });
    expect(await viaCore.get("a/b c")).toEqual(Uint8Array.of(7));
    await expect(opener.open("gs://b/x", { endpoint: 3 })).rejects.toThrow(/option "endpoint"/);
    await expect(opener.open("s3://b/x")).rejects.toThrow(StoreError);
  });

  it("honours STORAGE_EMULATOR_HOST (requests without the /storage/v1 base)", async () => {
    const seeded = await freshStore(new Map([["x", Uint8Array.of(9)]]));
    const saved = process.env.STORAGE_EMULATOR_HOST;
    process.env.STORAGE_EMULATOR_HOST = emulator.endpoint;
    try {
      const store = new GcsStore({ bucket: BUCKET, prefix: seeded.prefix, projectId: "test" });
      expect(await store.get("x")).toEqual(Uint8Array.of(9));
      await store.set("y", Uint8Array.of(1, 2));
      expect(await resolveStore(store).listDir("")).toEqual({ keys: ["x", "y"], prefixes: [] });
    } finally {
      if (saved === undefined) delete process.env.STORAGE_EMULATOR_HOST;
      else process.env.STORAGE_EMULATOR_HOST = saved;
    }
  });
});

describe("GcsStore options", () => {
  it("normalizes the prefix and rejects bad options with a StoreError", () => {
    expect(new GcsStore({ bucket: "b", prefix: "/x/y/", projectId: "p" }).prefix).toBe("x/y");
    for (const prefix of ["a/../b", "a//b", "./a"]) {
      expect(() => new GcsStore({ bucket: "b", prefix }), prefix).toThrow(
        /invalid GcsStore prefix/,
      );
    }
    expect(() => new GcsStore({ bucket: "" })).toThrow(StoreError);
    expect(() => new GcsStore({ bucket: "b", chunkSize: 1000 })).toThrow(/chunkSize/);
    expect(() => new GcsStore({ bucket: "b", listPageSize: 5000 })).toThrow(/listPageSize/);
  });
});

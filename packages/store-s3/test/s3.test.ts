import { CreateBucketCommand, DeleteBucketCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { type AnyStore, createArray, openArray, StoreError } from "@zarr/core";
import {
  mapConcurrent,
  resolveStore,
  storeConformanceCases,
  storeRegistry,
} from "@zarr/core/store";
import { createS3Client, S3Store, type S3StoreOptions } from "@zarr/store-s3";
import "@zarr/store-s3/register";
import { s3TestServer, uniqueBucketName } from "@zarr/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Every S3 test runs against the real S3-compatible server named by S3_ENDPOINT
// (OpenStack Swift + s3api on 127.0.0.1, started by .ci/services.sh in CI), in
// one bucket per run with a fresh key prefix per test.

const { server, reason } = s3TestServer();
if (!server) {
  if (process.env.CI) throw new Error(`S3 tests cannot run in CI: ${reason}`);
  console.warn(`skipping @zarr/store-s3 server tests: ${reason}`);
}

const bucket = uniqueBucketName("zarr-s3");
let counter = 0;
const nextPrefix = (label: string) => `run/${label.replace(/[^a-z0-9]+/gi, "-")}-${++counter}`;

/** Options for a store on the test server (Swift needs the legacy checksum behaviour). */
function storeOptions(extra: Partial<S3StoreOptions> = {}): S3StoreOptions {
  if (!server) throw new Error("no S3 server");
  return {
    bucket,
    endpoint: server.endpoint,
    region: server.region,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
    legacyChecksums: true,
    ...extra,
  };
}

/** A store under a fresh prefix holding `initial` (written with bounded parallel puts). */
async function freshStore(
  label: string,
  initial: ReadonlyMap<string, Uint8Array> = new Map(),
  extra: Partial<S3StoreOptions> = {},
): Promise<S3Store> {
  const store = new S3Store(storeOptions({ prefix: nextPrefix(label), ...extra }));
  await mapConcurrent([...initial], 32, ([key, value]) => store.set(key, value));
  return store;
}

const pattern = (n: number, seed: number) =>
  Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed * 7 + (i >> 8)) & 0xff);

describe.skipIf(!server)("S3Store on a real S3 server", () => {
  beforeAll(async () => {
    const client = createS3Client(storeOptions());
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  });

  // In CI the server is stopped and its data wiped right after the suite, so the
  // ~20 s of deleting every object one by one (Swift is CPU-bound on 2 cores) is skipped.
  afterAll(async () => {
    if (process.env.CI) return;
    const root = new S3Store(storeOptions());
    await root.erasePrefix("");
    await root.client.send(new DeleteBucketCommand({ Bucket: bucket }));
  });

  describe("conformance (v3 core: abstract store interface)", () => {
    let n = 0;
    for (const c of storeConformanceCases({
      create: (initial) => freshStore(`conf-${++n}`, initial),
    })) {
      it(c.name, c.run);
    }
  });

  it("pages listings, listDir and erasePrefix (page size 7)", async () => {
    const initial = new Map<string, Uint8Array>();
    for (let i = 0; i < 40; i++) initial.set(`p/${i % 4}/${i}`, Uint8Array.of(i));
    for (let i = 0; i < 10; i++) initial.set(`p/k${i}`, Uint8Array.of(i));
    const store = await freshStore("paging", initial, { listPageSize: 7 });
    const s = resolveStore(store);
    const keys: string[] = [];
    for await (const k of s.list()) keys.push(k);
    expect(keys.sort()).toEqual([...initial.keys()].sort());
    const dir = await s.listDir("p/");
    expect(dir.prefixes).toEqual(["0", "1", "2", "3"]);
    expect(dir.keys).toHaveLength(10);
    await s.erasePrefix("p/1/");
    expect((await s.listDir("p/")).prefixes).toEqual(["0", "2", "3"]);
    await s.erasePrefix("");
    expect(await collect(s.list())).toEqual([]);
  });

  it("writes large values by multipart upload and reads ranges across part boundaries", async () => {
    const MiB = 1 << 20;
    const store = await freshStore("multipart", new Map(), {
      multipartThreshold: 5 * MiB,
      partSize: 5 * MiB,
    });
    const value = pattern(12 * MiB + 123, 9);
    await store.set("big", value);
    expect(await store.getSize("big")).toBe(value.length);
    const across = await store.get("big", { offset: 5 * MiB - 10, length: 20 });
    expect(across).toEqual(value.subarray(5 * MiB - 10, 5 * MiB + 10));
    expect(await store.get("big", { suffix: 5 })).toEqual(value.subarray(value.length - 5));
    const whole = await store.get("big");
    expect(whole?.length).toBe(value.length);
    expect(Buffer.compare(whole as Uint8Array, value)).toBe(0);
  });

  it("keys with characters S3 escapes round trip and list back unchanged", async () => {
    const keys = ["a+b/c", "tilde~/x", "q?uery/#hash", "pct%20/x", "semi;colon=eq&amp/x", "é/ü"];
    const store = await freshStore("escapes");
    const s = resolveStore(store);
    for (const [i, k] of keys.entries()) await s.set(k, Uint8Array.of(i));
    for (const [i, k] of keys.entries()) expect(await s.get(k)).toEqual(Uint8Array.of(i));
    expect((await collect(s.list())).sort()).toEqual([...keys].sort());
  });

  it("an array written through @zarr/core reads back identical", async () => {
    const store = await freshStore("array");
    const a = await createArray(store, "grp/temps", {
      shape: [37, 23],
      chunkShape: [8, 5],
      dataType: "float64",
      fillValue: -1,
    });
    const data = Float64Array.from({ length: 37 * 23 }, (_, i) => Math.sin(i) * 1000);
    await a.set(null, data);
    const b = await openArray(store, "grp/temps");
    const got = await b.get();
    expect(got.shape).toEqual([37, 23]);
    expect(got.data).toEqual(data);
    const again = await openArray(new S3Store(storeOptions({ prefix: store.prefix })), "grp/temps");
    expect((await again.get()).data).toEqual(data);
  });

  it("a missing bucket is a StoreError naming the key, not a missing key", async () => {
    const store = new S3Store({ ...storeOptions(), bucket: `${bucket}-absent` });
    const error = await store.get("zarr.json").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).path).toBe("zarr.json");
    expect((error as Error).message).toMatch(/NoSuchBucket/);
    await expect(store.set("k", Uint8Array.of(1))).rejects.toThrow(StoreError);
    await expect(collect(store.list())).rejects.toThrow(/ListObjectsV2/);
  });

  it("wrong credentials are a StoreError with the server's code", async () => {
    const store = new S3Store({
      ...storeOptions(),
      credentials: { accessKeyId: "test:tester", secretAccessKey: "wrong" },
      maxAttempts: 1,
    });
    await expect(store.get("x")).rejects.toThrow(
      /S3 GetObject of "x" .*(SignatureDoesNotMatch|AccessDenied|403)/,
    );
  });

  it("an aborted signal cancels a request with an AbortError", async () => {
    const store = await freshStore("abort", new Map([["k", pattern(10, 1)]]));
    const controller = new AbortController();
    controller.abort();
    await expect(
      resolveStore(store).get("k", undefined, { signal: controller.signal }),
    ).rejects.toThrow(/aborted/);
    const raw = store.get("k", undefined, { signal: controller.signal });
    await expect(raw).rejects.toMatchObject({ name: "AbortError" });
  });

  it("reads objects written by another client, with a prefix given with slashes", async () => {
    const client = createS3Client(storeOptions());
    await client.send(
      new PutObjectCommand({ Bucket: bucket, Key: "ext/data.zarr/zarr.json", Body: "{}" }),
    );
    const store = new S3Store(storeOptions({ prefix: "/ext/data.zarr/" }));
    expect(store.prefix).toBe("ext/data.zarr");
    expect(new TextDecoder().decode(await store.get("zarr.json"))).toBe("{}");
    expect(await resolveStore(store).listDir("")).toEqual({ keys: ["zarr.json"], prefixes: [] });
  });

  it("the s3: opener (registered by @zarr/store-s3/register) opens a prefix", async () => {
    if (!server) return;
    const seeded = await freshStore("opener", new Map([["a/b", Uint8Array.of(7)]]));
    const opener = await storeRegistry.get("s3");
    const store = (await opener.open(`s3://${bucket}/${seeded.prefix}`, {
      endpoint: server.endpoint,
      region: server.region,
      accessKeyId: server.accessKeyId,
      secretAccessKey: server.secretAccessKey,
      legacyChecksums: true,
    })) as AnyStore;
    expect(store).toBeInstanceOf(S3Store);
    expect(await store.get("a/b")).toEqual(Uint8Array.of(7));
  });
});

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

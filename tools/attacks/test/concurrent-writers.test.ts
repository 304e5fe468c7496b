// Lost updates within one process: many store objects on ONE place, each
// writing single elements of the same chunk at once (read-modify-write). Core
// serializes writes of a chunk by its canonical location (the store's
// `location` + key), not by the store object, so every write must survive,
// for every writable store: two `new FileSystemStore(dir)`, a store rooted
// inside another's root, `openStore(url)` twice, arrays opened twice, S3 and
// GCS stores on one bucket and prefix.
import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateBucketCommand } from "@aws-sdk/client-s3";
import { type AnyStore, createArray, MemoryStore, openArray, openStore } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import "@zarr/store-fs/register";
import { GcsStore } from "@zarr/store-gcs";
import { createS3Client, S3Store } from "@zarr/store-s3";
import {
  type GcsEmulator,
  s3TestServer,
  startGcsEmulator,
  uniqueBucketName,
} from "@zarr/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const WRITES = 200;

/**
 * Creates a 1-d int32 array of one chunk of WRITES elements through `stores[0]`
 * at `prefix + "a"`, then writes element i = i + 1 through store i % n (each
 * write opens its own array handle, as separate parts of a program would), all
 * at once. Returns how many writes were lost.
 */
async function lostWrites(stores: { store: AnyStore; prefix: string }[]): Promise<number> {
  const first = stores[0];
  await createArray(first.store, `${first.prefix}a`, {
    shape: [WRITES],
    dataType: "int32",
    chunkShape: [WRITES],
  });
  await Promise.all(
    Array.from({ length: WRITES }, async (_, i) => {
      const { store, prefix } = stores[i % stores.length];
      const a = await openArray(store, `${prefix}a`);
      await a.set([i], i + 1);
    }),
  );
  const data = (await (await openArray(first.store, `${first.prefix}a`)).get()).data as Int32Array;
  let lost = 0;
  for (let i = 0; i < WRITES; i++) if (data[i] !== i + 1) lost++;
  return lost;
}

describe("many store objects on one place lose no writes", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "zarr-attack-writers-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("one MemoryStore, arrays opened per write", async () => {
    const store = new MemoryStore();
    expect(await lostWrites([{ store, prefix: "" }])).toBe(0);
  });

  it.each([2, 200])("%d FileSystemStore objects on one directory", async (n) => {
    const root = join(dir, `fs-${n}`);
    const stores = Array.from({ length: n }, () => ({
      store: new FileSystemStore(root),
      prefix: "",
    }));
    expect(await lostWrites(stores)).toBe(0);
  });

  it("a FileSystemStore rooted inside another's root", async () => {
    const root = join(dir, "nested");
    const outer = new FileSystemStore(root);
    await createArray(outer, "sub/placeholder", { shape: [1], dataType: "uint8" });
    const inner = new FileSystemStore(join(root, "sub"));
    expect(
      await lostWrites([
        { store: outer, prefix: "sub/" },
        { store: inner, prefix: "" },
      ]),
    ).toBe(0);
  });

  it("a FileSystemStore made before its root existed, whose path a link then leads elsewhere, and one on the real place", async () => {
    const base = join(dir, "late");
    await mkdir(base);
    const early = new FileSystemStore(join(base, "link", "x")); // "link" does not exist yet
    await mkdir(join(base, "real", "x"), { recursive: true });
    await symlink(join(base, "real"), join(base, "link"));
    const late = new FileSystemStore(join(base, "real", "x"));
    expect(early.location).toBe(late.location);
    expect(
      await lostWrites([
        { store: late, prefix: "" },
        { store: early, prefix: "" },
      ]),
    ).toBe(0);
  });

  it("a FileSystemStore on / and one on the directory below it", async () => {
    const root = new FileSystemStore("/");
    expect(root.location).toBe("file://");
    const sub = new FileSystemStore(join(dir, "under-root"));
    expect(
      await lostWrites([
        { store: sub, prefix: "" },
        { store: root, prefix: `${join(dir, "under-root").slice(1)}/` },
      ]),
    ).toBe(0);
  });

  it("openStore(url) twice", async () => {
    const url = `file://${join(dir, "url")}`;
    const stores = [
      { store: await openStore(url), prefix: "" },
      { store: await openStore(url), prefix: "" },
    ];
    expect(await lostWrites(stores)).toBe(0);
  });

  describe("GCS (emulator)", () => {
    let emulator: GcsEmulator;
    beforeAll(async () => {
      process.env.METADATA_SERVER_DETECTION = "none";
      emulator = await startGcsEmulator();
      emulator.createBucket("writers");
    });
    afterAll(() => emulator?.close());

    it("4 GcsStore objects on one bucket and prefix", async () => {
      const stores = Array.from({ length: 4 }, () => ({
        store: new GcsStore({
          bucket: "writers",
          prefix: "p",
          apiEndpoint: emulator.endpoint,
          projectId: "test",
        }),
        prefix: "",
      }));
      expect(await lostWrites(stores)).toBe(0);
    });
  });

  const { server, reason } = s3TestServer();
  if (!server && process.env.CI) throw new Error(`S3 tests cannot run in CI: ${reason}`);
  describe.skipIf(!server)("S3 (local server)", () => {
    const bucket = uniqueBucketName("zarr-writers");
    const options = () => ({
      bucket,
      endpoint: server!.endpoint,
      region: server!.region,
      credentials: { accessKeyId: server!.accessKeyId, secretAccessKey: server!.secretAccessKey },
      legacyChecksums: true,
    });
    beforeAll(async () => {
      await createS3Client(options()).send(new CreateBucketCommand({ Bucket: bucket }));
    });

    it("4 S3Store objects on one bucket and prefix, one rooted at a sub-prefix", async () => {
      const stores = [
        ...Array.from({ length: 3 }, () => ({
          store: new S3Store({ ...options(), prefix: "p" }),
          prefix: "q/",
        })),
        { store: new S3Store({ ...options(), prefix: "p/q" }), prefix: "" },
      ];
      expect(await lostWrites(stores)).toBe(0);
    });
  });
});

// Path safety of S3Store: keys with `..` or `.` segments, a leading `/`,
// empty segments, backslashes, NUL and other control characters (and such
// prefixes) are rejected with InvalidKeyError before any request is sent,
// whether the store is used through core's resolveStore or directly, so a
// store under a prefix cannot reach the objects beside it (the test keeps one
// there). Requests are counted by a pass-through proxy on 127.0.0.1. Skips with
// a printed reason when no S3 server is configured (S3_ENDPOINT).
import { CreateBucketCommand } from "@aws-sdk/client-s3";
import { InvalidKeyError, resolveStore } from "@zarr/core";
import { S3Store, type S3StoreOptions } from "@zarr/store-s3";
import { type FaultProxy, s3TestServer, startFaultProxy, uniqueBucketName } from "@zarr/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const { server, reason } = s3TestServer();
if (!server) {
  if (process.env.CI) throw new Error(`S3 tests cannot run in CI: ${reason}`);
  console.warn(`skipping @zarr/store-s3 path-safety tests: ${reason}`);
}

const BAD_KEYS = [
  "../secret",
  "a/../../secret",
  "..",
  ".",
  "./zarr.json",
  "/secret",
  "a//b",
  "a/",
  "",
  "a\\b",
  "zarr.json\u0000",
  "a\nb",
  "\udc00",
];
const BAD_PREFIXES = ["../", "a/../../", "/", "a//", "a", "./"];

const bucket = uniqueBucketName("zarr-s3-paths");
const options = (endpoint: string, prefix: string): S3StoreOptions => ({
  bucket,
  prefix,
  endpoint,
  region: server!.region,
  credentials: { accessKeyId: server!.accessKeyId, secretAccessKey: server!.secretAccessKey },
  legacyChecksums: true,
  maxAttempts: 1,
});

describe.skipIf(!server)("S3Store rejects keys that could leave its prefix", () => {
  let proxy: FaultProxy;
  let outside: S3Store;
  beforeAll(async () => {
    proxy = await startFaultProxy(server!.endpoint);
    outside = new S3Store(options(server!.endpoint, "paths"));
    await outside.client.send(new CreateBucketCommand({ Bucket: bucket }));
    await outside.set("secret", new TextEncoder().encode("beside the store"));
    await outside.set("store/zarr.json", new TextEncoder().encode("{}"));
  });
  afterAll(async () => {
    await proxy?.close();
    if (!process.env.CI && outside) await outside.erasePrefix("").catch(() => {});
  });

  const store = () => new S3Store(options(proxy.url, "paths/store"));

  it.each(BAD_KEYS.map((k) => [JSON.stringify(k), k]))(
    "%s: every key operation throws InvalidKeyError, directly and through core; no request sent",
    async (_, key) => {
      proxy.log.length = 0;
      const direct = store();
      const resolved = resolveStore(direct);
      const value = Uint8Array.of(1);
      const calls = [
        () => direct.get(key),
        () => direct.get(key, { suffix: 3 }),
        () => direct.getSize(key),
        () => direct.set(key, value),
        () => direct.erase(key),
        () => direct.eraseValues(["ok", key]),
        () => resolved.get(key),
        () => resolved.getPartialValues([{ key, range: { offset: 0, length: 1 } }]),
        () => resolved.set(key, value),
        () => resolved.erase(key),
        () => resolved.has(key),
      ];
      for (const call of calls) await expect(call()).rejects.toBeInstanceOf(InvalidKeyError);
      expect(proxy.log).toEqual([]);
    },
  );

  it.each(BAD_PREFIXES.map((p) => [JSON.stringify(p), p]))(
    "prefix %s: listPrefix, listDir and erasePrefix throw InvalidKeyError; no request sent",
    async (_, prefix) => {
      proxy.log.length = 0;
      for (const s of [store(), resolveStore(store())]) {
        await expect(s.listDir(prefix)).rejects.toBeInstanceOf(InvalidKeyError);
        await expect(s.erasePrefix(prefix)).rejects.toBeInstanceOf(InvalidKeyError);
        const iterate = async () => {
          for await (const _ of s.listPrefix(prefix));
        };
        await expect(iterate()).rejects.toBeInstanceOf(InvalidKeyError);
      }
      expect(proxy.log).toEqual([]);
    },
  );

  it("the object beside the store is untouched and only reachable from outside", async () => {
    const s = store();
    expect(new TextDecoder().decode((await s.get("zarr.json"))!)).toBe("{}");
    expect(await s.get("secret")).toBeUndefined();
    expect(new TextDecoder().decode((await outside.get("secret"))!)).toBe("beside the store");
  });
});

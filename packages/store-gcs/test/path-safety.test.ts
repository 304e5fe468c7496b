// Path safety of GcsStore: keys with `..` or `.` segments, a leading `/`,
// empty segments, backslashes, NUL and other control characters (and such
// prefixes) are rejected with InvalidKeyError before any request is sent,
// whether the store is used through core's resolveStore or directly, so a
// store under a prefix cannot reach the objects beside it (the test keeps one
// there). Runs against the in-process GCS emulator of @zarr/test-utils on
// 127.0.0.1, whose request log shows that nothing was sent.
import { InvalidKeyError, resolveStore } from "@zarr/core";
import { GcsStore, type GcsStoreOptions } from "@zarr/store-gcs";
import { type GcsEmulator, startGcsEmulator } from "@zarr/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

process.env.METADATA_SERVER_DETECTION = "none";

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
const BUCKET = "zarr-gcs-paths";

let emulator: GcsEmulator;
const options = (prefix: string): GcsStoreOptions => ({
  bucket: BUCKET,
  prefix,
  apiEndpoint: emulator.endpoint,
  projectId: "test",
  retryOptions: { autoRetry: false },
});

beforeAll(async () => {
  emulator = await startGcsEmulator();
  emulator.createBucket(BUCKET);
  const outside = new GcsStore(options("paths"));
  await outside.set("secret", new TextEncoder().encode("beside the store"));
  await outside.set("store/zarr.json", new TextEncoder().encode("{}"));
});
afterAll(() => emulator.close());

describe("GcsStore rejects keys that could leave its prefix", () => {
  const store = () => new GcsStore(options("paths/store"));

  it.each(BAD_KEYS.map((k) => [JSON.stringify(k), k]))(
    "%s: every key operation throws InvalidKeyError, directly and through core; no request sent",
    async (_, key) => {
      emulator.requests.length = 0;
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
      expect(emulator.requests).toEqual([]);
    },
  );

  it.each(BAD_PREFIXES.map((p) => [JSON.stringify(p), p]))(
    "prefix %s: listPrefix, listDir and erasePrefix throw InvalidKeyError; no request sent",
    async (_, prefix) => {
      emulator.requests.length = 0;
      for (const s of [store(), resolveStore(store())]) {
        await expect(s.listDir(prefix)).rejects.toBeInstanceOf(InvalidKeyError);
        await expect(s.erasePrefix(prefix)).rejects.toBeInstanceOf(InvalidKeyError);
        const iterate = async () => {
          for await (const _ of s.listPrefix(prefix));
        };
        await expect(iterate()).rejects.toBeInstanceOf(InvalidKeyError);
      }
      expect(emulator.requests).toEqual([]);
    },
  );

  it("the object beside the store is untouched and only reachable from outside", async () => {
    const s = store();
    expect(new TextDecoder().decode((await s.get("zarr.json"))!)).toBe("{}");
    expect(await s.get("secret")).toBeUndefined();
    expect(emulator.object(BUCKET, "paths/secret")).toBeDefined();
  });
});

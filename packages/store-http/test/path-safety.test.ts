// Path safety of HttpStore: keys with `..` or `.` segments, a leading `/`,
// empty segments, backslashes, NUL and other control characters are rejected
// with InvalidKeyError before any request is sent, whether the store is used
// through core's resolveStore or directly (a `..` segment would otherwise be
// resolved by the URL parser and climb out of the store's base URL: the test
// keeps a file beside the base to prove nothing reaches it).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidKeyError } from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import { HttpStore } from "@zarr/store-http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./server.js";

const BAD_KEYS = [
  "../secret",
  "a/../../secret",
  "..",
  ".",
  "./zarr.json",
  "a/./b",
  "/secret",
  "//127.0.0.1/secret",
  "a//b",
  "a/",
  "",
  "a\\b",
  "..\\secret",
  "%2e%2e/secret\u0000",
  "zarr.json\u0000",
  "a\nb",
  "\ud800",
];

let root: string;
let server: TestServer;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "zarr-http-paths-"));
  await mkdir(join(root, "store"));
  await writeFile(join(root, "secret"), "outside the store");
  await writeFile(join(root, "store", "zarr.json"), "{}");
  server = await startServer(root);
});
afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});
beforeEach(() => {
  server.log.length = 0;
});

describe("HttpStore rejects keys that could leave its base URL", () => {
  const direct = () => new HttpStore(`${server.url}store/`, { retry: { retries: 0 } });

  it.each(BAD_KEYS.map((k) => [JSON.stringify(k), k]))(
    "%s: InvalidKeyError from get, ranged get and getSize, directly and through core; no request sent",
    async (_, key) => {
      const store = direct();
      const resolved = resolveStore(store);
      const calls = [
        () => store.get(key),
        () => store.get(key, { offset: 0, length: 4 }),
        () => store.get(key, { suffix: 4 }),
        () => store.getSize(key),
        () => resolved.get(key),
        () => resolved.get(key, { offset: 1 }),
        () => resolved.getPartialValues([{ key, range: { offset: 0, length: 2 } }]),
        () => resolved.getSize(key),
        () => resolved.has(key),
      ];
      for (const call of calls) await expect(call()).rejects.toBeInstanceOf(InvalidKeyError);
      expect(() => store.keyUrl(key)).toThrow(InvalidKeyError);
      expect(server.log).toEqual([]);
    },
  );

  it("valid keys stay under the base URL, percent-encoded per segment", async () => {
    const store = direct();
    expect(store.keyUrl("a b/%2e%2e/c").pathname).toBe("/store/a%20b/%252e%252e/c");
    expect(new TextDecoder().decode((await store.get("zarr.json"))!)).toBe("{}");
    expect(await store.get("%2e%2e/secret")).toBeUndefined();
    expect(server.log).toEqual(["GET /store/zarr.json", "GET /store/%252e%252e/secret"]);
  });
});

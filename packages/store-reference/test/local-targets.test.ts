// A reference file that is not itself local (here: served over HTTP from
// 127.0.0.1) may not point at local files — absolute paths, `file:` URLs,
// relative paths through `base`, or zip archives on disk — unless the caller
// passes allowLocalTargets: otherwise anyone who can hand an application (or
// `zarr serve`) a reference URL could read the machine's files through it.
import "@zarr/store-fs/register";
import "@zarr/store-http/register";
import "@zarr/store-reference/register";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { openStore, StoreError } from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import { isLocalLocation } from "@zarr/store-reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "zarr-ref-local-"));
const secret = join(dir, "secret.txt");
writeFileSync(secret, "top secret");
const documents = new Map<string, string>();
let server: Server;
let origin = "";

beforeAll(async () => {
  server = createServer((req, res) => {
    const body = documents.get(req.url ?? "");
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const refsTo = (url: string) => JSON.stringify({ version: 1, refs: { key: [url, 0, 10] } });

describe("local targets of a reference file that is not local", () => {
  const hostile = {
    "an absolute path": () => secret,
    "a file: URL": () => pathToFileURL(secret).href,
    "a zip archive on disk": () => `zip:${join(dir, "a.zip")}!/secret.txt`,
  };
  for (const [name, target] of Object.entries(hostile)) {
    it(`${name}: refused with a StoreError naming the folder; read with allowLocalTargets`, async () => {
      documents.set("/refs.json", refsTo(target()));
      const store = resolveStore(await openStore(`reference:${origin}/refs.json`));
      const error = await store.get("key").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect(String((error as Error).message)).toMatch(/local file system/);
      if (name === "a zip archive on disk") return; // no such archive: only the refusal matters
      const allowed = resolveStore(
        await openStore(`reference:${origin}/refs.json`, { allowLocalTargets: true }),
      );
      expect(new TextDecoder().decode(await allowed.get("key"))).toBe("top secret");
    });
  }

  it("a relative path through a local base is refused too", async () => {
    documents.set("/rel.json", refsTo("secret.txt"));
    const store = resolveStore(await openStore(`reference:${origin}/rel.json`, { base: dir }));
    await expect(store.get("key")).rejects.toThrow(/local file system/);
  });

  it("a local reference file reads local targets (the user's own files)", async () => {
    const refs = join(dir, "local.json");
    writeFileSync(refs, refsTo(secret));
    const store = resolveStore(await openStore(`reference:${refs}`));
    expect(new TextDecoder().decode(await store.get("key"))).toBe("top secret");
  });

  it("isLocalLocation sees through wrappers and drive letters", () => {
    for (const url of [
      "/a/b",
      "a/b",
      "file:///a",
      "C:\\data\\x",
      "zip:/a.zip!/x",
      "reference:file:///r.json",
    ]) {
      expect(isLocalLocation(url), url).toBe(true);
    }
    for (const url of ["https://h/a", "s3://b/a", "gs://b/a", "zip:https://h/a.zip!/x"]) {
      expect(isLocalLocation(url), url).toBe(false);
    }
  });
});

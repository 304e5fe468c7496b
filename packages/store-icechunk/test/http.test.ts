// A repository served over HTTP (a small Range-capable server on 127.0.0.1
// serving test/fixtures), opened as icechunk:http://... through
// @zarr/store-http: the repo info file, snapshots and manifests are GETs, native
// chunks ranged GETs.
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import "@zarr/store-http/register";
import "@zarr/store-icechunk/register";
import "@zarr/codec-zstd/register";
import { openArray } from "@zarr/core";
import { openStore } from "@zarr/core/store";
import type { IcechunkStore } from "@zarr/store-icechunk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("./fixtures/", import.meta.url));
const requests: string[] = [];
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    requests.push(`${req.method} ${path} ${req.headers.range ?? ""}`.trim());
    if (path.split("/").includes("..")) return void res.writeHead(400).end();
    let body: Buffer;
    try {
      body = await readFile(root + path.slice(1));
    } catch {
      return void res.writeHead(404).end();
    }
    const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
    if (m) {
      const start = Number(m[1]);
      const end = m[2] === "" ? body.length - 1 : Math.min(Number(m[2]), body.length - 1);
      res.writeHead(206, {
        "Content-Range": `bytes ${start}-${end}/${body.length}`,
        "Content-Length": end - start + 1,
      });
      return void res.end(body.subarray(start, end + 1));
    }
    res.writeHead(200, { "Content-Length": body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("icechunk:http:// repositories", () => {
  it.each(["test-repo-v1", "test-repo-v2"])(
    "%s: branch, tag and chunks over HTTP",
    async (name) => {
      const store = (await openStore(`icechunk:${base}/${name}?tag=it%20works!`)) as IcechunkStore;
      expect(store.info.message).toBe("delete a chunk");
      const small = await openArray(store, "group1/small_chunks");
      expect(Array.from((await small.get()).data as Int8Array)).toEqual([84, 84, 84, 84, 8]);
      const big = await openArray(store, "group1/big_chunks");
      const rows = await big.get([{ start: 5, stop: 10, step: 1 }, null] as never);
      expect(Array.from(rows.data as Float32Array)).toEqual(new Array(50).fill(42));
      // native chunks are read by range from chunks/ID
      expect(
        requests.some((r) => r.startsWith(`GET /${name}/chunks/`) && r.includes("bytes=")),
      ).toBe(true);
      await store.close();
    },
  );
});

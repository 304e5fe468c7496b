import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { createArray, createGroup } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { createZipFileStore } from "@zarr/store-zip/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./server.js";

// The same array through `zarr get` from a directory, an http:// URL, a .zip
// path and a .zip over http:// must print the same JSON.

const run = promisify(execFile);
const cli = resolve(import.meta.dirname, "../../../node_modules/.bin/zarr");
const built = existsSync(cli) && existsSync(resolve(import.meta.dirname, "../../cli/dist/main.js"));
if (!built) console.warn(`skipping CLI tests: no built CLI at ${cli} (run pnpm build)`);

let root: string;
let server: TestServer;
const values = Int32Array.from({ length: 12 * 8 }, (_, i) => i * i - 50);

async function writeArray(store: FileSystemStore | ReturnType<typeof createZipFileStore>) {
  await createGroup(store, "data.zarr");
  const a = await createArray(store, "data.zarr/sq", {
    shape: [12, 8],
    dataType: "int32",
    chunkShape: [4, 4],
  });
  await a.set(null, values);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "zarr-cli-http-"));
  await writeArray(new FileSystemStore(root));
  const zip = createZipFileStore(join(root, "data.zip"), { compress: false });
  await writeArray(zip);
  await zip.close();
  server = await startServer(root);
});
afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

describe.skipIf(!built)("zarr get through store URLs", () => {
  it("directory, http://, .zip and .zip over http:// print the same array", async () => {
    const get = async (store: string, path: string) =>
      JSON.parse((await run(cli, ["get", store, path, "--json"])).stdout);
    const want = { shape: [12, 8], data: Array.from(values) };
    expect(await get(join(root, "data.zarr"), "sq")).toEqual(want);
    expect(await get(`${server.url}data.zarr`, "sq")).toEqual(want);
    expect(await get(join(root, "data.zip"), "data.zarr/sq")).toEqual(want);
    expect(await get(`${join(root, "data.zip")}/data.zarr`, "sq")).toEqual(want);
    expect(await get(`zip:${server.url}data.zip!/data.zarr`, "sq")).toEqual(want);
    expect(await get(`${server.url}data.zip/data.zarr`, "sq")).toEqual(want);
  });

  it("a missing store or unregistered scheme exits 2 with a one-line reason", async () => {
    const err = await run(cli, ["get", `${server.url}nothing.zip`, "x", "--json"]).catch((e) => e);
    expect(err.code).toBe(2);
    expect(err.stderr).toMatch(/not found/);
    // A scheme no package registers (never a real cloud URL: tests stay on 127.0.0.1).
    const unknown = await run(cli, ["get", "ftp://127.0.0.1/x", "--json"]).catch((e) => e);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/store scheme "ftp" is not registered/);
  });
});

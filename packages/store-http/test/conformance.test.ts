import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { storeConformanceCases } from "@zarr/core/store";
import { HttpStore } from "@zarr/store-http";
import { afterAll, beforeAll, describe, it } from "vitest";
import { startServer, type TestServer } from "./server.js";

// v3 core: "Abstract store interface", read-only and non-listable, through
// core's conformance suite against a local static server with Range support.

let root: string;
let server: TestServer;
let counter = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "zarr-store-http-"));
  server = await startServer(root);
});
afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

async function writeTree(dir: string, files: ReadonlyMap<string, Uint8Array>): Promise<void> {
  await mkdir(dir, { recursive: true });
  const entries = [...files];
  for (let i = 0; i < entries.length; i += 64) {
    await Promise.all(
      entries.slice(i, i + 64).map(async ([key, value]) => {
        const path = join(dir, ...key.split("/"));
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, value);
      }),
    );
  }
}

const cases = (label: string, mode: () => void) =>
  describe(label, () => {
    beforeAll(mode);
    for (const c of storeConformanceCases({
      writable: false,
      listable: false,
      async create(initial) {
        const name = `s${counter++}`;
        await writeTree(join(root, name), initial);
        return new HttpStore(`${server.url}${name}`, { retry: { retries: 0 } });
      },
    })) {
      it(c.name, c.run);
    }
  });

cases("HttpStore conformance", () => {
  for (const k of Object.keys(server.mode)) delete server.mode[k as keyof typeof server.mode];
});
cases("HttpStore conformance, server without suffix ranges", () => {
  server.mode.noSuffix = 400;
});
cases("HttpStore conformance, server ignoring Range", () => {
  delete server.mode.noSuffix;
  server.mode.ignoreRange = true;
});

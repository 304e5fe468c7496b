// Concurrent writers on one S3Store: 8 Node processes write one array at the
// same time. Writers that own disjoint whole chunks (or whole shards) produce
// exactly the expected array; writers that all replace the same whole chunks
// leave each chunk equal to one writer's value (a PUT replaces an object
// atomically). Writers sharing a chunk or shard through partial writes are not
// safe: see RELIABILITY.md. Skips with a printed reason when no S3 server is
// configured (S3_ENDPOINT; see .ci/services.sh).
//
// The child scripts import @zarr/core and @zarr/store-s3 by name, which
// resolves to the built packages (dist/): `pnpm test` builds first;
// `ensureBuilt` covers a bare `vitest run` in a fresh checkout.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CreateBucketCommand } from "@aws-sdk/client-s3";
import { createArray, type JsonValue, openArray, slice } from "@zarr/core";
import { S3Store, type S3StoreOptions } from "@zarr/store-s3";
import { s3TestServer, uniqueBucketName } from "@zarr/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const { server, reason } = s3TestServer();
if (!server) {
  if (process.env.CI) throw new Error(`S3 tests cannot run in CI: ${reason}`);
  console.warn(`skipping @zarr/store-s3 multi-process tests: ${reason}`);
}

const here = dirname(fileURLToPath(import.meta.url));
const WRITERS = 8;
const SHAPE = [130, 110]; // not a multiple of the chunks: edge chunks are partial
const value = (i: number, j: number) => i * 65536 + j + 1;
const bucket = uniqueBucketName("zarr-s3-mp");

function storeOptions(): S3StoreOptions {
  if (!server) throw new Error("no S3 server");
  return {
    bucket,
    prefix: `mp-${process.pid}`,
    endpoint: server.endpoint,
    region: server.region,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
    legacyChecksums: true,
  };
}

function ensureBuilt(): void {
  const packages = join(here, "..", "..");
  if (!["core", "store-s3"].every((p) => existsSync(join(packages, p, "dist", "index.js")))) {
    execFileSync("pnpm", ["turbo", "run", "build", "--filter=@zarr/store-s3..."], {
      cwd: join(packages, ".."),
      stdio: "inherit",
    });
  }
}

/** A writer process: resolves `ready`/`done` when it prints them, `exited` with its code. */
function spawnWriter(args: string[]) {
  const proc: ChildProcess = spawn(
    process.execPath,
    [join(here, "fixtures", "region-writer.mjs"), ...args],
    {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, ZARR_S3_OPTIONS: JSON.stringify(storeOptions()) },
    },
  );
  let out = "";
  let err = "";
  const waiters: [string, () => void][] = [];
  proc.stdout!.setEncoding("utf8").on("data", (c: string) => {
    out += c;
    for (const [line, resolve] of waiters) if (out.split("\n").includes(line)) resolve();
  });
  proc.stderr!.setEncoding("utf8").on("data", (c: string) => {
    err += c;
  });
  const exited = new Promise<number | string>((resolve) =>
    proc.on("exit", (code, signal) => resolve(code ?? signal ?? "unknown")),
  );
  const waitFor = (line: string) =>
    new Promise<void>((resolve, reject) => {
      waiters.push([line, resolve]);
      if (out.split("\n").includes(line)) resolve();
      exited.then((code) => reject(new Error(`writer exited (${code}) before "${line}":\n${err}`)));
    });
  return { proc, waitFor, exited, stderr: () => err };
}

/** Starts `WRITERS` processes on `path`, releases them together, and waits for all to finish. */
async function runWriters(path: string, mode: "own" | "same"): Promise<number> {
  const children = Array.from({ length: WRITERS }, (_, id) =>
    spawnWriter([path, String(id), String(WRITERS), mode]),
  );
  await Promise.all(children.map((c) => c.waitFor("ready")));
  const t0 = performance.now();
  for (const c of children) c.proc.stdin!.write("go\n");
  await Promise.all(children.map((c) => c.waitFor("done")));
  const ms = performance.now() - t0;
  const codes = await Promise.all(children.map((c) => c.exited));
  expect(codes, children.map((c) => c.stderr()).join("")).toEqual(children.map(() => 0));
  return ms;
}

async function expectPattern(store: S3Store, path: string): Promise<void> {
  const { data, shape } = await (await openArray(store, path)).get(null);
  expect(shape).toEqual(SHAPE);
  let wrong = 0;
  for (let i = 0; i < SHAPE[0]; i++) {
    for (let j = 0; j < SHAPE[1]; j++) if (data[i * SHAPE[1] + j] !== value(i, j)) wrong++;
  }
  expect(wrong).toBe(0);
}

const sharding = (inner: number[]): JsonValue[] => [
  {
    name: "sharding_indexed",
    configuration: {
      chunk_shape: inner,
      codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }],
    },
  },
];

describe.skipIf(!server)(`S3Store with ${WRITERS} concurrent writer processes`, () => {
  let store: S3Store;
  beforeAll(async () => {
    ensureBuilt();
    store = new S3Store(storeOptions());
    await store.client.send(new CreateBucketCommand({ Bucket: bucket }));
  });
  afterAll(async () => {
    if (!process.env.CI && store) await store.erasePrefix("").catch(() => {});
  });

  it("disjoint chunk-aligned regions (interleaved ownership) give the expected array", async () => {
    // 7 x 6 = 42 chunks; writer w owns chunks w, w + 8, ...
    await createArray(store, "plain", { shape: SHAPE, dataType: "int32", chunkShape: [20, 20] });
    const ms = await runWriters("plain", "own");
    await expectPattern(store, "plain");
    console.info(`chunk-aligned: 42 chunks by ${WRITERS} processes in ${ms.toFixed(0)} ms`);
  });

  it("disjoint shard-aligned regions of a sharded array give the expected array", async () => {
    // Shards of 40 x 50 (4 x 3 = 12 shards) holding 10 x 10 inner chunks.
    await createArray(store, "sharded", {
      shape: SHAPE,
      dataType: "int32",
      chunkShape: [40, 50],
      codecs: sharding([10, 10]),
    });
    const ms = await runWriters("sharded", "own");
    await expectPattern(store, "sharded");
    console.info(`shard-aligned: 12 shards by ${WRITERS} processes in ${ms.toFixed(0)} ms`);
  });

  it("writers replacing the same whole chunks leave every chunk equal to one writer's value", async () => {
    await createArray(store, "same", { shape: SHAPE, dataType: "int32", chunkShape: [50, 50] });
    await runWriters("same", "same");
    const array = await openArray(store, "same");
    const [cr, cc] = array.chunkShape;
    const winners = new Set<number>();
    // Per chunk, its part inside the array (edge chunks are partial): one writer's value throughout.
    for (let r0 = 0; r0 < SHAPE[0]; r0 += cr) {
      for (let c0 = 0; c0 < SHAPE[1]; c0 += cc) {
        const region = [
          slice(r0, Math.min(r0 + cr, SHAPE[0])),
          slice(c0, Math.min(c0 + cc, SHAPE[1])),
        ];
        const distinct = new Set((await array.get(region)).data as Int32Array);
        expect(distinct.size).toBe(1);
        const [v] = distinct;
        expect(v).toBeGreaterThanOrEqual(1);
        expect(v).toBeLessThanOrEqual(WRITERS);
        winners.add(v);
      }
    }
    console.info(
      `same-chunk writers: chunks ended with values of ${winners.size} different writers`,
    );
  });
});

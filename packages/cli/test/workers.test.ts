// `--workers N` (zarr get, zarr copy): chunk codecs run in worker threads
// beside the main thread. The output must be byte for byte what the command
// writes without workers, for every codec the CLI registers that the workers
// import by URL (a worker without a codec would hand the chunk back).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import "@zarr/codec-blosc/register";
import "@zarr/codec-lz4/register";
import "@zarr/codec-zstd/register";
import { createArray, type JsonObject } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import type { WorkerPool } from "@zarr/workers";
import { afterAll, describe, expect, it } from "vitest";
import { commandPool, parseWorkers } from "../src/workers.js";
import { run } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "zarr-cli-workers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A float32 2048×1024 array in 256×256 chunks (32 of 256 KiB: worth a worker, enough for one to start) with `codecs`. */
async function source(name: string, codecs: JsonObject[]): Promise<string> {
  const path = join(dir, `${name}.zarr`);
  const array = await createArray(new FileSystemStore(path), "", {
    shape: [2048, 1024],
    dataType: "float32",
    chunkShape: [256, 256],
    fillValue: 0,
    codecs: [{ name: "bytes", configuration: { endian: "little" } }, ...codecs],
  });
  const data = new Float32Array(2048 * 1024);
  for (let i = 0; i < data.length; i++) data[i] = Math.sin(i / 97) * 1000 + (i % 13);
  await array.set(null, data);
  return path;
}

/** Every stored file under `root`, by relative path. */
function files(root: string, prefix = ""): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const e of readdirSync(join(root, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) for (const [k, v] of files(root, rel)) out.set(k, v);
    else out.set(rel, readFileSync(join(root, rel)));
  }
  return out;
}

const CODECS: [string, JsonObject[]][] = [
  [
    "blosc-lz4",
    [
      {
        name: "blosc",
        configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 4, blocksize: 0 },
      },
    ],
  ],
  ["zstd", [{ name: "zstd", configuration: { level: 3, checksum: false } }]],
  // numcodecs.lz4 is registered by the CLI but not among @zarr/workers' default modules.
  ["numcodecs-lz4", [{ name: "numcodecs.lz4", configuration: { acceleration: 1 } }]],
];

describe("--workers", () => {
  it.each(["x", "1.5", "1025", "", "1e3", "0x2"])(
    "--workers %j is a usage error",
    async (value) => {
      const out = join(dir, "never.bin");
      const r = await run("get", "nowhere.zarr", "--out", out, "--workers", value);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/--workers must be a whole number from 0 to 1024/);
      const c = await run("copy", "nowhere.zarr", join(dir, "never.zarr"), "--workers", value);
      expect(c.code).toBe(1);
      expect(c.err).toMatch(/--workers must be a whole number from 0 to 1024/);
    },
  );

  it("never starts more workers than cores (each is a Node instance: --workers 1024 was 12 GB)", async () => {
    for (const asked of [1, 3, 64, 1024]) {
      const pool = commandPool(parseWorkers(String(asked)));
      try {
        expect((pool.workers as WorkerPool).size).toBe(Math.min(asked, availableParallelism()));
      } finally {
        await pool.close();
      }
    }
    expect(commandPool(0).workers).toBeUndefined();
  });

  it("--workers -1 is a usage error", async () => {
    const r = await run("get", "nowhere.zarr", "--out", join(dir, "never.bin"), "--workers", "-1");
    expect(r.code).toBe(1);
  });

  it.each(CODECS)(
    "%s: get --out writes the same bytes with and without workers",
    async (name, codecs) => {
      const src = await source(`get-${name}`, codecs);
      const outputs: Buffer[] = [];
      for (const workers of ["0", "1", "3"]) {
        const out = join(dir, `get-${name}-${workers}.bin`);
        const r = await run("get", src, "--out", out, "--workers", workers);
        expect(r.code, r.err).toBe(0);
        outputs.push(readFileSync(out));
      }
      expect(outputs[0].length).toBe(2048 * 1024 * 4);
      expect(outputs[1].equals(outputs[0])).toBe(true);
      expect(outputs[2].equals(outputs[0])).toBe(true);
    },
  );

  it.each(CODECS)(
    "%s: copy stores the same chunks with and without workers",
    async (name, codecs) => {
      const src = await source(`copy-${name}`, []);
      const codecsJson = JSON.stringify([
        { name: "bytes", configuration: { endian: "little" } },
        ...codecs,
      ]);
      const stored: Map<string, Buffer>[] = [];
      for (const workers of ["0", "1", "3"]) {
        const dst = join(dir, `copy-${name}-${workers}.zarr`);
        const r = await run("copy", src, dst, "--codecs", codecsJson, "--workers", workers, "-q");
        expect(r.code, r.err).toBe(0);
        stored.push(files(dst));
      }
      expect(stored[0].size).toBe(33); // zarr.json and 32 chunks
      for (const other of stored.slice(1)) {
        expect([...other.keys()].sort()).toEqual([...stored[0].keys()].sort());
        for (const [key, bytes] of stored[0]) expect(other.get(key)!.equals(bytes), key).toBe(true);
      }
    },
  );
});

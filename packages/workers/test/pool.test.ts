/**
 * The worker pool gives the same bytes and values as the calling thread, the
 * same typed errors, falls back when workers lack a codec, and honours abort.
 * Workers run the built package (dist/worker.js and the codec packages' dist),
 * so this suite builds them first when they are missing or stale.
 */
import "@zarr/codec-blosc/register";
import "@zarr/codec-gzip/register";
import "@zarr/codec-zstd/register";
import { execSync, spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  AbortError,
  CodecError,
  createArray,
  type JsonObject,
  MemoryStore,
  slice,
  ValueError,
  ZarrArray,
} from "@zarr/core";
import type { CodecPipeline } from "@zarr/core/codec";
import { BUILTIN_YOUNG_GENERATION_MB, WorkerPool } from "@zarr/workers";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const workerUrl = new URL("../dist/worker.js", import.meta.url);

beforeAll(() => {
  const built = fileURLToPath(workerUrl);
  const src = fileURLToPath(new URL("../src/worker.ts", import.meta.url));
  if (!existsSync(built) || statSync(built).mtimeMs < statSync(src).mtimeMs) {
    execSync("pnpm turbo run build --filter=@zarr/workers...", { cwd: root, stdio: "ignore" });
  }
});

const pools: WorkerPool[] = [];
/** A pool whose workers are started (a cold pool declines jobs until they are). */
async function pool(
  options: ConstructorParameters<typeof WorkerPool>[0] = {},
): Promise<WorkerPool> {
  const p = new WorkerPool({ size: 2, decode: true, minChunkBytes: 0, workerUrl, ...options });
  pools.push(p);
  await p.warmUp();
  return p;
}
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

const COMPRESSORS: Record<string, JsonObject[]> = {
  blosc: [
    {
      name: "blosc",
      configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 4, blocksize: 0 },
    },
  ],
  gzip: [{ name: "gzip", configuration: { level: 5 } }],
  zstd: [{ name: "zstd", configuration: { level: 3, checksum: true } }],
  "transpose+crc32c": [{ name: "crc32c" }],
  "transpose+zstd": [{ name: "zstd", configuration: { level: 1, checksum: false } }],
};

async function makeArray(store: MemoryStore, name: string) {
  return createArray(store, name, {
    shape: [37, 29],
    dataType: "float32",
    chunkShape: [8, 16],
    fillValue: 0,
    codecs: [
      ...(name.startsWith("transpose")
        ? [{ name: "transpose", configuration: { order: [1, 0] } }]
        : []),
      { name: "bytes", configuration: { endian: "little" } },
      ...COMPRESSORS[name],
    ],
  });
}

const field = (n: number) => new Float32Array(n).map((_, i) => Math.sin(i / 5) * 100 + (i % 7));

describe("WorkerPool: identical results with and without workers", () => {
  for (const name of Object.keys(COMPRESSORS)) {
    it(`${name}: stored bytes and reads match the calling thread`, async () => {
      const p = await pool();
      const local = new MemoryStore();
      const remote = new MemoryStore();
      const a = await makeArray(local, name);
      const b = await makeArray(remote, name);
      const value = field(37 * 29);
      await a.set(null, value, { workers: false });
      await b.set(null, value, { workers: p });
      await b.set([slice(3, 30, 2), slice(null, null, -3)], 4.5, { workers: p });
      await a.set([slice(3, 30, 2), slice(null, null, -3)], 4.5, { workers: false });
      for await (const { key } of a.storedChunks()) {
        expect(await remote.get(key)).toEqual(await local.get(key));
      }
      const sel = [slice(null, null, -1), slice(2, 27, 3)];
      const ra = await a.get(sel, { workers: false });
      const rb = await b.get(sel, { workers: p });
      expect(rb.shape).toEqual(ra.shape);
      expect(Array.from(rb.data as Float32Array)).toEqual(Array.from(ra.data as Float32Array));
      // The caller's value is still intact (the pool copies what it does not own).
      expect(value[5]).toBe(field(37 * 29)[5]);
    });
  }

  it("a store's bytes are never detached by a decode", async () => {
    const store = new MemoryStore();
    const a = await makeArray(store, "zstd");
    await a.set(null, 2, { workers: false });
    const before = await store.get("zstd/c/0/0");
    await a.get(null, { workers: await pool() });
    const after = await store.get("zstd/c/0/0");
    expect(after?.byteLength).toBeGreaterThan(0);
    expect(after).toEqual(before);
  });

  it("ZarrArray.defaultWorkers is used when an operation passes no option", async () => {
    const p = await pool();
    const a = await makeArray(new MemoryStore(), "zstd");
    await a.set(null, 3, { workers: false });
    ZarrArray.defaultWorkers = p;
    try {
      const r = await a.get([0, slice(0, 3)]);
      expect(Array.from(r.data as Float32Array)).toEqual([3, 3, 3]);
    } finally {
      ZarrArray.defaultWorkers = undefined;
    }
  });
});

/**
 * Counts the chunks a pipeline decodes on this thread, whichever way it is
 * asked to (`decode`, or `decodeInto` / `decodeRangeInto` for codecs that
 * write into caller memory).
 */
function spyLocalDecodes(pipeline: CodecPipeline) {
  const spies = (["decode", "decodeInto", "decodeRangeInto"] as const).map((m) =>
    vi.spyOn(pipeline, m),
  );
  return {
    count: () => spies.reduce((n, s) => n + s.mock.calls.length, 0),
    clear: () => {
      for (const s of spies) s.mockClear();
    },
    restore: () => {
      for (const s of spies) s.mockRestore();
    },
  };
}

describe("WorkerPool: where chunks are decoded", () => {
  const sharedOut = (n: number) => new Float32Array(new SharedArrayBuffer(n * 4));

  it("into a SharedArrayBuffer `out`, workers decode each chunk in place", async () => {
    const p = await pool({ perWorker: 64 });
    const a = await makeArray(new MemoryStore(), "zstd");
    const value = field(37 * 29);
    await a.set(null, value, { workers: false });
    const local = spyLocalDecodes(a.codecs);
    const handedBack = vi.spyOn(p, "decode");
    const out = sharedOut(37 * 29).fill(Number.NaN);
    const r = await a.get(null, { workers: p, out });
    expect(r.data).toBe(out);
    expect(Array.from(out)).toEqual(Array.from(value));
    // Neither the calling thread nor a hand-back decoded anything.
    expect(local.count()).toBe(0);
    expect(handedBack).not.toHaveBeenCalled();
    // A strided selection of a transposed array, into shared memory, too.
    const t = await makeArray(new MemoryStore(), "transpose+crc32c");
    await t.set(null, value, { workers: false });
    const sel = [slice(null, null, -2), slice(1, 28, 5)];
    const want = await t.get(sel, { workers: false });
    const got = await t.get(sel, { workers: p, out: sharedOut(want.data.length) });
    expect(Array.from(got.data as Float32Array)).toEqual(Array.from(want.data as Float32Array));
  });

  it("chunks decoded into scratch memory copy out right for every in-memory layout", async () => {
    // float16 lives in a Float32Array (4 bytes per element, 2 stored), int64 in a
    // BigInt64Array, complex64 interleaved, big-endian bytes swapped: what a worker writes
    // to its scratch memory must be the decoded chunk's in-memory bytes, not the stored ones.
    const p = await pool({ perWorker: 64 });
    const cases = [
      { dataType: "float16", endian: "little", value: (i: number) => (i % 97) / 4 },
      { dataType: "int64", endian: "big", value: (i: number) => BigInt(i * 1_000_003 - 7) },
      { dataType: "complex64", endian: "little", value: (i: number) => [i / 3, -i] },
      { dataType: "uint16", endian: "big", value: (i: number) => (i * 37) % 65536 },
    ] as const;
    for (const c of cases) {
      const a = await createArray(new MemoryStore(), "t", {
        shape: [30, 21],
        dataType: c.dataType,
        chunkShape: [16, 8],
        codecs: [
          { name: "transpose", configuration: { order: [1, 0] } },
          { name: "bytes", configuration: { endian: c.endian } },
          {
            name: "blosc",
            configuration: {
              cname: "lz4",
              clevel: 5,
              shuffle: "shuffle",
              typesize: 2,
              blocksize: 0,
            },
          },
        ],
      });
      const value = a.dataType.allocate(30 * 21) as unknown as unknown[];
      for (let i = 0; i < 30 * 21; i++) {
        const v = c.value(i);
        if (Array.isArray(v)) [value[2 * i], value[2 * i + 1]] = v;
        else value[i] = v;
      }
      await a.set(null, value as never, { workers: false });
      const sel = [slice(null, null, -3), slice(2, 21)];
      const want = await a.get(sel, { workers: false });
      const offered = vi.spyOn(p, "decodeTo");
      const got = await a.get(sel, { workers: p });
      expect(
        offered.mock.results.some((x) => x.value !== undefined),
        c.dataType,
      ).toBe(true);
      expect(Array.from(got.data as ArrayLike<unknown>), c.dataType).toEqual(
        Array.from(want.data as ArrayLike<unknown>),
      );
      offered.mockRestore();
    }
  });

  it("a partial shard read decodes its inner chunks side by side, in the workers too", async () => {
    const p = await pool({ size: 1, perWorker: 2 });
    const a = await createArray(new MemoryStore(), "s", {
      shape: [64, 64],
      dataType: "float32",
      chunkShape: [64, 64],
      codecs: [
        {
          name: "sharding_indexed",
          configuration: {
            chunk_shape: [16, 16],
            codecs: [
              { name: "bytes", configuration: { endian: "little" } },
              { name: "zstd", configuration: { level: 1 } },
            ],
          },
        },
      ],
    });
    const value = field(64 * 64);
    await a.set(null, value, { workers: false });
    const offered = vi.spyOn(p, "decode");
    const sel = [slice(3, 45), slice(10, 60, 3)];
    const want = await a.get(sel, { workers: false });
    await a.get(sel, { workers: p });
    // The inner chunks' pipeline, which decodes only the chunks decoded on this thread.
    const inner = offered.mock.calls[0]![0];
    offered.mockClear();
    const local = spyLocalDecodes(inner);
    const got = await a.get(sel, { workers: p });
    expect(Array.from(got.data as Float32Array)).toEqual(Array.from(want.data as Float32Array));
    // 3 × 4 inner chunks, all offered: the worker took its share, the calling thread the rest.
    expect(offered).toHaveBeenCalledTimes(12);
    for (const x of offered.mock.results) expect(x.value).toBeInstanceOf(Promise);
    expect(local.count()).toBeGreaterThan(0);
    expect(local.count()).toBeLessThan(12);
    local.restore();
  });

  it("when every worker is busy, the calling thread decodes the rest itself", async () => {
    const p = await pool({ size: 1, perWorker: 1 });
    const a = await makeArray(new MemoryStore(), "zstd");
    const value = field(37 * 29);
    await a.set(null, value, { workers: false });
    const local = spyLocalDecodes(a.codecs);
    const offered = vi.spyOn(p, "decodeTo");
    const handedBack = vi.spyOn(p, "decode");
    const r = await a.get(null, { workers: p, concurrency: 8 });
    expect(Array.from(r.data as Float32Array)).toEqual(Array.from(value));
    const chunks = 5 * 2;
    // Every chunk is taken: what the worker has no room for waits, and this
    // thread decodes it on a later turn of the event loop unless the worker
    // frees up first.
    expect(offered).toHaveBeenCalledTimes(chunks);
    for (const x of offered.mock.results) expect(x.value).toBeInstanceOf(Promise);
    expect(local.count()).toBeGreaterThan(0); // some ran here...
    expect(local.count()).toBeLessThan(chunks); // ...and some in the worker
    // Chunks decoded here were not handed back whole from a worker.
    expect(handedBack).not.toHaveBeenCalled();
  });

  it("a worker that frees up takes waiting chunks before the calling thread does", async () => {
    // Chunk reads that complete together (a memory store) arrive as one batch:
    // the calling thread decodes one waiting chunk per turn of the event loop,
    // and between turns the worker's replies hand it the next, so it decodes
    // more than the one chunk it had room for at first.
    const p = await pool({ size: 1, perWorker: 1 });
    const a = await createArray(new MemoryStore(), "w", {
      shape: [8, 512, 512],
      dataType: "float32",
      chunkShape: [1, 512, 512],
      codecs: [
        { name: "bytes", configuration: { endian: "little" } },
        { name: "zstd", configuration: { level: 1 } },
      ],
    });
    const value = field(8 * 512 * 512);
    await a.set(null, value, { workers: false });
    await a.get(null, { workers: p }); // the worker builds the pipeline and loads zstd
    const local = spyLocalDecodes(a.codecs);
    // Before waiting chunks were held back, the worker decoded exactly one
    // chunk of such a batch, every time. Threads are scheduled by a busy
    // machine, so the worker is given three reads to show it takes more.
    let mostInWorker = 0;
    for (let i = 0; i < 3 && mostInWorker <= 1; i++) {
      local.clear();
      const r = await a.get(null, { workers: p, concurrency: 8 });
      expect(Buffer.from((r.data as Float32Array).buffer).equals(Buffer.from(value.buffer))).toBe(
        true,
      );
      mostInWorker = Math.max(mostInWorker, 8 - local.count());
    }
    expect(mostInWorker).toBeGreaterThan(1);
    local.restore();
  });

  it("chunks waiting for room honour their abort signal", async () => {
    const p = await pool({ size: 1, perWorker: 1 });
    const a = await makeArray(new MemoryStore(), "zstd");
    const bytes = await a.codecs.encode({
      data: field(a.codecs.spec.shape.reduce((x, y) => x * y, 1)),
      shape: a.codecs.spec.shape,
      stride: [],
      dataType: a.dataType,
    });
    const controller = new AbortController();
    const local = spyLocalDecodes(a.codecs);
    const jobs = Array.from({ length: 6 }, () =>
      p.decode(a.codecs, bytes, { format: 3, path: "zstd" }, { signal: controller.signal }),
    );
    controller.abort();
    const settled = await Promise.allSettled(jobs);
    for (const x of settled) {
      expect(x.status).toBe("rejected");
      expect((x as PromiseRejectedResult).reason.name).toBe("AbortError");
    }
    // None of the waiting ones was decoded.
    expect(local.count()).toBe(0);
    local.restore();
  });

  it("in-place decoding falls back to the calling thread when workers lack the codec", async () => {
    const p = await pool({ modules: [], defaultModules: false, perWorker: 64 });
    const a = await makeArray(new MemoryStore(), "blosc");
    const value = field(37 * 29);
    await a.set(null, value, { workers: false });
    const r = await a.get(null, { workers: p, out: sharedOut(37 * 29) });
    expect(Array.from(r.data as Float32Array)).toEqual(Array.from(value));
    // Later reads of that array stay here without asking the workers.
    expect(
      p.decodeTo(
        a.codecs,
        new Uint8Array(8),
        { format: 3, path: "blosc" },
        {
          out: sharedOut(1),
          chunkSel: [0, 0],
          outAxes: [],
          outStrides: [],
        },
      ),
    ).toBeUndefined();
  });

  it("an aborted in-place read rejects with AbortError and the pool stays usable", async () => {
    const p = await pool({ size: 1, perWorker: 4 });
    const a = await makeArray(new MemoryStore(), "zstd");
    const value = field(37 * 29);
    await a.set(null, value, { workers: false });
    const controller = new AbortController();
    const pending = a.get(null, {
      workers: p,
      out: sharedOut(37 * 29),
      signal: controller.signal,
    });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    const r = await a.get(null, { workers: p, out: sharedOut(37 * 29) });
    expect(Array.from(r.data as Float32Array)).toEqual(Array.from(value));
  });
});

describe("WorkerPool: memory a codec hands back", () => {
  it("a decode that returns a view of its (staged, shared) input comes back as its own copy", async () => {
    const identity = new URL("./fixtures/identity-codec.mjs", import.meta.url);
    await import(identity.href); // registered here too
    const p = await pool({ modules: [identity.href], defaultModules: false, perWorker: 8 });
    const a = await createArray(new MemoryStore(), "id", {
      shape: [64, 16],
      dataType: "float32",
      chunkShape: [8, 16],
      codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "test.identity" }],
    });
    const value = field(64 * 16);
    await a.set(null, value, { workers: false });
    const chunks = await Promise.all(
      Array.from({ length: 8 }, (_, i) => a.getChunk([i, 0], { workers: p })),
    );
    const offered = vi.spyOn(p, "decode");
    await a.getChunk([0, 0], { workers: p });
    expect(offered.mock.results[0].value).toBeInstanceOf(Promise); // the workers took it
    chunks.forEach((c, i) => {
      expect((c!.data as Float32Array).buffer).toBeInstanceOf(ArrayBuffer);
      expect(Array.from(c!.data as Float32Array)).toEqual(
        Array.from(value.subarray(i * 128, (i + 1) * 128)),
      );
    });
  });
});

describe("WorkerPool: errors, fallback, abort", () => {
  it("a corrupt chunk fails with the same CodecError as on the calling thread", async () => {
    const store = new MemoryStore();
    const a = await makeArray(store, "zstd");
    await a.set(null, 1, { workers: false });
    const bytes = (await store.get("zstd/c/1/1"))!.slice();
    bytes[bytes.length - 2] ^= 0xff;
    await store.set("zstd/c/1/1", bytes);
    const local = await a.get(null, { workers: false }).catch((e: unknown) => e);
    const remote = await a.get(null, { workers: await pool() }).catch((e: unknown) => e);
    expect(local).toBeInstanceOf(CodecError);
    expect(remote).toBeInstanceOf(CodecError);
    expect((remote as CodecError).message).toBe((local as CodecError).message);
  });

  it("workers without a codec module fall back to the calling thread", async () => {
    const p = await pool({ modules: [], defaultModules: false });
    const a = await makeArray(new MemoryStore(), "blosc");
    const value = field(37 * 29);
    await a.set(null, value, { workers: p });
    const r = await a.get(null, { workers: p });
    expect(Array.from(r.data as Float32Array)).toEqual(Array.from(value));
  });

  it("abort rejects with AbortError and leaves the pool usable", async () => {
    const p = await pool({ size: 1, perWorker: 1 });
    const a = await makeArray(new MemoryStore(), "zstd");
    await a.set(null, field(37 * 29), { workers: false });
    const controller = new AbortController();
    const pending = a.get(null, { workers: p, signal: controller.signal, concurrency: 8 });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    const r = await a.get([slice(0, 2), 0], { workers: p });
    expect(r.shape).toEqual([2]);
  });

  it("close fails running work with a CodecError; later jobs run on the calling thread", async () => {
    const p = await pool({ size: 1, perWorker: 1 });
    const store = new MemoryStore();
    const a = await makeArray(store, "zstd");
    await a.set(null, 1, { workers: false });
    const bytes = (await store.get("zstd/c/0/0"))!;
    const context = { format: 3, path: "zstd" } as const;
    const running = p.decode(a.codecs, bytes, context);
    expect(running).toBeInstanceOf(Promise);
    const closing = p.close();
    await expect(running).rejects.toBeInstanceOf(CodecError);
    await expect(closing).resolves.toBeUndefined(); // every worker has exited
    expect(p.pending).toBe(0);
    expect(p.decode(a.codecs, bytes, context)).toBeUndefined();
    const r = await a.get(null, { workers: p });
    expect(Array.from(r.data as Float32Array).every((x) => x === 1)).toBe(true);
  });

  it("codecs already running off the thread (node:zlib) stay on the calling thread", async () => {
    const p = await pool();
    const a = await makeArray(new MemoryStore(), "gzip");
    expect(a.codecs.bytesToBytes[0].runsOffThread).toBe(true);
    const chunk = {
      data: new Float32Array(128),
      shape: [8, 16],
      stride: [16, 1],
      dataType: a.dataType,
    };
    expect(p.encode(a.codecs, chunk, { format: 3, path: "gzip" })).toBeUndefined();
    expect(p.decode(a.codecs, new Uint8Array(20), { format: 3, path: "gzip" })).toBeUndefined();
    expect(p.pending).toBe(0);
  });

  it("a cold pool runs jobs on the calling thread while its workers start, then sends them", async () => {
    const p = new WorkerPool({ workerUrl, size: 1, decode: true, minChunkBytes: 0 });
    pools.push(p);
    const a = await makeArray(new MemoryStore(), "zstd");
    const chunk = {
      data: new Float32Array(128),
      shape: [8, 16],
      stride: [16, 1],
      dataType: a.dataType,
    };
    // Nothing waits for a starting worker: the calling thread runs the job
    // on the next turn of the event loop.
    const local = vi.spyOn(a.codecs, "encode");
    const early = await p.encode(a.codecs, chunk, { format: 3, path: "zstd" });
    expect(local).toHaveBeenCalledTimes(1);
    await p.warmUp();
    const bytes = p.encode(a.codecs, chunk, { format: 3, path: "zstd" });
    expect(bytes).toBeInstanceOf(Promise);
    expect(await bytes).toEqual(early);
    expect(local).toHaveBeenCalledTimes(1); // encoded in the worker
    local.mockRestore();
    expect(early).toEqual(await a.codecs.encode(chunk));
  });

  it("small or uncompressed chunks stay on the calling thread", async () => {
    const p = new WorkerPool({ workerUrl, decode: true });
    pools.push(p);
    const a = await makeArray(new MemoryStore(), "zstd"); // 8×16×4 bytes < 64 KiB
    const chunk = {
      data: new Float32Array(128),
      shape: [8, 16],
      stride: [16, 1],
      dataType: a.dataType,
    };
    expect(p.encode(a.codecs, chunk, { format: 3, path: "zstd" })).toBeUndefined();
    expect(p.pending).toBe(0);
  });

  /** A float32 array of `chunks` zstd chunks of 512×512, every chunk written. */
  async function zstdChunks(chunks: number, level = 3): Promise<ZarrArray> {
    const a = await createArray(new MemoryStore(), "big", {
      shape: [chunks * 512, 512],
      dataType: "float32",
      chunkShape: [512, 512],
      codecs: [
        { name: "bytes", configuration: { endian: "little" } },
        { name: "zstd", configuration: { level } },
      ],
    });
    await a.set(null, field(chunks * 512 * 512), { workers: false });
    return a;
  }

  it("an aborted read into a shared out rejects only once no worker writes there any more", async () => {
    // The worker decodes straight into the caller's shared memory; a read that
    // rejected while a worker still wrote there would let that worker change
    // the caller's array afterwards (attack on the pool, 2026-11-27: up to
    // every element was overwritten after the rejection).
    const p = await pool({ size: 1, perWorker: 2 });
    const a = await zstdChunks(4, 19);
    const n = 4 * 512 * 512;
    await a.get(null, { workers: p, out: new Float32Array(new SharedArrayBuffer(n * 4)) });
    for (let trial = 0; trial < 4; trial++) {
      const out = new Float32Array(new SharedArrayBuffer(n * 4)).fill(-7);
      const controller = new AbortController();
      const read = a.get(null, { workers: p, out, signal: controller.signal });
      setTimeout(() => controller.abort(), trial);
      await expect(read).rejects.toBeInstanceOf(AbortError);
      const atRejection = out.slice();
      await new Promise((resolve) => setTimeout(resolve, 150));
      while (p.pending > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(
        Buffer.from(out.buffer).equals(Buffer.from(atRejection.buffer)),
        `trial ${trial}`,
      ).toBe(true);
    }
  });

  it("an aborted job waiting for room leaves at once, not when its turn comes", async () => {
    const p = await pool({ size: 1, perWorker: 1 });
    const big = await zstdChunks(48);
    const small = await zstdChunks(1);
    await small.get(null, { workers: p });
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const long = big.get(null, { workers: p, concurrency: 48 });
    while (p.pending < 8) await turn();
    const offered = vi.spyOn(p, "decodeTo");
    const controller = new AbortController();
    const aborted = small.get(null, { workers: p, signal: controller.signal });
    // Its chunk joins the end of the waiting jobs...
    while (!offered.mock.calls.some(([codecs]) => codecs === small.codecs)) await turn();
    offered.mockRestore();
    controller.abort();
    // ...and leaves at once: most of the big read's jobs still wait when it rejects.
    let waitingAtRejection = -1;
    await aborted.then(
      () => {
        throw new Error("expected an abort");
      },
      (e: unknown) => {
        expect(e).toBeInstanceOf(AbortError);
        waitingAtRejection = p.pending;
      },
    );
    expect(waitingAtRejection).toBeGreaterThan(4);
    await long;
  });

  it("counts jobs waiting for room as pending", async () => {
    const p = await pool({ size: 1, perWorker: 1 });
    const big = await zstdChunks(16);
    const read = big.get(null, { workers: p, concurrency: 16 });
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(p.pending).toBeGreaterThan(1);
    await read;
    expect(p.pending).toBe(0);
  });

  it("options that are not finite numbers are a ValueError", () => {
    for (const bad of [{ perWorker: Number.NaN }, { size: Infinity }, { minChunkBytes: -1 }]) {
      expect(() => new WorkerPool({ workerUrl, ...bad })).toThrow(/must be a finite number/);
    }
    // A finite but absurd size would start threads until the heap runs out (attack).
    expect(() => new WorkerPool({ workerUrl, size: 1e12 })).toThrow(/at most 1024 workers/);
  });

  it("a read with a signal adds one abort listener to it, whatever the chunks in flight", async () => {
    // Node warns past 10 listeners on one signal ("possible EventTarget memory leak").
    const p = await pool({ size: 1, perWorker: 1 });
    const big = await zstdChunks(24);
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, "addEventListener");
    await big.get(null, { workers: p, signal: controller.signal, concurrency: 24 });
    const fromPool = add.mock.calls.filter(([type]) => type === "abort").length;
    expect(fromPool).toBeLessThanOrEqual(1);
    add.mockRestore();
  });

  it("a worker keeps at most 256 pipelines built; a forgotten one is described again", async () => {
    // Opening arrays without end must not grow the workers' memory; a
    // forgotten pipeline is described again when it is used again.
    const p = await pool({ size: 1 });
    const arrays: ZarrArray[] = [];
    for (let i = 0; i < 300; i++) {
      const a = await makeArray(new MemoryStore(), "zstd");
      await a.set(
        null,
        field(37 * 29).map((x) => x + i),
        { workers: false },
      );
      arrays.push(a);
    }
    const sent = vi.spyOn(p, "decodeTo");
    for (const round of [0, 1]) {
      for (const [i, a] of arrays.entries()) {
        if (round === 1 && i >= 20) break; // the first ones again, long forgotten
        const got = await a.get(null, { workers: p });
        expect(got.data[5], `array ${i}`).toBe(field(37 * 29)[5]! + i);
      }
    }
    // Had a worker been sent a forgotten pipeline without its description, it
    // would have refused it, and the pool would keep that array on this thread.
    sent.mockClear();
    await arrays[0]!.get(null, { workers: p });
    expect(sent.mock.results.at(-1)?.value).toBeInstanceOf(Promise);
    sent.mockRestore();
  });
});

describe("WorkerPool: the workers' young generation (Node)", () => {
  const reporter = new URL("./fixtures/young-generation-codec.mjs", import.meta.url);

  it("is BUILTIN_YOUNG_GENERATION_MB with only this package's codecs, else V8's default, or the option", () => {
    expect(BUILTIN_YOUNG_GENERATION_MB).toBeLessThanOrEqual(4);
    expect(new WorkerPool().youngGenerationMb).toBe(BUILTIN_YOUNG_GENERATION_MB);
    expect(new WorkerPool({ modules: [] }).youngGenerationMb).toBe(BUILTIN_YOUNG_GENERATION_MB);
    expect(new WorkerPool({ modules: [reporter] }).youngGenerationMb).toBeUndefined();
    expect(new WorkerPool({ workerUrl }).youngGenerationMb).toBeUndefined();
    expect(new WorkerPool({ modules: [reporter], youngGenerationMb: 16 }).youngGenerationMb).toBe(
      16,
    );
    expect(new WorkerPool({ youngGenerationMb: 8 }).youngGenerationMb).toBe(8);
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new WorkerPool({ youngGenerationMb: bad })).toThrow(ValueError);
    }
  });

  it("is the limit the workers start with", async () => {
    await import(reporter.href); // registered here too
    const limitsSeen = async (options: ConstructorParameters<typeof WorkerPool>[0]) => {
      const p = await pool({ size: 1, modules: [reporter.href], ...options });
      const a = await createArray(new MemoryStore(), "y", {
        shape: [8, 1024],
        dataType: "uint32",
        chunkShape: [1, 1024],
        codecs: [
          { name: "bytes", configuration: { endian: "little" } },
          { name: "test.young-generation" },
        ],
      });
      await a.set(null, 1);
      const { data } = await a.get(null, { workers: p });
      // 0: a chunk the calling thread decoded (every worker busy); the rest, the worker's limit.
      return new Set(Array.from(data as Uint32Array).filter((v) => v !== 0));
    };
    expect(await limitsSeen({ youngGenerationMb: 2 })).toEqual(new Set([2]));
    const v8Default = [...(await limitsSeen({}))];
    expect(v8Default).toHaveLength(1);
    expect(v8Default[0]).toBeGreaterThanOrEqual(16);
  });
});

describe("a process started with flags workers refuse", () => {
  it("reads through the pool (workers start without --max-old-space-size, --expose-gc, --stack-size)", () => {
    const child = spawnSync(
      process.execPath,
      [
        "--max-old-space-size=512",
        "--expose-gc",
        "--stack-size=2000",
        fileURLToPath(new URL("fixtures/flags-child.mjs", import.meta.url)),
      ],
      { encoding: "utf8", timeout: 45_000 },
    );
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "")).toEqual({
      same: true,
      workersTookJobs: true,
    });
  });
});

// One JavaScript implementation's side of the benchmark, in its own process so
// that heaps and peak RSS do not mix: `node js_bench.mjs IMPL JOB_JSON` prints
// one JSON line. IMPL: ours (default worker pool) | ours-out (default pool,
// reads into one reused SharedArrayBuffer `out`) | ours-1t (no worker pool) |
// zarrita | zarrjs.
import { mkdir, readdir, readFile, rm, stat, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fillField, lineValue } from "./rows.mjs";

const [impl, jobJson] = process.argv.slice(2);
const job = JSON.parse(jobJson);

function checksum(data) {
  let s = 0;
  for (let k = 0; k < data.length; k += 4099) s += data[k];
  return s;
}

function field(n) {
  return fillField(new Float32Array(n * n), n);
}

/** Each implementation: read(path) -> Float32Array, write(path, data, n, row), region(path) -> (r,c,h,w) => Promise. */
async function loadOurs(workers) {
  const core = await import("@zarr/core");
  await import("@zarr/v2-compat/register");
  await import("@zarr/codec-blosc/register");
  await import("@zarr/codec-gzip/register");
  await import("@zarr/codec-zstd/register");
  const { FileSystemStore } = await import("@zarr/store-fs");
  const { createArrayV2 } = await import("@zarr/v2-compat");
  let pool;
  if (workers) {
    const w = await import("@zarr/workers");
    const size = process.env.BENCH_WORKERS ? { size: Number(process.env.BENCH_WORKERS) } : {};
    const forced = process.env.BENCH_DECODE;
    const decode = forced ? { decode: forced === "1" } : {};
    pool = new w.WorkerPool({ ...size, ...decode });
  }
  const opts = { workers: pool ?? false };
  // ours-out: one output in shared memory, reused by every read (a viewer's pattern).
  let out;
  return {
    async read(path) {
      const a = await core.openArray(new FileSystemStore(path), "");
      if (impl !== "ours-out") return (await a.get(null, opts)).data;
      const length = a.shape.reduce((x, y) => x * y, 1);
      out ??= new Float32Array(new SharedArrayBuffer(length * 4));
      return (await a.get(null, { ...opts, out })).data;
    },
    async write(path, data, n, row) {
      const a = await createArrayV2(new FileSystemStore(path), "", {
        shape: [n, n],
        chunks: [512, 512],
        dtype: "<f4",
        compressor: row.v2,
        fillValue: 0,
        overwrite: true,
      });
      await a.set(null, data, opts);
    },
    async writeSharded(path, data, g, codecs) {
      const a = await core.createArray(new FileSystemStore(path), "", {
        shape: g.shape,
        dataType: "float32",
        chunkShape: g.shard,
        fillValue: 0,
        overwrite: true,
        codecs: [
          {
            name: "sharding_indexed",
            configuration: {
              chunk_shape: g.inner,
              codecs: [{ name: "bytes", configuration: { endian: "little" } }, ...codecs],
              index_codecs: [
                { name: "bytes", configuration: { endian: "little" } },
                { name: "crc32c" },
              ],
              index_location: "end",
            },
          },
        ],
      });
      await a.set(null, data, opts);
    },
    async opener(path) {
      const a = await core.openArray(new FileSystemStore(path), "");
      return (r, c, h, w) => a.get([core.slice(r, r + h), core.slice(c, c + w)], opts);
    },
    /** Region reads through a CountingStore, with a ChunkCache of `cacheBytes` (none when 0). */
    async panner(path, cacheBytes) {
      const store = new core.CountingStore(new FileSystemStore(path));
      const a = await core.openArray(store, "");
      const chunkCache = cacheBytes > 0 ? new core.ChunkCache({ maxBytes: cacheBytes }) : undefined;
      const options = chunkCache ? { ...opts, chunkCache } : opts;
      return {
        get: (r, c, h, w) => a.get([core.slice(r, r + h), core.slice(c, c + w)], options),
        store,
        chunkCache,
      };
    },
    async slicer(path) {
      const a = await core.openArray(new FileSystemStore(path), "");
      return async (ranges) =>
        (
          await a.get(
            ranges.map(([s, e]) => core.slice(s, e)),
            opts,
          )
        ).data;
    },
    /** Data generation without zarr-python: any row of rows.mjs with shape/chunks/dtype. */
    async writeArray(path, row) {
      const a = await createArrayV2(new FileSystemStore(path), "", {
        shape: row.shape,
        chunks: row.chunks,
        dtype: row.dtype,
        compressor: row.v2,
        fillValue: 0,
        overwrite: true,
      });
      const data =
        row.shape.length === 2
          ? fillField(new Float32Array(row.shape[0] * row.shape[1]), row.shape[0])
          : Float64Array.from({ length: row.shape[0] }, (_, k) => lineValue(k));
      await a.set(null, data, opts);
    },
    close: () => pool?.close(),
  };
}

/**
 * zarrita 0.7.5 hands a v3 blosc configuration to numcodecs.js as it is, and
 * numcodecs.js's blosc takes `shuffle` as a number: given "shuffle" or
 * "bitshuffle" it writes chunks that are not shuffled at all (their header
 * flags say so), which compress worse and faster. Numbers make zarrita do the
 * work the row asks for, as every other implementation here does.
 */
function numericShuffle(codec) {
  if (codec.name !== "blosc") return codec;
  const shuffle = { noshuffle: 0, shuffle: 1, bitshuffle: 2 }[codec.configuration.shuffle];
  return { ...codec, configuration: { ...codec.configuration, shuffle } };
}

async function loadZarrita() {
  const zarr = await import("zarrita");
  const { default: FileSystemStore } = await import("@zarrita/storage/fs");
  return {
    async read(path) {
      const a = await zarr.open(new FileSystemStore(path), { kind: "array" });
      return (await zarr.get(a, null)).data;
    },
    async write(path, data, n, row) {
      await rm(path, { recursive: true, force: true });
      const a = await zarr.create(new FileSystemStore(path), {
        shape: [n, n],
        chunkShape: [512, 512],
        dtype: "float32",
        fillValue: 0,
        codecs: [
          { name: "bytes", configuration: { endian: "little" } },
          ...row.v3.map(numericShuffle),
        ],
      });
      await zarr.set(a, null, { data, shape: [n, n], stride: [n, 1] });
    },
    async opener(path) {
      const a = await zarr.open(new FileSystemStore(path), { kind: "array" });
      return (r, c, h, w) => zarr.get(a, [zarr.slice(r, r + h), zarr.slice(c, c + w)]);
    },
    async slicer(path) {
      const a = await zarr.open(new FileSystemStore(path), { kind: "array" });
      return async (ranges) =>
        (
          await zarr.get(
            a,
            ranges.map(([s, e]) => zarr.slice(s, e)),
          )
        ).data;
    },
  };
}

/** A directory store for zarr.js 0.6 (which ships none for Node). */
function zarrjsStore(root, KeyError) {
  return {
    async getItem(key) {
      try {
        return await readFile(join(root, key));
      } catch (e) {
        if (e.code === "ENOENT") throw new KeyError(key);
        throw e;
      }
    },
    async setItem(key, value) {
      const file = join(root, key);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, typeof value === "string" ? value : new Uint8Array(value));
      return true;
    },
    async containsItem(key) {
      try {
        await stat(join(root, key));
        return true;
      } catch {
        return false;
      }
    },
    async deleteItem(key) {
      try {
        await unlink(join(root, key));
        return true;
      } catch {
        return false;
      }
    },
    async keys() {
      return readdir(root).catch(() => []);
    },
  };
}

async function loadZarrjs() {
  const zarr = await import("zarr");
  try {
    const { default: Zstd } = await import("numcodecs/zstd");
    zarr.addCodec("zstd", () => Zstd);
  } catch {
    // zstd stays unsupported
  }
  return {
    async read(path) {
      const a = await zarr.openArray({ store: zarrjsStore(path, zarr.KeyError), mode: "r" });
      return (await a.getRaw(null)).data;
    },
    async write(path, data, n, row) {
      await rm(path, { recursive: true, force: true });
      const a = await zarr.openArray({
        store: zarrjsStore(path, zarr.KeyError),
        mode: "w",
        shape: [n, n],
        chunks: [512, 512],
        dtype: "<f4",
        compressor: row.v2,
        fillValue: 0,
      });
      await a.set(null, new zarr.NestedArray(data, [n, n], "<f4"));
    },
    async opener(path) {
      const a = await zarr.openArray({ store: zarrjsStore(path, zarr.KeyError), mode: "r" });
      return (r, c, h, w) => a.getRaw([zarr.slice(r, r + h), zarr.slice(c, c + w)]);
    },
  };
}

const lib =
  impl === "ours" || impl === "ours-out"
    ? await loadOurs(true)
    : impl === "ours-1t"
      ? await loadOurs(false)
      : impl === "zarrita"
        ? await loadZarrita()
        : impl === "zarrjs"
          ? await loadZarrjs()
          : null;
if (!lib) throw new Error(`unknown implementation ${impl}`);

const result = {};
const baseRss = process.memoryUsage().rss;
try {
  if (job.op === "read") {
    const times = [];
    let check;
    for (let k = 0; k < job.reps; k++) {
      const t = performance.now();
      let data = await lib.read(job.path);
      times.push((performance.now() - t) / 1000);
      check = checksum(data);
      data = undefined;
    }
    Object.assign(result, { times, check });
  } else if (job.op === "write") {
    const data = field(job.n);
    const times = [];
    for (let k = 0; k < job.reps; k++) {
      await rm(job.path, { recursive: true, force: true });
      const t = performance.now();
      await lib.write(job.path, data, job.n, job.row);
      times.push((performance.now() - t) / 1000);
    }
    result.times = times;
  } else if (job.op === "write-sharded") {
    const n = job.geometry.shape[0];
    await lib.writeSharded(job.path, field(n), job.geometry, job.codecs);
  } else if (job.op === "write-array") {
    await lib.writeArray(job.path, job.row);
  } else if (job.op === "slices") {
    // Latency of reads of `job.slices` (each a list of [start, stop) per dimension), array opened once.
    const get = await lib.slicer(job.path);
    await get(job.slices[0]); // warm-up: metadata, codec modules
    const times = [];
    let data;
    for (const sel of job.slices) {
      const t = performance.now();
      data = await get(sel);
      times.push((performance.now() - t) / 1000);
    }
    Object.assign(result, { times, check: checksum(data) });
  } else if (job.op === "pan") {
    // Overlapping region reads (a viewer panning), with or without a ChunkCache.
    const { get, store, chunkCache } = await lib.panner(job.path, job.cacheBytes);
    await get(...job.windows[0]); // warm-up: metadata, codec modules
    store.reset();
    chunkCache?.clear(); // the timed reads start with an empty cache
    const times = [];
    let check = 0;
    for (const w of job.windows) {
      const t = performance.now();
      const { data } = await get(...w);
      times.push((performance.now() - t) / 1000);
      check += checksum(data);
    }
    const { reads, readBytes } = store.counts;
    Object.assign(result, { times, check, reads, readBytes, cached: chunkCache?.size });
  } else if (job.op === "regions") {
    const get = await lib.opener(job.path);
    await get(...job.regions[0]); // warm-up: metadata, shard index, codec modules
    const times = [];
    for (const reg of job.regions) {
      const t = performance.now();
      await get(...reg);
      times.push((performance.now() - t) / 1000);
    }
    result.times = times;
  }
} catch (e) {
  result.error = String(e?.message ?? e).slice(0, 200);
}
await lib.close?.();
result.baseRssKiB = Math.round(baseRss / 1024);
result.maxRssKiB = process.resourceUsage().maxRSS;
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);

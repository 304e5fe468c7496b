// What checking a stored entry's CRC-32 before serving ranges of it costs: a
// shard in a stored entry (64 MiB, and 1 MiB), read as a sharded array would
// (a suffix read of its index, then 100 reads of 1 KiB inner chunks), from
// memory, a local file and HTTP on 127.0.0.1, with verifyRangedReadsUpTo 0
// (ranges unchecked, local header checked), the default (1 MiB) and Infinity
// (the whole entry is read and checked on the first ranged read). Run after `pnpm build`:
//   node packages/store-zip/bench/ranged-reads.mjs

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bytesSource, ZipStore, ZipWriter } from "@zarr/store-zip";
import { fileSource } from "@zarr/store-zip/node";

const SHARD = 64 << 20;
const SMALL = 1 << 20;
const READS = 100;
const READ = 1024;

const shard = new Uint8Array(SHARD);
for (let i = 0, x = 1; i < SHARD; i++) {
  x = (x * 1103515245 + 12345) >>> 0;
  shard[i] = x >>> 24;
}
const chunks = [];
const writer = new ZipWriter({ write: (c) => void chunks.push(c.slice()) }, { compress: false });
await writer.add("a/zarr.json", new TextEncoder().encode("{}"));
await writer.add("a/c/0", shard);
await writer.add("a/c/1", shard.subarray(0, SMALL));
await writer.close();
const archive = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
let at = 0;
for (const c of chunks) {
  archive.set(c, at);
  at += c.length;
}

const dir = await mkdtemp(join(tmpdir(), "zip-bench-"));
const path = join(dir, "a.zip");
await writeFile(path, archive);

const server = createServer(async (req, res) => {
  const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? "");
  const [start, end] = m ? [Number(m[1]), Number(m[2]) + 1] : [0, archive.length];
  res.writeHead(m ? 206 : 200, { "content-length": end - start });
  res.end(archive.subarray(start, end));
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${server.address().port}/a.zip`;
/** A RangeSource over HTTP: one GET with a Range header per read. */
const httpSource = () => ({
  name: url,
  size: async () => archive.length,
  async read(offset, length) {
    const r = await fetch(url, { headers: { range: `bytes=${offset}-${offset + length - 1}` } });
    return new Uint8Array(await r.arrayBuffer());
  },
});

/** Counts a source's requests and bytes. */
function counted(source) {
  const stats = { requests: 0, bytes: 0 };
  return [
    {
      ...source,
      async read(offset, length, signal) {
        stats.requests++;
        stats.bytes += length;
        return source.read(offset, length, signal);
      },
    },
    stats,
  ];
}

const offsetsIn = (size) =>
  Array.from({ length: READS }, (_, i) => ((i * 7919 * 4096 + i * 1031) % (size - READ)) | 0);
const sources = {
  memory: () => bytesSource(archive),
  file: () => fileSource(path),
  "http 127.0.0.1": httpSource,
};
const rows = [];
const cases = [
  ["a/c/0", SHARD, [0, Number.POSITIVE_INFINITY]],
  ["a/c/1", SMALL, [0, undefined]],
];
for (const [key, size, limits] of cases)
  for (const [name, make] of Object.entries(sources)) {
    const offsets = offsetsIn(size);
    for (const limit of limits) {
      const times = [];
      let stats;
      let firstMs;
      for (let rep = 0; rep < 3; rep++) {
        const [source, s] = counted(make());
        const store = await ZipStore.open(source, { verifyRangedReadsUpTo: limit });
        s.requests = 0;
        s.bytes = 0;
        const t0 = performance.now();
        await store.get(key, { suffix: 16 * 1024 });
        const t1 = performance.now();
        for (const offset of offsets) await store.get(key, { offset, length: READ });
        times.push(performance.now() - t0);
        firstMs = t1 - t0;
        stats = s;
        await store.close();
      }
      times.sort((a, b) => a - b);
      rows.push(
        `| ${size >> 20} MiB | ${name} | ${limit === 0 ? "0 (unchecked)" : limit === undefined ? "default, 1 MiB (checked)" : "Infinity (checked)"} | ${firstMs.toFixed(1)} ms | ${times[1].toFixed(1)} ms | ${stats.requests} | ${(stats.bytes / 2 ** 20).toFixed(2)} MiB |`,
      );
    }
  }
server.close();
await rm(dir, { recursive: true, force: true });
console.log(
  `A stored shard: a 16 KiB suffix read, then ${READS} reads of ${READ} bytes (median of 3)\n`,
);
console.log(
  "| shard | source | verifyRangedReadsUpTo | first read | all 101 reads | requests | bytes read |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- |");
for (const r of rows) console.log(r);

// 64-byte ranged gets in 2,000 entries of 64 KiB (about 2:1 compressible), in memory:
// the first get of each entry (which checks the entry's CRC-32 at the default
// threshold), then a second get of each (checked already).
const COUNT = 2000;
const ENTRY = 64 << 10;
const small = [];
for (const compress of [false, true]) {
  const parts = [];
  const w = new ZipWriter({ write: (c) => void parts.push(c.slice()) }, { compress });
  let x = 1;
  for (let i = 0; i < COUNT; i++) {
    const v = new Uint8Array(ENTRY);
    for (let j = 0; j < ENTRY; j++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      v[j] = x & 0x0f;
    }
    await w.add(`c/${i}`, v);
  }
  await w.close();
  const bytes = new Uint8Array(parts.reduce((n, c) => n + c.length, 0));
  let p = 0;
  for (const c of parts) {
    bytes.set(c, p);
    p += c.length;
  }
  for (const limit of [undefined, 0]) {
    const store = await ZipStore.open(bytesSource(bytes), { verifyRangedReadsUpTo: limit });
    const perGet = [];
    for (let pass = 0; pass < 2; pass++) {
      const t0 = performance.now();
      for (let i = 0; i < COUNT; i++)
        await store.get(`c/${i}`, { offset: 1000 + pass, length: 64 });
      perGet.push(((performance.now() - t0) * 1000) / COUNT);
    }
    small.push(
      `| ${compress ? "deflated" : "stored"} | ${limit === 0 ? "0 (unchecked)" : "default (checked)"} | ${perGet[0].toFixed(0)} µs | ${perGet[1].toFixed(0)} µs |`,
    );
  }
}
console.log(`\n64-byte ranged gets in ${COUNT} entries of ${ENTRY >> 10} KiB, in memory\n`);
console.log("| entries | verifyRangedReadsUpTo | first get of an entry | second get |");
console.log("| --- | --- | --- | --- |");
for (const r of small) console.log(r);

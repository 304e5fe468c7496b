// Codecs free the buffers they own once copied (`releaseBuffer` in
// @zarr/core/codec: ArrayBuffer.prototype.transfer(0), on Node >= 21 and in
// browsers). A buffer freed too early would read as empty (detached) or as
// other data: this attack keeps everything a caller can hold (results of
// get, chunks in a ChunkCache, decode() results, a shared `out`, the
// compressed bytes it passed in) across many reads of zstd, gzip and blosc
// zstd chunks at and around the 64 KiB release threshold, through every read
// path (plain, partial, worker pool, cache, shared out), and checks every
// value at the end. One fresh Node process under the watchdog.
import { describe, expect, it } from "vitest";
import { ATTACKS_DIR, describeRun, runGuarded } from "../src/index.js";

const SCRIPT = `
import "@zarr/codec-blosc/register";
import "@zarr/codec-gzip/register";
import "@zarr/codec-zstd/register";
import { ChunkCache, createArray, MemoryStore, slice } from "@zarr/core";
import { ZstdCodec } from "@zarr/codec-zstd";
import { DeflateCodec } from "@zarr/codec-gzip";
import { WorkerPool } from "@zarr/workers";

const pool = new WorkerPool({ size: 2, minChunkBytes: 0 });
const compressors = {
  zstd: { name: "zstd", configuration: { level: 1, checksum: false } },
  gzip: { name: "gzip", configuration: { level: 1 } },
  "blosc zstd": { name: "blosc", configuration: { cname: "zstd", clevel: 3, shuffle: "shuffle", typesize: 4, blocksize: 0 } },
};
const kept = []; // [label, array, expected]
const keep = (label, data, expected) => kept.push([label, data, expected]);
let checks = 0;
const same = (a, b) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
function check(label, data, expected) {
  checks++;
  if (!same(data, expected)) throw new Error(label + ": wrong values (length " + data.length + ", expected " + expected.length + ")");
}

for (const [name, codec] of Object.entries(compressors)) {
  // 128x128 float32 chunks are exactly 64 KiB (the release threshold), 160x160 above it.
  for (const chunk of [128, 160, 96]) {
    const n = 2 * chunk + 17;
    const values = Float32Array.from({ length: n * n }, (_, i) => Math.sin(i / 97) * 1000 + (i % 13));
    const array = await createArray(new MemoryStore(), "a", {
      shape: [n, n], dataType: "float32", chunkShape: [chunk, chunk], fillValue: 0,
      codecs: [{ name: "bytes", configuration: { endian: "little" } }, codec],
    });
    await array.set(null, values);
    const label = name + " chunks " + chunk;
    const cache = new ChunkCache({ maxBytes: 64 * 2 ** 20 });
    const out = new Float32Array(new SharedArrayBuffer(n * n * 4));
    for (let round = 0; round < 3; round++) {
      const plain = await array.get(null);
      const pooled = await array.get(null, { workers: pool });
      const cached = await array.get(null, { chunkCache: cache });
      await array.get(null, { workers: pool, out });
      const region = await array.get([slice(5, chunk + 9), slice(chunk - 3, chunk + 40)], { chunkCache: cache });
      const expectedRegion = [];
      for (let i = 5; i < chunk + 9; i++) for (let j = chunk - 3; j < chunk + 40; j++) expectedRegion.push(values[i * n + j]);
      keep(label + " plain " + round, plain.data, values);
      keep(label + " pool " + round, pooled.data, values);
      keep(label + " cache " + round, cached.data, values);
      keep(label + " region " + round, region.data, Float32Array.from(expectedRegion));
      check(label + " out " + round, out, values);
    }
  }
}

// Direct codec calls: decode() results and the inputs stay the caller's.
const data = Float32Array.from({ length: 1 << 16 }, (_, i) => i % 251);
const bytes = new Uint8Array(data.buffer);
for (const codec of [new ZstdCodec({ level: 1 }), new DeflateCodec("gzip", { level: 1 })]) {
  const packed = await codec.encode(bytes);
  const input = packed.slice();
  const results = [];
  for (let i = 0; i < 50; i++) {
    results.push(await codec.decode(packed, bytes.length));
    const into = new Uint8Array(bytes.length);
    // gzip has decodeInto only where buffers can be freed (Node >= 21).
    if (codec.decodeInto) await codec.decodeInto(packed, into);
    else into.set(await codec.decode(packed, bytes.length));
    results.push(into);
  }
  for (const r of results) check(codec.name + " decode", r, bytes);
  check(codec.name + " input", packed, input);
}

for (const [label, got, expected] of kept) check(label, got, expected);
await pool.close();
console.log("ok " + checks);
`;

describe("buffers codecs free early never show in data", () => {
  it("zstd, gzip and blosc zstd reads through every path keep every value a caller holds", async () => {
    const r = await runGuarded(
      process.execPath,
      ["--input-type=module", "-e", SCRIPT],
      { maxRssMiB: 1200, timeoutMs: 120_000 },
      { cwd: ATTACKS_DIR },
    );
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout.trim()).toMatch(/^ok \d+$/);
  });
});

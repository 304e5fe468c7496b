// Crafted zip archives against @zarr/store-zip, each read in a child process
// under the watchdog (RSS and time caps): entries whose central directory
// header points at another entry's local header, local headers that disagree
// with the central directory (name, method, sizes, flags, CRC, extra length),
// CRC mismatches on whole, ranged and suffix reads, huge declared sizes with
// little data, deflate streams longer than declared, lying data descriptors,
// data running into the next entry or the central directory; then the same
// through core (v3 arrays, sharded arrays in stored entries) and the CLI.
// Every read returns the entry's own bytes or fails with a typed error
// (ZarrError), within bounded memory and time.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createArray, MemoryStore } from "@zarr/core";
import { crc32 } from "@zarr/store-zip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attack, describeRun, type Limits, runZarr } from "../src/index.js";
import {
  type CraftEntry,
  craftZip,
  crc32Repeated,
  deflate,
  deflateRepeated,
} from "../src/zip-craft.js";

const LIMITS: Limits = { maxRssMiB: 300, timeoutMs: 20_000 };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "zarr-attack-zip-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

let files = 0;
async function save(bytes: Uint8Array): Promise<string> {
  const path = join(dir, `a${files++}.zip`);
  await writeFile(path, bytes);
  return path;
}

/** A value as a child reports it: length, CRC-32 and the first 16 bytes (hex). */
interface Seen {
  length: number;
  crc: number;
  head: string;
}
type Outcome = Seen | { error: string; typed: boolean; message: string } | { missing: true };

const seen = (v: Uint8Array): Seen => ({
  length: v.length,
  crc: crc32(v),
  head: Buffer.from(v.subarray(0, 16)).toString("hex"),
});

type Range = { offset: number; length?: number } | { suffix: number };
interface Read {
  key: string;
  range?: Range;
  /** Store options of the read (e.g. `maxBytes`). */
  options?: { maxBytes?: number };
}

const CHILD_PRELUDE = `
const { ZarrError } = await import("@zarr/core");
const { resolveStore } = await import("@zarr/core/store");
const { crc32 } = await import("@zarr/store-zip");
const { openZipFile } = await import("@zarr/store-zip/node");
const outcome = async (fn) => {
  try {
    const v = await fn();
    if (v === undefined) return { missing: true };
    return { length: v.length, crc: crc32(v), head: Buffer.from(v.subarray(0, 16)).toString("hex") };
  } catch (e) {
    return { error: e?.name, typed: e instanceof ZarrError, message: String(e?.message) };
  }
};
`;

/**
 * Opens the archive at `path` in a child process (with `options`) and makes
 * `reads` in order, each on the same store object unless `fresh` (then each
 * read gets a store of its own). Returns what happened to the open and to each read.
 */
async function readZip(
  path: string,
  reads: readonly Read[],
  options: Record<string, unknown> = {},
  fresh = false,
): Promise<{ open?: Outcome; reads: Outcome[]; peakRssMiB: number; elapsedMs: number }> {
  const r = await attack(
    `${CHILD_PRELUDE}
const reads = ${JSON.stringify(reads)};
const open = () => openZipFile(${JSON.stringify(path)}, ${JSON.stringify(options)});
let store;
try { store = await open(); } catch (e) { return { open: await outcome(() => Promise.reject(e)), reads: [] }; }
const results = [];
for (const r of reads) {
  if (${fresh}) { await store.close(); store = await open(); }
  results.push(await outcome(() => resolveStore(store).get(r.key, r.range, r.options)));
}
await store.close();
return { reads: results };`,
    LIMITS,
  );
  expect(r.killed, describeRun(r)).toBeUndefined();
  expect(r.value, describeRun(r)).toBeDefined();
  return { ...(r.value as { open?: Outcome; reads: Outcome[] }), ...r };
}

function expectTyped(o: Outcome | undefined, pattern: RegExp, what = ""): void {
  expect(o, what).toMatchObject({ error: "ZipFormatError", typed: true });
  expect((o as { message: string }).message, what).toMatch(pattern);
}

function expectValue(o: Outcome | undefined, value: Uint8Array, what = ""): void {
  expect(o, what).toEqual(seen(value));
}

/** The value `range` selects of `value` (as a store returns it). */
function slice(value: Uint8Array, range?: Range): Uint8Array {
  if (range === undefined) return value;
  if ("suffix" in range) return value.subarray(Math.max(0, value.length - range.suffix));
  return value.subarray(range.offset, range.offset + (range.length ?? value.length));
}

/** Whole, ranged (in the middle) and suffix reads of `key`. */
const threeReads = (key: string, size: number): Read[] => [
  { key },
  { key, range: { offset: Math.floor(size / 3), length: 16 } },
  { key, range: { suffix: 16 } },
];

const filled = (n: number, byte: number) => new Uint8Array(n).fill(byte);
const random = (n: number, seed: number) => {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
};

const KiB64 = 64 * 1024;

describe("zip attacks: an entry served from another entry's bytes", () => {
  it("two central entries sharing one local header: open fails (overlapping entries)", async () => {
    const z = craftZip([
      { name: "a", data: filled(KiB64, 0xaa) },
      { name: "b", data: filled(KiB64, 0xbb), central: { offsetOf: 0 } },
    ]);
    const r = await readZip(await save(z.bytes), threeReads("b", KiB64));
    expectTyped(r.open, /overlap/);
  });

  it("a central entry pointing at the local header of an entry it does not list: every read of it fails (the local header names another entry)", async () => {
    const z = craftZip([
      { name: "a", data: filled(KiB64, 0xaa), central: { omit: true } },
      { name: "b", data: filled(KiB64, 0xbb), central: { offsetOf: 0 } },
    ]);
    const r = await readZip(await save(z.bytes), threeReads("b", KiB64), {}, true);
    expect(r.open).toBeUndefined();
    for (const o of r.reads) expectTyped(o, /local header/);
  });

  it("a central entry pointing into the middle of another entry's data: open fails", async () => {
    const z = craftZip([
      { name: "a", data: filled(KiB64, 0xaa) },
      { name: "b", data: filled(KiB64, 0xbb) },
    ]);
    const inside = craftZip([
      { name: "a", data: filled(KiB64, 0xaa) },
      { name: "b", data: filled(KiB64, 0xbb), central: { offset: z.entries[0].dataAt + 100 } },
    ]);
    const r = await readZip(await save(inside.bytes), threeReads("b", KiB64));
    expectTyped(r.open, /overlap/);
  });

  it("a local extra length that moves the data into the next entry: every read fails", async () => {
    const z = craftZip([
      { name: "a", data: filled(KiB64, 0xaa), local: { extraLength: 1000 } },
      { name: "b", data: filled(KiB64, 0xbb) },
    ]);
    const r = await readZip(
      await save(z.bytes),
      [...threeReads("a", KiB64), ...threeReads("b", KiB64)],
      {},
      true,
    );
    for (const o of r.reads.slice(0, 3)) expectTyped(o, /overlap|next entry/);
    r.reads.slice(3).forEach((o, i) => {
      expectValue(o, slice(filled(KiB64, 0xbb), threeReads("b", KiB64)[i].range));
    });
  });
});

describe("zip attacks: local headers that disagree with the central directory", () => {
  const data = random(KiB64, 1);
  const cases: [string, CraftEntry["local"], RegExp][] = [
    ["another name of the same length", { name: "k-nama" }, /name/],
    ["a longer name", { name: "k-name-longer" }, /name/],
    ["another method", { method: 8 }, /method/],
    ["another compressed size", { compressedSize: KiB64 - 1 }, /compressed size/],
    ["another size", { size: KiB64 + 1 }, /size/],
    ["another CRC-32", { crc: 12345 }, /CRC/],
    ["the encrypted flag", { flags: 1 }, /flags/],
    ["the data descriptor flag", { flags: 8 }, /flags/],
  ];
  it.each(cases)("%s: whole, ranged and suffix reads fail", async (_, local, pattern) => {
    const z = craftZip([
      { name: "ok", data: filled(100, 7) },
      { name: "k-name", data, local },
    ]);
    const r = await readZip(
      await save(z.bytes),
      [{ key: "ok" }, ...threeReads("k-name", KiB64)],
      {},
      true,
    );
    expectValue(r.reads[0], filled(100, 7));
    for (const o of r.reads.slice(1)) expectTyped(o, pattern);
  });
});

describe("zip attacks: CRC-32 mismatches", () => {
  it("a small stored entry: whole, ranged and suffix reads fail, each on a fresh store", async () => {
    const z = craftZip([
      { name: "k", data: random(KiB64, 2), central: { crc: 1 }, local: { crc: 1 } },
    ]);
    const r = await readZip(await save(z.bytes), threeReads("k", KiB64), {}, true);
    for (const o of r.reads) expectTyped(o, /CRC-32 mismatch/);
  });

  it("a small deflated entry: whole, ranged and suffix reads fail", async () => {
    const z = craftZip([
      {
        name: "k",
        data: filled(KiB64, 3),
        deflate: true,
        central: { crc: 1 },
        local: { crc: 1 },
      },
    ]);
    const r = await readZip(await save(z.bytes), threeReads("k", KiB64), {}, true);
    for (const o of r.reads) expectTyped(o, /CRC-32 mismatch/);
  });

  it("a large stored entry (above verifyRangedReadsUpTo): ranged reads are served unverified, its own bytes; after a whole read found the mismatch, every read fails", async () => {
    const size = 4 << 20;
    const data = random(size, 4);
    const z = craftZip([
      { name: "x", data: filled(KiB64, 0xaa) },
      { name: "k", data, central: { crc: 1 }, local: { crc: 1 } },
    ]);
    const path = await save(z.bytes);
    const [whole, ranged, suffix] = threeReads("k", size);
    // Unverified, but the entry's own bytes (its local header was checked).
    const first = await readZip(path, [ranged, suffix], { verifyRangedReadsUpTo: 1 << 20 });
    expectValue(first.reads[0], slice(data, ranged.range));
    expectValue(first.reads[1], slice(data, suffix.range));
    // Once the store saw the mismatch, it remembers it.
    const after = await readZip(path, [whole, ranged, suffix], {
      verifyRangedReadsUpTo: 1 << 20,
    });
    for (const o of after.reads) expectTyped(o, /CRC-32 mismatch/);
    // With a higher threshold, a ranged read checks the whole entry first.
    const strict = await readZip(path, [ranged, suffix], { verifyRangedReadsUpTo: 8 << 20 }, true);
    for (const o of strict.reads) expectTyped(o, /CRC-32 mismatch/);
  });

  it("a large deflated entry: a suffix read inflates to the end and checks the CRC", async () => {
    const size = 4 << 20;
    const data = random(size, 5).map((b) => b & 3); // compressible, not trivially
    const z = craftZip([
      { name: "k", data, deflate: true, central: { crc: 1 }, local: { crc: 1 } },
    ]);
    const r = await readZip(await save(z.bytes), [{ key: "k", range: { suffix: 16 } }]);
    expectTyped(r.reads[0], /CRC-32 mismatch/);
  });
});

describe("zip attacks: declared sizes and deflate streams", () => {
  it("1 MiB of deflate declaring 1 GiB (inflating to 1 MiB): a 16-byte read is the entry's bytes or an error; whole and suffix reads fail; all in little memory", async () => {
    const data = random(1 << 20, 6);
    const body = deflate(data);
    const z = craftZip([
      {
        name: "k",
        data,
        body,
        deflate: true,
        central: { size: 1 << 30 },
        local: { size: 1 << 30 },
      },
    ]);
    const reads: Read[] = [
      { key: "k", range: { offset: 0, length: 16 } },
      { key: "k", range: { suffix: 16 } },
      { key: "k" },
      { key: "k", options: { maxBytes: 1 << 20 } },
    ];
    const r = await readZip(await save(z.bytes), reads, {}, true);
    if (!("error" in r.reads[0])) expectValue(r.reads[0], data.subarray(0, 16));
    expectTyped(r.reads[1], /inflates to|1073741824 declared/);
    expectTyped(r.reads[2], /inflates to|1073741824 declared/);
    expect(r.reads[3]).toMatchObject({
      typed: true,
      message: expect.stringMatching(/maxBytes|limit/),
    });
    expect(r.peakRssMiB).toBeLessThan(200);
    console.info(`1 MiB declaring 1 GiB, 4 reads: peak ${r.peakRssMiB} MiB, ${r.elapsedMs} ms`);
  });

  it("a 384 KiB deflate bomb inflating to 384 MiB: ranged reads inflate only up to the range end; a suffix read streams through it in bounded memory", async () => {
    const unit = new Uint8Array(1 << 20);
    const tail = Uint8Array.from({ length: 16 }, (_, i) => i + 1);
    const body = deflateRepeated(unit, 384, tail);
    const size = (384 << 20) + 16;
    const crc = crc32Repeated(unit, 384, tail);
    const z = craftZip([
      {
        name: "k",
        data: new Uint8Array(0),
        body,
        deflate: true,
        central: { size, crc },
        local: { size, crc },
      },
    ]);
    const path = await save(z.bytes);
    const r = await readZip(path, [
      { key: "k", range: { offset: 1000, length: 16 } },
      { key: "k", range: { offset: 5 << 20, length: 16 } },
      { key: "k", options: { maxBytes: 64 << 20 } },
    ]);
    expectValue(r.reads[0], new Uint8Array(16));
    expectValue(r.reads[1], new Uint8Array(16));
    expect(r.reads[2]).toMatchObject({ typed: true });
    expect(r.elapsedMs).toBeLessThan(5_000);
    const s = await readZip(path, [{ key: "k", range: { suffix: 16 } }]);
    expectValue(s.reads[0], tail);
    expect(s.peakRssMiB).toBeLessThan(200);
    console.info(
      `384 MiB bomb: 2 ranged reads + a maxBytes read ${r.elapsedMs} ms, peak ${r.peakRssMiB} MiB; ` +
        `suffix read ${s.elapsedMs} ms, peak ${s.peakRssMiB} MiB`,
    );
  });

  it("declared sizes of 2^32-1 (zip64) and 2^62 with little data, and a stored entry declaring 1 GiB, fail with ZipFormatError", async () => {
    const data = random(1 << 20, 7);
    const huge = craftZip([
      {
        name: "k",
        data,
        deflate: true,
        central: { size: 0xffffffff },
        local: { size: 0xffffffff },
      },
    ]);
    const r1 = await readZip(await save(huge.bytes), threeReads("k", 1 << 20), {}, true);
    for (const o of r1.reads) expectTyped(o, /claims|declared/);
    const z62 = craftZip([
      { name: "k", data: filled(100, 1), deflate: true, central: { size: 2 ** 62 } },
    ]);
    const r2 = await readZip(await save(z62.bytes), threeReads("k", 100));
    expectTyped(r2.open, /2\^53/);
    const stored = craftZip([
      { name: "k", data: filled(100, 1), central: { size: 1 << 30, compressedSize: 1 << 30 } },
    ]);
    const r3 = await readZip(await save(stored.bytes), threeReads("k", 100));
    expectTyped(r3.open, /overlaps the central directory|outside/);
  });

  it("a deflate stream longer than declared: whole and suffix reads fail; a ranged read fails unless the entry is too large to verify, then it is the entry's first bytes", async () => {
    const zeros = new Uint8Array(8 << 20);
    const body = deflate(zeros);
    const small = craftZip([
      {
        name: "k",
        data: zeros.subarray(0, 1000),
        body,
        deflate: true,
      },
    ]);
    const r = await readZip(await save(small.bytes), threeReads("k", 1000), {}, true);
    for (const o of r.reads) expectTyped(o, /more than the declared/);
    const large = craftZip([{ name: "k", data: zeros.subarray(0, 2 << 20), body, deflate: true }]);
    const r2 = await readZip(
      await save(large.bytes),
      threeReads("k", 2 << 20),
      { verifyRangedReadsUpTo: 1 << 20 },
      true,
    );
    expectTyped(r2.reads[0], /more than the declared/);
    expectValue(r2.reads[1], new Uint8Array(16));
    expectTyped(r2.reads[2], /more than the declared/);
  });
});

describe("zip attacks: data descriptors and the central directory", () => {
  it("lying data descriptors are not trusted: the central directory decides, and its CRC is checked", async () => {
    const data = random(KiB64, 8);
    const z = craftZip([
      { name: "crc", data, descriptor: { crc: 99 } },
      { name: "sizes", data, deflate: true, descriptor: { compressedSize: 5, size: 7 } },
      { name: "central-lies", data, descriptor: {}, central: { crc: 1 } },
      { name: "local-sizes", data, descriptor: {}, local: { compressedSize: 5, size: 5 } },
    ]);
    const reads = [
      ...threeReads("crc", KiB64),
      ...threeReads("sizes", KiB64),
      ...threeReads("central-lies", KiB64),
      ...threeReads("local-sizes", KiB64),
    ];
    const r = await readZip(await save(z.bytes), reads, {}, true);
    for (let i = 0; i < 6; i++) expectValue(r.reads[i], slice(data, reads[i].range));
    for (const o of r.reads.slice(6, 9)) expectTyped(o, /CRC-32 mismatch/);
    for (const o of r.reads.slice(9)) expectTyped(o, /size/);
  });

  it("an entry whose data runs into the central directory (central sizes, or a local extra length): open or every read fails", async () => {
    const data = filled(KiB64, 5);
    const sizes = craftZip([
      { name: "k", data, central: { size: KiB64 + 200, compressedSize: KiB64 + 200 } },
    ]);
    const r1 = await readZip(await save(sizes.bytes), threeReads("k", KiB64));
    expectTyped(r1.open, /overlaps the central directory/);
    const extra = craftZip([{ name: "k", data, local: { extraLength: 300 } }]);
    const r2 = await readZip(await save(extra.bytes), threeReads("k", KiB64), {}, true);
    for (const o of r2.reads) expectTyped(o, /overlaps the central directory/);
  });
});

// ---------------------------------------------------------------- through core and the CLI

/** A v3 array `a` of float32 [64] in chunks of 32, written to memory; returns its keys and values. */
async function arrayEntries(sharded: boolean): Promise<Map<string, Uint8Array>> {
  const store = new MemoryStore();
  const a = await createArray(store, "a", {
    shape: [64],
    dataType: "float32",
    chunkShape: [32],
    fillValue: 0,
    codecs: sharded
      ? [
          {
            name: "sharding_indexed",
            configuration: {
              chunk_shape: [8],
              codecs: [{ name: "bytes", configuration: { endian: "little" } }],
              index_codecs: [
                { name: "bytes", configuration: { endian: "little" } },
                { name: "crc32c" },
              ],
            },
          },
        ]
      : [{ name: "bytes", configuration: { endian: "little" } }],
  } as never);
  await a.set(
    null,
    Float32Array.from({ length: 64 }, (_, i) => i + 1),
  );
  const out = new Map<string, Uint8Array>();
  for await (const key of store.list()) out.set(key, (await store.get(key))!);
  return out;
}

const CORE_PRELUDE = `${CHILD_PRELUDE}
const { openArray, slice } = await import("@zarr/core");
const { ZipStore } = await import("@zarr/store-zip");
const { fileSource } = await import("@zarr/store-zip/node");
const values = async (fn) => {
  try { return { data: Array.from((await fn()).data) }; }
  catch (e) { return { error: e?.name, typed: e instanceof ZarrError, message: String(e?.message) }; }
};
`;

describe("zip attacks through core (openArray over ZipStore.open)", () => {
  it("a sharded array in stored entries whose second shard's entry points at the first shard's local header: reads of it fail, never the first shard's values", async () => {
    const entries = await arrayEntries(true);
    const list: CraftEntry[] = [...entries].map(([name, data]) => ({ name, data }));
    const first = list.findIndex((e) => e.name === "a/c/0");
    const second = list.findIndex((e) => e.name === "a/c/1");
    list[first].central = { omit: true };
    list[second].central = { offsetOf: first };
    const path = await save(craftZip(list).bytes);
    const r = await attack(
      `${CORE_PRELUDE}
const store = await ZipStore.open(fileSource(${JSON.stringify(path)}));
const a = await openArray(store, "a");
return [await values(() => a.get(slice(32, 36))), await values(() => a.get(slice(60, 64))), await values(() => a.get())];`,
      LIMITS,
    );
    expect(r.value, describeRun(r)).toBeDefined();
    for (const o of r.value as Outcome[]) {
      expectTyped(o, /local header/);
    }
  });

  it("a sharded array whose shard has a flipped byte (stored entry, CRC-32 from before): a 4-element read fails", async () => {
    const entries = await arrayEntries(true);
    const list: CraftEntry[] = [...entries].map(([name, data]) => ({ name, data }));
    const k = list.findIndex((e) => e.name === "a/c/1");
    const bad = list[k].data.slice();
    bad[4] ^= 0x40; // inside inner chunk 0 of shard 1; the shard index stays valid
    const crc = crc32(list[k].data);
    list[k] = { ...list[k], data: bad, central: { crc }, local: { crc } };
    const path = await save(craftZip(list).bytes);
    const r = await attack(
      `${CORE_PRELUDE}
const store = await ZipStore.open(fileSource(${JSON.stringify(path)}));
const a = await openArray(store, "a");
return [await values(() => a.get(slice(32, 36))), await values(() => a.get(slice(0, 4)))];`,
      LIMITS,
    );
    const [bad1, good] = r.value as Outcome[];
    expectTyped(bad1, /CRC-32 mismatch/);
    expect(good).toEqual({ data: [1, 2, 3, 4] });
  });

  it("a chunk entry of 1 MiB deflate declaring 1 GiB: reading 4 elements gives the entry's first bytes or fails, reading the chunk whole fails, in little memory", async () => {
    const entries = await arrayEntries(false);
    const list: CraftEntry[] = [...entries].map(([name, data]) => ({ name, data }));
    const k = list.findIndex((e) => e.name === "a/c/0");
    const filler = random(1 << 20, 9);
    list[k] = {
      name: "a/c/0",
      data: filler,
      deflate: true,
      central: { size: 1 << 30 },
      local: { size: 1 << 30 },
    };
    const path = await save(craftZip(list).bytes);
    const r = await attack(
      `${CORE_PRELUDE}
const store = await ZipStore.open(fileSource(${JSON.stringify(path)}));
const a = await openArray(store, "a");
return [
  await values(() => a.get(slice(0, 4))),
  await values(() => a.getChunk([0])),
  await values(() => a.get(slice(32, 36))),
];`,
      LIMITS,
    );
    expect(r.killed, describeRun(r)).toBeUndefined();
    const [part, chunk, good] = r.value as ({ data: number[] } | Outcome)[];
    // Core reads 4 elements of an uncompressed chunk as a 16-byte range, and checks the
    // stored size beside it: 1 GiB is not the chunk's 4096 bytes, a CodecError.
    expect(part).toMatchObject({ error: "CodecError", typed: true });
    // A whole read asks the store for at most what the codecs can produce (maxBytes):
    // refused before anything is read or inflated.
    expect(chunk).toMatchObject({ error: "CodecError", typed: true });
    expect((chunk as { message: string }).message).toMatch(/1073741824/);
    expect(good).toEqual({ data: [33, 34, 35, 36] });
    expect(r.peakRssMiB).toBeLessThan(200);
  });

  it("a deflated 384 MiB shard (384 KiB of deflate): reading 4 elements streams to its index and back, in bounded memory", async () => {
    const inner = 1 << 20;
    const count = 384;
    const index = new Uint8Array(count * 16);
    const iv = new DataView(index.buffer);
    for (let i = 0; i < count; i++) {
      iv.setUint32(i * 16, (i * inner) % 2 ** 32, true);
      iv.setUint32(i * 16 + 4, Math.floor((i * inner) / 2 ** 32), true);
      iv.setUint32(i * 16 + 8, inner, true);
    }
    const unit = new Uint8Array(inner).fill(1);
    const size = inner * count + index.length;
    const crc = crc32Repeated(unit, count, index);
    const meta = {
      zarr_format: 3,
      node_type: "array",
      shape: [inner * count],
      data_type: "uint8",
      chunk_grid: { name: "regular", configuration: { chunk_shape: [inner * count] } },
      chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
      fill_value: 0,
      codecs: [
        {
          name: "sharding_indexed",
          configuration: {
            chunk_shape: [inner],
            codecs: [{ name: "bytes" }],
            index_codecs: [{ name: "bytes", configuration: { endian: "little" } }],
            index_location: "end",
          },
        },
      ],
    };
    const path = await save(
      craftZip([
        { name: "a/zarr.json", data: new TextEncoder().encode(JSON.stringify(meta)) },
        {
          name: "a/c/0",
          data: new Uint8Array(0),
          body: deflateRepeated(unit, count, index),
          deflate: true,
          central: { size, crc },
          local: { size, crc },
        },
      ]).bytes,
    );
    const r = await attack(
      `${CORE_PRELUDE}
const store = await ZipStore.open(fileSource(${JSON.stringify(path)}));
const a = await openArray(store, "a");
return await values(() => a.get([[0, 1, 3 << 20, (3 << 20) + 1]]));`,
      LIMITS,
    );
    expect(r.killed, describeRun(r)).toBeUndefined();
    expect(r.value, describeRun(r)).toEqual({ data: [1, 1, 1, 1] });
    expect(r.peakRssMiB).toBeLessThan(200);
    console.info(`384 MiB deflated shard, 4 elements: ${r.elapsedMs} ms, peak ${r.peakRssMiB} MiB`);
  });
});

describe("zip attacks through the CLI", () => {
  it.skipIf(process.platform !== "linux")(
    "a FIFO, a link to /dev/zero and a directory as the archive: zarr info and tree exit 2 at once (never block)",
    async () => {
      const fifo = join(dir, "fifo.zip");
      execFileSync("mkfifo", [fifo]);
      const zero = join(dir, "zero.zip");
      await symlink("/dev/zero", zero);
      const folder = join(dir, "folder.zip");
      await mkdir(folder);
      for (const path of [fifo, `zip://${fifo}`, zero, folder]) {
        for (const command of ["info", "tree"]) {
          const r = await runZarr([command, path], { maxRssMiB: 300, timeoutMs: 15_000 });
          expect(r.killed, describeRun(r)).toBeUndefined();
          expect(r.code, describeRun(r)).toBe(2);
          expect(r.stderr, describeRun(r)).toMatch(/StoreError: .*not a regular file/);
        }
      }
    },
  );

  it("zarr get and zarr verify on a sharded array whose shard entry points at another shard's local header", async () => {
    const entries = await arrayEntries(true);
    const list: CraftEntry[] = [...entries].map(([name, data]) => ({ name, data }));
    const first = list.findIndex((e) => e.name === "a/c/0");
    const second = list.findIndex((e) => e.name === "a/c/1");
    list[first].central = { omit: true };
    list[second].central = { offsetOf: first };
    const path = await save(craftZip(list).bytes);
    const get = await runZarr(["get", path, "a", "--select", "32:36", "--json"], LIMITS);
    expect(get.killed, describeRun(get)).toBeUndefined();
    expect(get.code, describeRun(get)).toBe(2);
    expect(get.stderr).toMatch(/ZipFormatError: .*local header/);
    expect(get.stdout).not.toMatch(/"data"/);
    const verify = await runZarr(["verify", path, "--json"], LIMITS);
    expect(verify.code, describeRun(verify)).toBe(2);
    const report = JSON.parse(verify.stdout);
    expect(report.corrupt).toEqual([
      { key: "a/c/1", reason: expect.stringMatching(/local header/) },
    ]);
  });

  it("zarr get of a ranged read in a small stored shard with a CRC-32 mismatch fails; zarr verify reports it", async () => {
    const entries = await arrayEntries(true);
    const list: CraftEntry[] = [...entries].map(([name, data]) => ({ name, data }));
    const k = list.findIndex((e) => e.name === "a/c/0");
    const bad = list[k].data.slice();
    bad[8] ^= 1;
    const crc = crc32(list[k].data);
    list[k] = { ...list[k], data: bad, central: { crc }, local: { crc } };
    const path = await save(craftZip(list).bytes);
    const get = await runZarr(["get", path, "a", "--select", "0:4", "--json"], LIMITS);
    expect(get.code, describeRun(get)).toBe(2);
    expect(get.stderr).toMatch(/ZipFormatError: .*CRC-32 mismatch/);
    const verify = await runZarr(["verify", path, "--json"], LIMITS);
    expect(verify.code, describeRun(verify)).toBe(2);
    expect(JSON.parse(verify.stdout).corrupt).toEqual([
      { key: "a/c/0", reason: expect.stringMatching(/CRC-32 mismatch/) },
    ]);
  });
});

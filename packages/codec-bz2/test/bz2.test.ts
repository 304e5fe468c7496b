// bz2 (numcodecs BZ2: Python's bz2 module): round trips through our encoder and
// decoder, the numcodecs configuration, and typed errors for malformed input
// (bzip2 format: block and stream CRCs).
import "@zarr/v2-compat/register";
import "../src/register.js";
import { CodecError, type JsonObject, MemoryStore, openArray } from "@zarr/core";
import { convertV2ToV3, createArrayV2 } from "@zarr/v2-compat";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bzip2Decompress } from "../src/bzip2-decode.js";
import { bzip2Compress } from "../src/bzip2-encode.js";

const LIMIT = 1 << 24;

/** Test inputs: empty, tiny, runs past bzip2's 259-byte RLE cap, periodic (BWT ties), text, noise. */
function samples(): Record<string, Uint8Array> {
  let seed = 7;
  const rand = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed >>> 24;
  };
  const text = new TextEncoder().encode(
    "the quick brown fox jumps over the lazy dog; ".repeat(400),
  );
  return {
    empty: new Uint8Array(0),
    one: Uint8Array.of(42),
    runs: Uint8Array.from({ length: 5000 }, (_, i) =>
      i < 1000 ? 0 : i < 1263 ? 7 : i % 300 < 4 ? 9 : 1,
    ),
    periodic: Uint8Array.from({ length: 4096 }, (_, i) => (i % 2 ? 0x61 : 0x62)),
    allSame: new Uint8Array(70000).fill(0xaa),
    text,
    noise: Uint8Array.from({ length: 20000 }, rand),
  };
}

describe("bz2 round trips", () => {
  for (const [name, data] of Object.entries(samples())) {
    for (const level of [1, 9]) {
      it(`${name}, level ${level}`, () => {
        const enc = bzip2Compress(data, level);
        expectBytes(bzip2Decompress(enc, LIMIT, "t"), data);
        expectBytes(bzip2Decompress(enc, data.length, "t", data.length), data);
      });
    }
  }
  it("splits blocks at level × 100 kB (several blocks at level 1)", () => {
    const data = Uint8Array.from({ length: 250_000 }, (_, i) => (i * 7919) % 251);
    const enc = bzip2Compress(data, 1);
    expect(countBlocks(enc)).toBe(3);
    expectBytes(bzip2Decompress(enc, LIMIT, "t"), data);
  });
  it("reads concatenated streams as one (as Python's bz2.decompress)", () => {
    const a = bzip2Compress(Uint8Array.of(1, 2), 1);
    const b = bzip2Compress(Uint8Array.of(3), 9);
    const both = new Uint8Array(a.length + b.length);
    both.set(a);
    both.set(b, a.length);
    expect(bzip2Decompress(both, LIMIT, "t")).toEqual(Uint8Array.of(1, 2, 3));
  });
  it("random data round trips (fast-check)", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 3000 }),
        fc.integer({ min: 1, max: 9 }),
        (d, level) => {
          expectBytes(bzip2Decompress(bzip2Compress(d, level), LIMIT, "t"), d);
        },
      ),
      { seed: 42, numRuns: 300 },
    );
  });
});

/** Byte equality without vitest's per-element diffing (fast for large arrays). */
function expectBytes(got: Uint8Array, want: Uint8Array): void {
  expect(got.length).toBe(want.length);
  expect(Buffer.compare(got, want)).toBe(0);
}

/** Expects `f` to throw a CodecError whose message names path "t" and matches `re`. */
function rejects(f: () => unknown, re: RegExp): void {
  let error: unknown;
  try {
    f();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(CodecError);
  expect((error as Error).message).toMatch(/^t: bz2: /);
  expect((error as Error).message).toMatch(re);
}

describe("malformed input is a CodecError naming the path and reason", () => {
  const text = samples().text;
  it("bz2: header, truncation, CRCs, trailing bytes, size limit", () => {
    const enc = bzip2Compress(text, 9);
    rejects(() => bzip2Decompress(Uint8Array.of(1, 2, 3, 4), LIMIT, "t"), /BZh stream header/);
    rejects(() => bzip2Decompress(enc.subarray(0, enc.length - 5), LIMIT, "t"), /unexpected end/);
    const badBlockCrc = enc.slice();
    badBlockCrc[11] ^= 1;
    rejects(() => bzip2Decompress(badBlockCrc, LIMIT, "t"), /block CRC/);
    const badStreamCrc = enc.slice();
    badStreamCrc[enc.length - 2] ^= 0x10;
    rejects(() => bzip2Decompress(badStreamCrc, LIMIT, "t"), /stream CRC|signature/);
    rejects(
      () => bzip2Decompress(Uint8Array.of(...enc, 0), LIMIT, "t"),
      /stream header|unexpected end/,
    );
    rejects(
      () => bzip2Decompress(enc, text.length - 1, "t"),
      /exceeds the expected 17999 bytes|longer than/,
    );
  });
});

describe("codec configuration (numcodecs BZ2)", () => {
  it("arrays round trip through the registered codecs, and toJSON fills numcodecs' defaults", async () => {
    const store = new MemoryStore();
    const cases: [string, JsonObject][] = [["b", { id: "bz2", level: 5 }]];
    for (const [name, compressor] of cases) {
      const a = await createArrayV2(store, name, {
        shape: [1000],
        chunks: [300],
        dtype: "<i4",
        compressor,
      });
      await a.set(null, {
        data: Int32Array.from({ length: 1000 }, (_, i) => i * i),
        shape: [1000],
      });
      const b = await openArray(store, name);
      expect(Array.from((await b.get()).data as Int32Array)).toEqual(
        Array.from({ length: 1000 }, (_, i) => i * i),
      );
    }
  });
  it("convertV2ToV3 keeps the chunks: numcodecs.bz2 in zarr.json", async () => {
    const store = new MemoryStore();
    const values = Int32Array.from({ length: 100 }, (_, i) => i - 50);
    const cases: [string, JsonObject][] = [["b", { id: "bz2", level: 9 }]];
    for (const [name, compressor] of cases) {
      const a = await createArrayV2(store, name, {
        shape: [100],
        chunks: [40],
        dtype: "<i4",
        compressor,
      });
      await a.set(null, { data: values, shape: [100] });
      const result = await convertV2ToV3(store, name);
      expect(result.rewritten).toBe(false);
      const doc = new TextDecoder().decode(await store.get(`${name}/zarr.json`));
      expect(doc).toContain(`"numcodecs.${compressor.id}"`);
      await store.erase(`${name}/.zarray`);
      const b = await openArray(store, name);
      expect(b.zarrFormat).toBe(3);
      expect(Array.from((await b.get()).data as Int32Array)).toEqual(Array.from(values));
    }
  });
  it("rejects bad configurations naming the field", async () => {
    const store = new MemoryStore();
    const make = (compressor: Record<string, unknown>) =>
      createArrayV2(store, "x", { shape: [4], dtype: "<i4", compressor: compressor as never });
    await expect(make({ id: "bz2", level: 0 })).rejects.toThrow(
      /level: must be an integer in 1\.\.9/,
    );
    // Keys numcodecs 0.11 does not know are ignored on reading and left out on writing.
    const lenient = await make({ id: "bz2", level: 3, blocksize: 1 });
    expect(JSON.parse(new TextDecoder().decode(await store.get("x/.zarray"))).compressor).toEqual({
      id: "bz2",
      level: 3,
    });
    expect(lenient.shape).toEqual([4]);
  });
});

/** Block signatures (0x314159265359) at any bit offset. */
function countBlocks(b: Uint8Array): number {
  let hi = 0;
  let lo = 0;
  let blocks = 0;
  for (let i = 0; i < b.length * 8; i++) {
    hi = ((hi << 1) | (lo >>> 23)) & 0xffffff;
    lo = ((lo << 1) | ((b[i >> 3] >> (7 - (i & 7))) & 1)) & 0xffffff;
    if (hi === 0x314159 && lo === 0x265359) blocks++;
  }
  return blocks;
}

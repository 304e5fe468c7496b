// lzma (numcodecs LZMA: Python's lzma module): round trips through our encoders
// and decoders, the numcodecs configuration, and typed errors for malformed input
// (xz file format 1.0.4: sections 2-4; .lzma: the LZMA SDK header; LZMA2 chunk
// framing).
import "@zarr/v2-compat/register";
import "../src/register.js";
import { CodecError, type JsonObject, MemoryStore, openArray, UnsupportedError } from "@zarr/core";
import { convertV2ToV3, createArrayV2 } from "@zarr/v2-compat";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lzmaCompress } from "../src/lzma-encode.js";
import { lzmaDecompress, type RawChain } from "../src/lzma-formats.js";
import { CHECK_CRC32, CHECK_CRC64, CHECK_NONE, CHECK_SHA256 } from "../src/xz.js";

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

type Lzma = { format: number; check: number; preset: number; chain?: RawChain };
const LZMA_VARIANTS: Record<string, Lzma> = {
  "xz crc64": { format: 1, check: CHECK_CRC64, preset: 6 },
  "xz crc32": { format: 1, check: CHECK_CRC32, preset: 0 },
  "xz none": { format: 1, check: CHECK_NONE, preset: 9 },
  "xz sha256": { format: 1, check: CHECK_SHA256, preset: 3 },
  "xz delta": {
    format: 1,
    check: CHECK_CRC64,
    preset: 6,
    chain: { deltas: [4], last: { id: "lzma2", dictSize: 1 << 20 } },
  },
  alone: { format: 2, check: -1, preset: 6 },
  "raw lzma2": {
    format: 3,
    check: -1,
    preset: 1,
    chain: { deltas: [], last: { id: "lzma2", dictSize: 1 << 16 } },
  },
  "raw lzma1": {
    format: 3,
    check: -1,
    preset: 6,
    chain: {
      deltas: [2],
      last: { id: "lzma1", props: { lc: 1, lp: 2, pb: 3 }, dictSize: 1 << 16 },
    },
  },
};

const lzmaEnc = (d: Uint8Array, v: Lzma) => lzmaCompress(d, { ...v, chain: v.chain }, "t");
const lzmaDec = (b: Uint8Array, v: Lzma, limit = LIMIT, exact?: number) =>
  lzmaDecompress(b, v.format, v.chain, limit, "t", exact);

describe("lzma round trips", () => {
  for (const [vname, v] of Object.entries(LZMA_VARIANTS)) {
    for (const [name, data] of Object.entries(samples())) {
      it(`${vname}: ${name}`, () => {
        const enc = lzmaEnc(data, v);
        expectBytes(lzmaDec(enc, v), data);
        expectBytes(lzmaDec(enc, v, data.length, data.length), data);
        if (name === "text" || name === "allSame")
          expect(enc.length).toBeLessThan(data.length / 10);
      });
    }
  }
  it("format 0 (FORMAT_AUTO) reads xz and .lzma", () => {
    const d = samples().text;
    expect(lzmaDecompress(lzmaEnc(d, LZMA_VARIANTS["xz crc64"]), 0, undefined, LIMIT, "t")).toEqual(
      d,
    );
    expectBytes(lzmaDecompress(lzmaEnc(d, LZMA_VARIANTS.alone), 0, undefined, LIMIT, "t"), d);
  });
  it("random data round trips (fast-check)", () => {
    const names = Object.keys(LZMA_VARIANTS);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), fc.constantFrom(...names), (d, n) => {
        expectBytes(lzmaDec(lzmaEnc(d, LZMA_VARIANTS[n]), LZMA_VARIANTS[n]), d);
      }),
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
  expect((error as Error).message).toMatch(/^t: lzma: /);
  expect((error as Error).message).toMatch(re);
}

describe("malformed input is a CodecError naming the path and reason", () => {
  const text = samples().text;
  it("xz: magic, header/index/footer CRCs, check mismatch, size limit", () => {
    const v = LZMA_VARIANTS["xz crc64"];
    const enc = lzmaEnc(text, v);
    rejects(() => lzmaDec(enc.subarray(1), v), /stream header/);
    const flags = enc.slice();
    flags[7] = 1;
    rejects(() => lzmaDec(flags, v), /stream header CRC/);
    const check = enc.slice();
    check[enc.length - 12 - 12 - 1] ^= 1; // last byte of the block's CRC64 (index is 12 bytes here)
    rejects(() => lzmaDec(check, v), /check mismatch|index/);
    const footer = enc.slice();
    footer[enc.length - 3] ^= 1;
    rejects(() => lzmaDec(footer, v), /footer/);
    rejects(() => lzmaDec(enc.subarray(0, enc.length - 1), v), /unexpected end|footer/);
    rejects(() => lzmaDec(enc, v, 1000), /exceeds the expected 1000 bytes/);
    rejects(() => lzmaDec(Uint8Array.of(...enc, 1, 0, 0, 0), v), /stream padding|stream header/);
  });
  it("xz: an unknown filter or check type is an UnsupportedError", () => {
    const v = LZMA_VARIANTS["xz crc64"];
    const enc = lzmaEnc(Uint8Array.of(1, 2, 3), v);
    const check2 = enc.slice();
    // Stream flags with check type 2 (reserved) and a CRC32 to match.
    check2[7] = 2;
    const crc = crc32(check2.subarray(6, 8));
    new DataView(check2.buffer).setUint32(8, crc, true);
    expect(() => lzmaDec(check2, v)).toThrow(UnsupportedError);
  });
  it(".lzma and raw: properties, truncation, end marker, trailing bytes, size limit", () => {
    const v = LZMA_VARIANTS.alone;
    const enc = lzmaEnc(text, v);
    const props = enc.slice();
    props[0] = 225;
    rejects(() => lzmaDec(props, v), /properties byte 225/);
    props[0] = 4 * 9 + 1; // lp 4, lc 1
    rejects(() => lzmaDec(props, v), /lc \+ lp is 5 \(at most 4\)/);
    rejects(() => lzmaDec(enc.subarray(0, 12), v), /truncated .lzma header/);
    rejects(() => lzmaDec(enc.subarray(0, enc.length - 3), v), /unexpected end/);
    rejects(() => lzmaDec(Uint8Array.of(...enc, 0), v), /after the LZMA data/);
    rejects(() => lzmaDec(enc, v, 100), /exceeds the expected 100 bytes/);
    const sized = enc.slice();
    new DataView(sized.buffer).setUint32(5, 1 << 30, true);
    new DataView(sized.buffer).setUint32(9, 0, true);
    rejects(() => lzmaDec(sized, v, 1000), /claims 1073741824 decoded bytes/);
    const raw = LZMA_VARIANTS["raw lzma2"];
    rejects(() => lzmaDec(Uint8Array.of(0x80, 0, 0, 0, 0), raw), /reset the dictionary/);
    rejects(() => lzmaDec(Uint8Array.of(1, 0, 5, 1, 2), raw), /truncated uncompressed/);
    rejects(() => lzmaDec(Uint8Array.of(1, 0, 0, 7), raw), /without its end byte/);
  });
});

describe("codec configuration (numcodecs LZMA)", () => {
  it("arrays round trip through the registered codecs, and toJSON fills numcodecs' defaults", async () => {
    const store = new MemoryStore();
    const cases: [string, JsonObject][] = [
      ["l", { id: "lzma", format: 1, check: -1, preset: null, filters: null }],
      ["r", { id: "lzma", format: 3, filters: [{ id: 2 ** 62, preset: 1 }] }],
    ];
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
    const zarray = new TextDecoder().decode(await store.get("r/.zarray"));
    expect(zarray).toContain('"id": 4611686018427387905');
  });
  it("convertV2ToV3 keeps the chunks: numcodecs.lzma in zarr.json", async () => {
    const store = new MemoryStore();
    const values = Int32Array.from({ length: 100 }, (_, i) => i - 50);
    const cases: [string, JsonObject][] = [
      ["l", { id: "lzma", format: 3, check: -1, preset: null, filters: [{ id: 2 ** 62, lc: 0 }] }],
    ];
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
    // Keys numcodecs 0.11 does not know are ignored on reading and left out on writing.
    const lenient = await make({ id: "lzma", preset: 1, memlimit: 1 });
    expect(JSON.parse(new TextDecoder().decode(await store.get("x/.zarray"))).compressor).toEqual({
      id: "lzma",
      preset: 1,
    });
    expect(lenient.shape).toEqual([4]);
    await expect(make({ id: "lzma", check: 2 })).rejects.toThrow(/check: must be one of/);
    await expect(make({ id: "lzma", format: 3 })).rejects.toThrow(
      /filters: FORMAT_RAW \(3\) needs a filter chain/,
    );
    await expect(make({ id: "lzma", format: 3, filters: [{ id: 4 }] })).rejects.toThrow(
      UnsupportedError,
    );
    await expect(make({ id: "lzma", format: 3, filters: [{ id: 33 }, { id: 3 }] })).rejects.toThrow(
      /filters\[1\]: follows/,
    );
    await expect(
      make({ id: "lzma", format: 3, filters: [{ id: 2 ** 62, lc: 4, lp: 1 }] }),
    ).rejects.toThrow(/filters\[0\]: lc \+ lp is 5/);
    await expect(make({ id: "lzma", preset: 12 })).rejects.toThrow(/preset: must be 0\.\.9/);
  });
});

// Local CRC-32 for building test streams.
function crc32(b: Uint8Array): number {
  let c = ~0;
  for (const x of b) {
    c ^= x;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return ~c >>> 0;
}

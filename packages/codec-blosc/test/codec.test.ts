import {
  bitshuffle,
  bitunshuffle,
  bloscCompressSync,
  bloscDecompressSync,
  computeBlocksize,
  parseHeader,
  shuffle,
  unshuffle,
} from "@zarr/codec-blosc";
import { CodecError, MetadataError, NotRegisteredError } from "@zarr/core";
import { codecRegistry } from "@zarr/core/codec";
import { describe, expect, it } from "vitest";
// Internal helper without a public entry point, tested directly.
import { copyMatch, viewOf } from "../src/bytes.js";
import { makeCodec, structured } from "./helpers.js";

describe("configuration (v3 blosc codec spec; numcodecs Blosc for v2)", () => {
  it("v3: records every field, typesize filled from the data type", () => {
    const codec = makeCodec({ cname: "lz4", clevel: 5, shuffle: "shuffle", blocksize: 0 }, 8);
    expect(codec.toJSON()).toEqual({
      name: "blosc",
      configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 8, blocksize: 0 },
    });
  });

  it("v3: an explicit typesize wins over the data type", () => {
    const codec = makeCodec({ cname: "zstd", clevel: 1, shuffle: "bitshuffle", typesize: 2 }, 8);
    expect(codec.config.typesize).toBe(2);
  });

  it("v3: missing fields take zarr-python 3 defaults (zstd, 5, automatic shuffle)", () => {
    expect(makeCodec({}, 1).config).toEqual({
      cname: "zstd",
      clevel: 5,
      shuffle: "bitshuffle",
      typesize: 1,
      blocksize: 0,
    });
    expect(makeCodec({}, 4).config.shuffle).toBe("shuffle");
  });

  it("v2: numcodecs integer shuffle (-1 auto, 0, 1, 2), defaults and toJSON without typesize", () => {
    const auto1 = makeCodec({ id: "blosc", cname: "lz4", clevel: 5, shuffle: -1 }, 1, "blosc", 2);
    expect(auto1.config.shuffle).toBe("bitshuffle");
    const auto4 = makeCodec({ shuffle: -1 }, 4, "blosc", 2);
    expect(auto4.config.shuffle).toBe("shuffle");
    const def = makeCodec({}, 4, "blosc", 2);
    expect(def.toJSON()).toEqual({
      name: "blosc",
      configuration: { cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 },
    });
    expect(makeCodec({ shuffle: 2 }, 4, "blosc", 2).config.shuffle).toBe("bitshuffle");
  });

  it("numcodecs.blosc (zarr-python 3): integer shuffle and typesize in toJSON", () => {
    const codec = makeCodec({ cname: "zlib", clevel: 3, shuffle: 0 }, 2, "numcodecs.blosc");
    expect(codec.toJSON()).toEqual({
      name: "numcodecs.blosc",
      configuration: { cname: "zlib", clevel: 3, shuffle: 0, typesize: 2, blocksize: 0 },
    });
  });

  it("variable-size data types get typesize 1", () => {
    expect(makeCodec({ shuffle: "noshuffle" }, null).config.typesize).toBe(1);
  });

  it.each([
    [{ cname: "lzma" }, "cname"],
    [{ clevel: 10 }, "clevel"],
    [{ clevel: 1.5 }, "clevel"],
    [{ shuffle: "bytes" }, "shuffle"],
    [{ shuffle: 3 }, "shuffle"],
    [{ typesize: 0 }, "typesize"],
    [{ blocksize: -1 }, "blocksize"],
    [{ level: 5 }, "level"],
  ])("rejects %j with a MetadataError naming the field", (config, field) => {
    let err: unknown;
    try {
      makeCodec(config, 4);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MetadataError);
    expect((err as MetadataError).message).toContain(`"${field}"`);
    expect((err as MetadataError).path).toBe("test/c/0");
  });
});

describe("encode/decode through the codec", () => {
  it("round-trips every built-in cname and shuffle", async () => {
    const data = structured(70_001, 3);
    for (const cname of ["blosclz", "lz4", "lz4hc", "snappy"]) {
      for (const shuffle of ["noshuffle", "shuffle", "bitshuffle"]) {
        const codec = makeCodec({ cname, clevel: 7, shuffle }, 4);
        const enc = await codec.encode(data);
        // Never larger than a memcpyed chunk; blosclz may decline noisy streams.
        expect(enc.length).toBeLessThanOrEqual(data.length + 16);
        if (cname !== "blosclz") expect(enc.length).toBeLessThan(data.length);
        expect(Buffer.compare(await codec.decode(enc, data.length), data)).toBe(0);
      }
    }
  });

  it("typesize over 255 is recorded as 1 (c-blosc)", () => {
    const data = structured(4096, 5);
    const c = bloscCompressSync(data, {
      cname: "lz4",
      clevel: 5,
      shuffle: 1,
      typesize: 300,
      blocksize: 0,
    });
    expect(parseHeader(c).typesize).toBe(1);
    expect(Buffer.compare(bloscDecompressSync(c), data)).toBe(0);
  });

  it("zlib/zstd without their packages fail with NotRegisteredError naming the package", async () => {
    codecRegistry.unregister("zlib");
    const codec = makeCodec({ cname: "zlib", clevel: 5, shuffle: "shuffle" }, 4);
    await expect(Promise.resolve().then(() => codec.encode(structured(4096)))).rejects.toThrow(
      NotRegisteredError,
    );
    await expect(Promise.resolve().then(() => codec.encode(structured(4096)))).rejects.toThrow(
      /@zarr\/codec-gzip/,
    );
    // Memcpyed chunks need no engine.
    const stored = await makeCodec({ cname: "zlib", clevel: 0 }, 4).encode(structured(4096));
    expect(stored.length).toBe(4096 + 16);
    expect(() =>
      bloscCompressSync(structured(4096), {
        cname: "zstd",
        clevel: 5,
        shuffle: 0,
        typesize: 1,
        blocksize: 0,
      }),
    ).toThrow(CodecError);
  });

  it("registers blosc and numcodecs.blosc", async () => {
    await import("@zarr/codec-blosc/register");
    expect(codecRegistry.has("blosc")).toBe(true);
    expect(codecRegistry.has("numcodecs.blosc")).toBe(true);
  });
});

describe("malformed chunks are CodecErrors", () => {
  const data = structured(10_000, 9);
  const good = bloscCompressSync(data, {
    cname: "lz4",
    clevel: 5,
    shuffle: 1,
    typesize: 4,
    blocksize: 0,
  });
  const codec = makeCodec({ cname: "lz4", shuffle: "shuffle" }, 4);

  const expectCodecError = (bytes: Uint8Array, size?: number, match?: RegExp) => {
    let err: unknown;
    try {
      codec.decode(bytes, size);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CodecError);
    if (match) expect((err as Error).message).toMatch(match);
    expect((err as CodecError).path).toBe("test/c/0");
  };

  it("header nbytes above the expected decoded size (no allocation beyond the chunk)", () => {
    expectCodecError(good, data.length - 1, /exceeds the expected decoded size/);
  });

  it("short chunks, truncated chunks, other versions, reserved flag, unknown format", () => {
    expectCodecError(good.subarray(0, 10), undefined, /shorter than the 16-byte header/);
    expectCodecError(good.subarray(0, good.length - 1), undefined, /truncated/);
    const v3 = good.slice();
    v3[0] = 3;
    expectCodecError(v3, undefined, /version 3/);
    const reserved = good.slice();
    reserved[2] |= 0x08;
    expectCodecError(reserved, undefined, /reserved/);
    const fmt = good.slice();
    fmt[2] = (fmt[2] & 0x1f) | (6 << 5);
    expectCodecError(fmt, undefined, /format code 6/);
  });

  it("a huge nbytes in a tiny chunk fails before allocating", () => {
    const h = good.slice(0, 64);
    new DataView(h.buffer).setUint32(4, 0x7fff0000, true);
    new DataView(h.buffer).setUint32(12, 64, true);
    expectCodecError(h);
  });

  it("one huge block backed by a few bytes fails before allocating its output", () => {
    // lz4, don't split, typesize 1, nbytes = blocksize = 2^30, one 5-byte stream.
    const f = new Uint8Array(16 + 4 + 4 + 5);
    const dv = new DataView(f.buffer);
    f.set([2, 1, 0x20 | 0x10, 1]);
    dv.setUint32(4, 1 << 30, true);
    dv.setUint32(8, 1 << 30, true);
    dv.setUint32(12, f.length, true);
    dv.setUint32(16, 20, true);
    dv.setInt32(20, 5, true);
    expectCodecError(f, undefined, /cannot decode to 1073741824 bytes/);
  });

  it("block offsets and stream sizes outside the chunk", () => {
    const off = good.slice();
    new DataView(off.buffer).setUint32(16, good.length + 5, true);
    expectCodecError(off, undefined, /offset/);
    const cs = good.slice();
    const first = new DataView(cs.buffer).getUint32(16, true);
    new DataView(cs.buffer).setInt32(first, 1 << 30, true);
    expectCodecError(cs, undefined, /size/);
  });

  it("an empty chunk decodes to nothing", () => {
    const empty = bloscCompressSync(new Uint8Array(0), {
      cname: "blosclz",
      clevel: 5,
      shuffle: 1,
      typesize: 4,
      blocksize: 0,
    });
    // c-blosc writes [2, 1, 0x13, 4, nbytes 0, blocksize 1, cbytes 16] for this.
    expect([...empty]).toEqual([2, 1, 0x13, 4, 0, 0, 0, 0, 1, 0, 0, 0, 16, 0, 0, 0]);
    expect(bloscDecompressSync(empty).length).toBe(0);
  });
});

describe("shuffles (c-blosc layout)", () => {
  it("byte shuffle: out[j*n + i] = in[i*ts + j], trailing bytes copied", () => {
    const src = Uint8Array.from([1, 2, 3, 4, 5, 6, 7]);
    const dst = new Uint8Array(7);
    shuffle(3, src, 0, dst, 0, 7);
    expect([...dst]).toEqual([1, 4, 2, 5, 3, 6, 7]);
    const back = new Uint8Array(7);
    unshuffle(3, dst, 0, back, 0, 7);
    expect([...back]).toEqual([...src]);
  });

  it("bitshuffle: row 8j+k holds bit k of byte j of every element, LSB first", () => {
    // 8 elements of 2 bytes; element i = [i, 0x80].
    const src = new Uint8Array(16);
    for (let i = 0; i < 8; i++) {
      src[2 * i] = i;
      src[2 * i + 1] = 0x80;
    }
    const dst = new Uint8Array(16);
    bitshuffle(2, src, 0, dst, 0, 16);
    // Byte 0, bit 0 set for odd i: 0b10101010; bit 1 for i in {2,3,6,7}; bit 2 for 4..7.
    expect([...dst]).toEqual([0xaa, 0xcc, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff]);
    const back = new Uint8Array(16);
    bitunshuffle(2, dst, 0, back, 0, 16);
    expect([...back]).toEqual([...src]);
  });

  it("bitshuffle matches a bit-by-bit reference, at any offset and for every code path", () => {
    const reference = (ts: number, src: Uint8Array): Uint8Array => {
      const n = Math.floor(src.length / ts);
      const out = src.slice();
      if (n % 8 !== 0) return out;
      out.fill(0, 0, n * ts);
      for (let i = 0; i < n; i++)
        for (let j = 0; j < ts; j++)
          for (let k = 0; k < 8; k++)
            if ((src[i * ts + j] >> k) & 1) out[(8 * j + k) * (n / 8) + (i >> 3)] |= 1 << (i & 7);
      return out;
    };
    for (const ts of [1, 2, 3, 4, 8, 16]) {
      for (const n of [8, 24, 32, 64, 96, 136]) {
        for (const off of [0, 1, 4]) {
          const size = ts * n + 3;
          const buf = structured(size + off, ts * n);
          const src = buf.subarray(off);
          const mid = new Uint8Array(size + off);
          bitshuffle(ts, buf, off, mid, off, size);
          expect(Buffer.compare(mid.subarray(off), reference(ts, src))).toBe(0);
          const back = new Uint8Array(size + off);
          bitunshuffle(ts, mid, off, back, off, size);
          expect(Buffer.compare(back.subarray(off), src)).toBe(0);
        }
      }
    }
  });

  it("bitshuffle copies the whole block when the element count is not a multiple of 8", () => {
    const src = structured(4 * 13 + 3);
    const dst = new Uint8Array(src.length);
    bitshuffle(4, src, 0, dst, 0, src.length);
    expect([...dst]).toEqual([...src]);
  });

  it("bitshuffle round-trips with trailing bytes for every typesize", () => {
    for (const ts of [1, 2, 3, 4, 8, 16, 17]) {
      const size = ts * 64 + 5;
      const src = structured(size, ts);
      const mid = new Uint8Array(size);
      const back = new Uint8Array(size);
      bitshuffle(ts, src, 0, mid, 0, size);
      bitunshuffle(ts, mid, 0, back, 0, size);
      expect(Buffer.compare(back, src)).toBe(0);
      expect(Buffer.compare(mid.subarray(ts * 64), src.subarray(ts * 64))).toBe(0);
    }
  });
});

// Expected values measured with python-blosc (c-blosc 1.21.3).
describe("computeBlocksize (c-blosc compute_blocksize)", () => {
  it.each([
    ["lz4", 5, 4, 1 << 20, 0, 524288],
    ["lz4", 9, 4, 1 << 20, 0, 1 << 20],
    ["zstd", 5, 4, 1 << 20, 0, 262144],
    ["zstd", 9, 4, 1 << 20, 0, 1 << 20],
    ["blosclz", 1, 1, 1 << 20, 0, 65536],
    ["blosclz", 5, 4, 4000, 1000, 4000],
    ["blosclz", 5, 4, 4000, 128, 128],
    ["zstd", 5, 4, 4000, 1000, 1000],
    ["lz4", 5, 4, 2, 0, 1],
    ["lz4", 0, 4, 100_000, 0, 8192],
  ] as const)(
    "%s clevel %d typesize %d nbytes %d forced %d -> %d",
    (cname, clevel, ts, n, forced, bs) => {
      expect(computeBlocksize(cname, clevel, ts, n, forced)).toBe(bs);
    },
  );
});

describe("overlapping match copies", () => {
  it("equal a byte-by-byte copy for every distance and length", () => {
    for (let dist = 1; dist <= 9; dist++) {
      for (let len = 1; len <= 300; len += len < 40 ? 1 : 37) {
        const a = new Uint8Array(16 + len);
        for (let i = 0; i < 16; i++) a[i] = i * 17 + 3;
        const b = a.slice();
        copyMatch(a, viewOf(a), 16, dist, len);
        for (let i = 16; i < 16 + len; i++) b[i] = b[i - dist];
        expect(Buffer.compare(a, b)).toBe(0);
      }
    }
  });
});

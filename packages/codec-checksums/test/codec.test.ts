import "@zarr/codec-checksums/register";
import {
  CHECKSUM_CODECS,
  ChecksumCodec,
  type ChecksumId,
  crc32cCodec,
  fletcher32Codec,
  jenkinsLookup3Codec,
  numcodecsCrc32Codec,
} from "@zarr/codec-checksums";
import { CodecError, createArray, MemoryStore, openArray } from "@zarr/core";
import { crc32c } from "@zarr/core/builtin-codecs";
import type { BytesToBytesCodec, CodecContext, CodecFactory } from "@zarr/core/codec";
import { describe, expect, it } from "vitest";

const context = (format: 2 | 3 = 3) => ({ path: "arr", format }) as unknown as CodecContext;
const build = (factory: CodecFactory, config: unknown, ctx: CodecContext) =>
  factory.fromConfig(config as never, ctx) as BytesToBytesCodec;
const IDS: ChecksumId[] = ["adler32", "crc32", "crc32c", "fletcher32", "jenkins_lookup3"];
const payload = Uint8Array.from({ length: 1001 }, (_, i) => (i * 31) & 0xff);
const le32 = (b: Uint8Array, at: number) =>
  new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(at, true);
const ascii = (s: string) => new TextEncoder().encode(s);

describe("layout (numcodecs checksum32.py, fletcher32.pyx)", () => {
  it("the default location is numcodecs': start for adler32/crc32, end for crc32c/fletcher32/jenkins_lookup3", () => {
    for (const id of IDS) {
      const codec = new ChecksumCodec(id);
      const enc = codec.encode(payload);
      expect(enc.length).toBe(payload.length + 4);
      const start = id === "adler32" || id === "crc32";
      expect(codec.location).toBe(start ? "start" : "end");
      expect(le32(enc, start ? 0 : payload.length)).toBe(codec.checksum(payload));
      expect(enc.subarray(start ? 4 : 0, start ? undefined : -4)).toEqual(payload);
    }
  });

  it("crc32c stores core's CRC-32C, so its default layout equals the v3 crc32c codec's", () => {
    const enc = new ChecksumCodec("crc32c").encode(payload);
    expect(le32(enc, payload.length)).toBe(crc32c(payload));
  });

  for (const id of ["adler32", "crc32", "crc32c"] as const) {
    for (const location of ["start", "end"] as const) {
      it(`${id} at the ${location} (location, numcodecs >= 0.14): round trip, sizes 0..9`, () => {
        const codec = new ChecksumCodec(id, { location });
        for (let n = 0; n < 10; n++) {
          const data = payload.subarray(0, n);
          const enc = codec.encode(data);
          expect(le32(enc, location === "start" ? 0 : n)).toBe(codec.checksum(data));
          expect(codec.decode(enc, n)).toEqual(data);
        }
      });
    }
  }

  it("jenkins_lookup3 with initval and an HDF5 prefix: numcodecs' test_jenkins_lookup3_codec values", () => {
    const s = ascii("Four score and seven years ago");
    expect(new ChecksumCodec("jenkins_lookup3").encode(s).subarray(-4)).toEqual(
      Uint8Array.of(0x51, 0x05, 0x77, 0x17),
    );
    expect(new ChecksumCodec("jenkins_lookup3", { initval: 1230 }).encode(s).subarray(-4)).toEqual(
      Uint8Array.of(0xd7, 0x5a, 0xe2, 0x0e), // b'\xd7Z\xe2\x0e'
    );
    // HDF5 fixed array data block: 32 little-endian u64 (stored), hashed after the 14-byte "FADB" header.
    const words = [
      0x800, 0xff7, 0x17f7, 0xff7, 0x27ee, 0xff7, 0x37e5, 0xff7, 0x47dc, 0xff7, 0x57d3, 0xff7,
      0x67ca, 0xff7, 0x77c1, 0xff7, 0x87b8, 0xff7, 0x97af, 0xff7, 0xa7a6, 0xff7, 0xb79d, 0xff7,
      0xc794, 0xff7, 0xd78b, 0xff7, 0xe782, 0xff7, 0xf779, 0xff7,
    ];
    const index = new Uint8Array(new BigUint64Array(words.map(BigInt)).buffer);
    const prefix = Uint8Array.of(0x46, 0x41, 0x44, 0x42, 0, 1, 0xcf, 1, 0, 0, 0, 0, 0, 0);
    const codec = new ChecksumCodec("jenkins_lookup3", { prefix });
    const enc = codec.encode(index);
    expect(enc.subarray(-4)).toEqual(Uint8Array.of(0x6e, 0x96, 0x07, 0x85));
    expect(codec.decode(enc)).toEqual(index);
    // The prefix is hashed, not stored: without it the same chunk fails.
    expect(() => new ChecksumCodec("jenkins_lookup3").decode(enc)).toThrowError(CodecError);
  });
});

describe("decode", () => {
  it("returns a view of its input, not a copy", () => {
    for (const id of IDS) {
      const enc = new ChecksumCodec(id).encode(payload);
      const out = new ChecksumCodec(id).decode(enc);
      expect(out.buffer).toBe(enc.buffer);
      expect(out.length).toBe(payload.length);
    }
  });

  it("rejects every single-bit flip, short inputs and a wrong payload size with a CodecError", () => {
    const data = payload.subarray(0, 37);
    for (const id of IDS) {
      const codec = new ChecksumCodec(id, { path: "g/a" });
      const enc = codec.encode(data);
      for (let bit = 0; bit < enc.length * 8; bit++) {
        const bad = enc.slice();
        bad[bit >> 3] ^= 1 << (bit & 7);
        expect(() => codec.decode(bad), `${id}, bit ${bit}`).toThrowError(CodecError);
      }
      for (let n = 0; n < 4; n++) {
        expect(() => codec.decode(enc.subarray(0, n))).toThrowError(
          new RegExp(`${n} bytes is shorter than the 4-byte checksum`),
        );
      }
      expect(() => codec.decode(enc, 36)).toThrowError(/payload is 37 bytes, expected 36/);
      const flipped = enc.slice();
      flipped[5] ^= 4;
      expect(() => codec.decode(flipped)).toThrowError(
        new RegExp(`${id} codec at "g/a": checksum mismatch: stored 0x[0-9a-f]{8}, computed`),
      );
    }
  });

  it("an empty payload round-trips (4 bytes)", () => {
    for (const id of IDS) {
      const codec = new ChecksumCodec(id);
      expect(codec.decode(codec.encode(new Uint8Array(0)), 0)).toEqual(new Uint8Array(0));
    }
  });
});

describe("configuration (numcodecs constructor keywords)", () => {
  it("reads location, initval, prefix and a v2 id; writes what numcodecs reads back", () => {
    expect(build(crc32cCodec, { id: "crc32c" }, context(2)).toJSON()).toEqual({
      name: "crc32c",
    });
    expect(build(crc32cCodec, { location: "start" }, context(2)).toJSON()).toEqual({
      name: "crc32c",
      configuration: { location: "start" },
    });
    expect(build(numcodecsCrc32Codec, undefined, context()).toJSON()).toEqual({
      name: "numcodecs.crc32",
      configuration: { location: "start" },
    });
    expect(build(fletcher32Codec, {}, context(2)).toJSON()).toEqual({ name: "fletcher32" });
    expect(build(CHECKSUM_CODECS["numcodecs.fletcher32"], {}, context()).toJSON()).toEqual({
      name: "numcodecs.fletcher32",
      configuration: {},
    });
    const j = build(
      jenkinsLookup3Codec,
      { id: "jenkins_lookup3", initval: 4294967295, prefix: [1, 2] },
      context(2),
    );
    expect(j.toJSON()).toEqual({
      name: "jenkins_lookup3",
      configuration: { initval: 4294967295, prefix: [1, 2] },
    });
    expect(build(jenkinsLookup3Codec, { initval: 0, prefix: null }, context(2)).toJSON()).toEqual({
      name: "jenkins_lookup3",
      configuration: { initval: 0, prefix: null },
    });
  });

  it("v3 `crc32c` stays core's codec (same bytes, no configuration written)", () => {
    const v3 = build(crc32cCodec, undefined, context(3));
    expect(v3).not.toBeInstanceOf(ChecksumCodec);
    expect(v3.toJSON()).toEqual({ name: "crc32c" });
    const v2 = build(crc32cCodec, { id: "crc32c" }, context(2));
    expect(v2).toBeInstanceOf(ChecksumCodec);
    expect(v2.encode(payload)).toEqual(v3.encode(payload));
  });

  it.each([
    ["crc32", { location: "middle" }, /location must be "start" or "end", got "middle"/],
    ["adler32", { level: 1 }, /unknown configuration field "level" \(it takes location\)/],
    ["fletcher32", { location: "end" }, /unknown configuration field "location" \(it takes none\)/],
    ["jenkins_lookup3", { location: "end" }, /unknown configuration field "location"/],
    ["jenkins_lookup3", { initval: -1 }, /initval must be an integer 0..4294967295, got -1/],
    ["jenkins_lookup3", { initval: 2 ** 32 }, /initval must be an integer/],
    ["jenkins_lookup3", { initval: 1.5 }, /initval must be an integer/],
    ["jenkins_lookup3", { prefix: "FADB" }, /prefix must be null or a list of byte values/],
    ["jenkins_lookup3", { prefix: [1, 256] }, /prefix must be null or a list of byte values/],
    ["numcodecs.crc32c", { id: "crc32" }, /configuration.id is "crc32", expected "crc32c"/],
  ] as const)("%s %j is a CodecError naming the field", (id, config, message) => {
    const factory = CHECKSUM_CODECS[id];
    expect(() => build(factory, config, context())).toThrowError(CodecError);
    expect(() => build(factory, config, context())).toThrowError(message);
  });

  it("the constructor refuses what numcodecs cannot express", () => {
    expect(() => new ChecksumCodec("fletcher32", { location: "start" })).toThrowError(
      /always stores its checksum at the end/,
    );
    expect(() => new ChecksumCodec("crc32", { prefix: Uint8Array.of(1) })).toThrowError(
      /only jenkins_lookup3 takes initval and prefix/,
    );
  });
});

describe("in an array (v3 codecs)", () => {
  it("writes and reads through every numcodecs.* name; a damaged chunk is a CodecError naming it", async () => {
    for (const id of IDS) {
      const store = new MemoryStore();
      const a = await createArray(store, `g/${id}`, {
        shape: [20],
        dataType: "int32",
        chunkShape: [10],
        codecs: [
          { name: "bytes", configuration: { endian: "little" } },
          { name: `numcodecs.${id}` },
        ],
      });
      await a.set(null, {
        data: Int32Array.from({ length: 20 }, (_, i) => i * i - 50),
        shape: [20],
      });
      const b = await openArray(store, `g/${id}`);
      expect(Array.from((await b.get(null)).data as Int32Array)).toEqual(
        Array.from({ length: 20 }, (_, i) => i * i - 50),
      );
      const key = `g/${id}/c/1`;
      const chunk = (await store.get(key))!.slice();
      chunk[9] ^= 0x10;
      await store.set(key, chunk);
      const error = await b.get(null).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CodecError);
      expect((error as Error).message).toContain(`chunk "${key}"`);
      expect((error as Error).message).toContain("checksum mismatch");
      expect((await b.get([3])).data).toEqual(Int32Array.of(-41));
    }
  });
});

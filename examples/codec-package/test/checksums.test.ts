import { crc32 as nodeCrc32 } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { adler32, crc32 } from "zarr-codec-checksum32";

const ascii = (s: string) => new TextEncoder().encode(s);

describe("crc32 (zlib's CRC-32, reflected 0xEDB88320)", () => {
  it("matches the standard check values", () => {
    expect(crc32(new Uint8Array(0))).toBe(0);
    expect(crc32(ascii("123456789"))).toBe(0xcbf43926);
    expect(crc32(ascii("The quick brown fox jumps over the lazy dog"))).toBe(0x414fa339);
  });

  it("equals node:zlib's crc32 on any input, and continues across splits", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(300), (data, cut) => {
        const at = Math.min(cut, data.length);
        expect(crc32(data)).toBe(nodeCrc32(data));
        expect(crc32(data.subarray(at), crc32(data.subarray(0, at)))).toBe(crc32(data));
      }),
      { seed: 42, numRuns: 300 },
    );
  });
});

describe("adler32 (RFC 1950 section 9)", () => {
  it("matches the standard check values", () => {
    expect(adler32(new Uint8Array(0))).toBe(1);
    expect(adler32(ascii("Wikipedia"))).toBe(0x11e60398);
    expect(adler32(ascii("123456789"))).toBe(0x091e01de);
  });

  it("reduces modulo 65521 correctly on long runs of 0xff (worst case for the sums)", () => {
    // Reference by the definition, one byte at a time with a modulo at each step.
    const data = new Uint8Array(100_000).fill(0xff);
    let a = 1;
    let b = 0;
    for (const byte of data) {
      a = (a + byte) % 65521;
      b = (b + a) % 65521;
    }
    expect(adler32(data)).toBe(((b << 16) | a) >>> 0);
  });

  it("continues across splits", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12_000 }), fc.nat(12_000), (data, cut) => {
        const at = Math.min(cut, data.length);
        expect(adler32(data.subarray(at), adler32(data.subarray(0, at)))).toBe(adler32(data));
      }),
      { seed: 42, numRuns: 100 },
    );
  });
});

// Check values of the five checksum functions: published check values (CRC
// catalogue "CRC-32/ISO-HDLC" check 0xcbf43926; RFC 1950's Adler-32), the
// values numcodecs' own tests assert (tests/test_jenkins.py, tests/test_fletcher32.py)
// and properties against node:zlib for the zlib pair.
import { crc32 as zlibCrc32 } from "node:zlib";
import { adler32, crc32, fletcher32, jenkinsLookup3 } from "@zarr/codec-checksums";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nativeCrc32 } from "#native";

const ascii = (s: string) => new TextEncoder().encode(s);

/** A straightforward transcription of HDF5's H5_checksum_fletcher32, word by word with uint32 wrap. */
function fletcherReference(data: Uint8Array): number {
  let sum1 = 0;
  let sum2 = 0;
  let len = data.length >>> 1;
  let p = 0;
  while (len) {
    let tlen = Math.min(len, 360);
    len -= tlen;
    do {
      sum1 = (sum1 + ((data[p] << 8) | data[p + 1])) >>> 0;
      p += 2;
      sum2 = (sum2 + sum1) >>> 0;
    } while (--tlen);
    sum1 = (sum1 & 0xffff) + (sum1 >>> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >>> 16);
  }
  if (data.length % 2) {
    sum1 += data[p] << 8;
    sum2 += sum1;
    sum1 = (sum1 & 0xffff) + (sum1 >>> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >>> 16);
  }
  sum1 = (sum1 & 0xffff) + (sum1 >>> 16);
  sum2 = (sum2 & 0xffff) + (sum2 >>> 16);
  return ((sum2 << 16) | sum1) >>> 0;
}

describe("check values", () => {
  it("CRC-32/ISO-HDLC check value and continuation", () => {
    expect(crc32(ascii("123456789"))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
    expect(crc32(ascii("56789"), crc32(ascii("1234")))).toBe(0xcbf43926);
  });

  it("Adler-32 (RFC 1950 section 8.2): 'Wikipedia' and the empty input", () => {
    expect(adler32(ascii("Wikipedia"))).toBe(0x11e60398);
    expect(adler32(new Uint8Array(0))).toBe(1);
  });

  it("jenkins_lookup3: the values numcodecs' tests assert (HDF5 / lookup3.c)", () => {
    expect(jenkinsLookup3(new Uint8Array(0), 0)).toBe(0xdeadbeef);
    expect(jenkinsLookup3(new Uint8Array(0), 0xdeadbeef)).toBe(0xbd5b7dde);
    expect(jenkinsLookup3(ascii("Four score and seven years ago"), 0)).toBe(0x17770551);
    expect(jenkinsLookup3(ascii("Four score and seven years ago"), 1)).toBe(0xcd628161);
    expect(jenkinsLookup3(ascii("jenkins"), 0)).toBe(202276345);
  });

  it("fletcher32: the chunk numcodecs' test_known decodes (10 int64 + footer)", () => {
    const values = [1911, -2427, 1897, -2412, 2440, 873, -621, -829, 551, -2118];
    const data = new Uint8Array(new BigInt64Array(values.map(BigInt)).buffer);
    // footer b'\xfd%\x86d' little-endian
    expect(fletcher32(data)).toBe(0x648625fd);
    expect(fletcher32(ascii("abc"))).toBe(0x25c5c462);
    expect(fletcher32(new Uint8Array(0))).toBe(0);
  });
});

describe("properties", () => {
  it("crc32 and adler32 equal node:zlib's on any input, sizes around the 8-byte and NMAX blocks", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12_000 }), (data) => {
        expect(crc32(data)).toBe(zlibCrc32(data));
      }),
      { numRuns: 300 },
    );
    for (const n of [0, 1, 3, 4, 7, 8, 9, 5551, 5552, 5553, 11104, 11105]) {
      const ones = new Uint8Array(n).fill(0xff);
      expect(crc32(ones)).toBe(zlibCrc32(ones));
    }
  });

  it("the native CRC-32 the codec uses on Node (zlib.crc32) equals the TypeScript one", () => {
    expect(nativeCrc32, "Node >= 20.15 has zlib.crc32").toBeDefined();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), (data) => {
        expect(nativeCrc32!(data)).toBe(crc32(data));
      }),
      { numRuns: 200 },
    );
  });

  it("adler32 of all-0xff data stays exact past several NMAX blocks (sums near 2^32)", () => {
    // b grows fastest for 0xff bytes: check against a byte-at-a-time modulo reference.
    const data = new Uint8Array(100_000).fill(0xff);
    let a = 1;
    let b = 0;
    for (const x of data) {
      a = (a + x) % 65521;
      b = (b + a) % 65521;
    }
    expect(adler32(data)).toBe(((b << 16) | a) >>> 0);
  });

  it("fletcher32 equals a word-by-word uint32 transcription of HDF5's code (all-0xff, odd sizes)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), (data) => {
        expect(fletcher32(data)).toBe(fletcherReference(data));
      }),
      { numRuns: 300 },
    );
    for (const n of [1, 2, 719, 720, 721, 722, 100_001]) {
      const ones = new Uint8Array(n).fill(0xff);
      expect(fletcher32(ones), `${n} bytes of 0xff`).toBe(fletcherReference(ones));
    }
  });

  it("jenkins_lookup3 depends on every byte and on initval (tails of 0..12 bytes)", () => {
    const base = Uint8Array.from({ length: 40 }, (_, i) => i * 7);
    for (let n = 0; n <= 40; n++) {
      const data = base.subarray(0, n);
      const h = jenkinsLookup3(data);
      expect(jenkinsLookup3(data, 1)).not.toBe(h);
      for (let i = 0; i < n; i++) {
        const flipped = data.slice();
        flipped[i] ^= 1;
        expect(jenkinsLookup3(flipped), `${n} bytes, byte ${i}`).not.toBe(h);
      }
    }
  });
});

/**
 * The two checksums of zlib that numcodecs' `CRC32` and `Adler32` codecs call:
 * CRC-32 (ISO-HDLC: reflected polynomial 0xEDB88320, as `zlib.crc32`) and
 * Adler-32 (RFC 1950 section 8.2, as `zlib.adler32`).
 *
 * @module
 */

// Slice-by-8 tables: TABLES[0] is the byte-at-a-time table, TABLES[k] advances a byte k places further.
const TABLES: Uint32Array[] = (() => {
  const tables = Array.from({ length: 8 }, () => new Uint32Array(256));
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
    tables[0][i] = c >>> 0;
  }
  for (let i = 0; i < 256; i++) {
    for (let t = 1; t < 8; t++) {
      const prev = tables[t - 1][i];
      tables[t][i] = (tables[0][prev & 0xff] ^ (prev >>> 8)) >>> 0;
    }
  }
  return tables;
})();

/**
 * CRC-32 of `data` as zlib's `crc32(crc, data)` computes it (so as numcodecs'
 * `crc32` codec stores it).
 *
 * @param data - The bytes to checksum.
 * @param crc - A previous result, to continue over more data (default 0).
 * @returns The CRC as an unsigned 32-bit integer.
 * @example
 * ```ts
 * import { crc32 } from "@zarr/codec-checksums";
 * crc32(new TextEncoder().encode("123456789")); // 0xcbf43926
 * ```
 */
export function crc32(data: Uint8Array, crc = 0): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES;
  let c = ~crc >>> 0;
  let i = 0;
  const n = data.length;
  const end8 = n - (n % 8);
  while (i < end8) {
    const a = (data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24)) ^ c;
    c =
      t7[a & 0xff] ^
      t6[(a >>> 8) & 0xff] ^
      t5[(a >>> 16) & 0xff] ^
      t4[a >>> 24] ^
      t3[data[i + 4]] ^
      t2[data[i + 5]] ^
      t1[data[i + 6]] ^
      t0[data[i + 7]];
    i += 8;
  }
  while (i < n) c = t0[(c ^ data[i++]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

const ADLER_MOD = 65521;
/**
 * zlib's NMAX: the most bytes after which `b` still fits 32 bits before the
 * modulo. JS numbers would allow more, but small sums stay in V8's fast
 * small-integer range.
 */
const ADLER_BLOCK = 5552;

/**
 * Adler-32 of `data` as zlib's `adler32(adler, data)` computes it (so as
 * numcodecs' `adler32` codec stores it).
 *
 * @param data - The bytes to checksum.
 * @param adler - A previous result, to continue over more data (default 1).
 * @returns The checksum as an unsigned 32-bit integer.
 * @example
 * ```ts
 * import { adler32 } from "@zarr/codec-checksums";
 * adler32(new TextEncoder().encode("Wikipedia")); // 0x11e60398
 * ```
 */
export function adler32(data: Uint8Array, adler = 1): number {
  let a = adler & 0xffff;
  let b = adler >>> 16;
  let i = 0;
  const n = data.length;
  while (i < n) {
    const end = Math.min(n, i + ADLER_BLOCK);
    const end4 = end - ((end - i) % 4);
    while (i < end4) {
      a += data[i];
      b += a;
      a += data[i + 1];
      b += a;
      a += data[i + 2];
      b += a;
      a += data[i + 3];
      b += a;
      i += 4;
    }
    while (i < end) {
      a += data[i++];
      b += a;
    }
    a %= ADLER_MOD;
    b %= ADLER_MOD;
  }
  return ((b << 16) | a) >>> 0;
}

/**
 * The two 32-bit checksums numcodecs' `Checksum32` codecs use, as zlib computes
 * them: CRC-32 (ISO-HDLC, reflected polynomial 0xEDB88320) and Adler-32 (RFC 1950).
 *
 * @module
 */

// Slice-by-4 tables: table[0] is the classic byte table, table[k] advances k more bytes.
const CRC_TABLES: Uint32Array[] = (() => {
  const tables = Array.from({ length: 4 }, () => new Uint32Array(256));
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
    tables[0][i] = c >>> 0;
  }
  for (let i = 0; i < 256; i++) {
    for (let t = 1; t < 4; t++) {
      const prev = tables[t - 1][i];
      tables[t][i] = (tables[0][prev & 0xff] ^ (prev >>> 8)) >>> 0;
    }
  }
  return tables;
})();

/**
 * CRC-32 of `data` as zlib's `crc32` computes it; pass a previous result as `crc`
 * to continue over more data.
 */
export function crc32(data: Uint8Array, crc = 0): number {
  const [t0, t1, t2, t3] = CRC_TABLES;
  let c = ~crc >>> 0;
  let i = 0;
  const n = data.length;
  const end4 = n - (n % 4);
  while (i < end4) {
    c ^= data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24);
    c = t3[c & 0xff] ^ t2[(c >>> 8) & 0xff] ^ t1[(c >>> 16) & 0xff] ^ t0[c >>> 24];
    i += 4;
  }
  while (i < n) c = t0[(c ^ data[i++]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

const ADLER_MOD = 65521;
// Bytes that can be summed before `b` could exceed 2^32 (zlib's NMAX); JS numbers
// would allow far more, but small blocks keep the sums in fast small-integer range.
const ADLER_BLOCK = 5552;

/**
 * Adler-32 of `data` as zlib's `adler32` computes it; pass a previous result as
 * `adler` to continue over more data.
 */
export function adler32(data: Uint8Array, adler = 1): number {
  let a = adler & 0xffff;
  let b = adler >>> 16;
  let i = 0;
  const n = data.length;
  while (i < n) {
    const end = Math.min(n, i + ADLER_BLOCK);
    for (; i < end; i++) {
      a += data[i];
      b += a;
    }
    a %= ADLER_MOD;
    b %= ADLER_MOD;
  }
  return ((b << 16) | a) >>> 0;
}

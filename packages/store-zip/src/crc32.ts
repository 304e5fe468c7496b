/**
 * CRC-32 (ISO 3309, polynomial 0xEDB88320), the checksum of every zip entry
 * (APPNOTE 4.4.7). Slicing-by-4 tables: about four times faster than a
 * byte-at-a-time loop.
 *
 * @module
 */

const TABLES = makeTables();

function makeTables(): Uint32Array[] {
  const t0 = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t0[n] = c >>> 0;
  }
  const tables = [t0];
  for (let i = 1; i < 4; i++) {
    const prev = tables[i - 1];
    const t = new Uint32Array(256);
    for (let n = 0; n < 256; n++) t[n] = (prev[n] >>> 8) ^ t0[prev[n] & 0xff];
    tables.push(t);
  }
  return tables;
}

/**
 * Continues a CRC-32 over `data`: `crc32(b, crc32(a))` is the CRC of `a`
 * followed by `b`. Start with `crc32(data)` (initial value 0).
 */
export function crc32(data: Uint8Array, previous = 0): number {
  const [t0, t1, t2, t3] = TABLES;
  let crc = ~previous >>> 0;
  let i = 0;
  const n = data.length;
  const end4 = n - (n % 4);
  while (i < end4) {
    crc ^= data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24);
    crc = t3[crc & 0xff] ^ t2[(crc >>> 8) & 0xff] ^ t1[(crc >>> 16) & 0xff] ^ t0[crc >>> 24];
    i += 4;
  }
  while (i < n) crc = t0[(crc ^ data[i++]) & 0xff] ^ (crc >>> 8);
  return ~crc >>> 0;
}

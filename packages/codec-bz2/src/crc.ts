/**
 * bzip2's block and stream CRC: CRC-32 with polynomial 0x04C11DB7 fed most
 * significant bit first (not reflected, unlike zlib's).
 *
 * @module
 */

let table: Uint32Array | undefined;

/** Updater of bzip2's block CRC (CRC-32, most significant bit first); start at 0xffffffff, finish with `~`. */
export function bzip2CrcTable(): Uint32Array {
  if (table) return table;
  table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n << 24;
    for (let k = 0; k < 8; k++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
    table[n] = c >>> 0;
  }
  return table;
}

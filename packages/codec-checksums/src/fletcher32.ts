/**
 * Fletcher-32 as HDF5 and netCDF-C compute it (`H5_checksum_fletcher32`), the
 * variant numcodecs' `fletcher32` codec (numcodecs >= 0.12) stores.
 *
 * It is not the textbook Fletcher-32: the data is read as big-endian 16-bit
 * words; an odd trailing byte counts as the high byte of a last word; the two
 * sums are folded (`(s & 0xffff) + (s >>> 16)`, an end-around carry, not a
 * modulo 65535) after every 360 words and twice at the end. 360 words is the
 * most for which `sum2` cannot pass 2^32, so plain JS numbers give exactly the
 * C uint32 results.
 *
 * @module
 */

const BLOCK_WORDS = 360;

/**
 * The HDF5 / netCDF Fletcher-32 checksum of `data`.
 *
 * @param data - The bytes to checksum (any length; 0 bytes gives 0).
 * @returns `sum2 << 16 | sum1` as an unsigned 32-bit integer.
 * @example
 * ```ts
 * import { fletcher32 } from "@zarr/codec-checksums";
 * fletcher32(new TextEncoder().encode("abc")); // 0x25c5c462
 * ```
 */
export function fletcher32(data: Uint8Array): number {
  let sum1 = 0;
  let sum2 = 0;
  let i = 0;
  const words = data.length >>> 1;
  let left = words;
  while (left > 0) {
    const block = Math.min(left, BLOCK_WORDS);
    left -= block;
    const end = i + 2 * block;
    while (i < end) {
      sum1 += (data[i] << 8) | data[i + 1];
      sum2 += sum1;
      i += 2;
    }
    sum1 = (sum1 & 0xffff) + (sum1 >>> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >>> 16);
  }
  if (data.length & 1) {
    sum1 += data[i] << 8;
    sum2 += sum1;
    sum1 = (sum1 & 0xffff) + (sum1 >>> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >>> 16);
  }
  sum1 = (sum1 & 0xffff) + (sum1 >>> 16);
  sum2 = (sum2 & 0xffff) + (sum2 >>> 16);
  return ((sum2 << 16) | sum1) >>> 0;
}

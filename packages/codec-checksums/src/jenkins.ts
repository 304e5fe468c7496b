/**
 * Bob Jenkins' lookup3 `hashlittle` (2006, public domain) with 32-bit output,
 * as HDF5's `H5_checksum_lookup3` and numcodecs' `jenkins_lookup3` compute it:
 * bytes are read as little-endian 32-bit words in groups of 12, whatever the
 * alignment, and the last 1..12 bytes are zero-padded before `final`.
 *
 * @module
 */

const rot = (x: number, k: number) => (x << k) | (x >>> (32 - k));

/**
 * The lookup3 hash of `data` (hashlittle), continuing from `initval`.
 *
 * @param data - The bytes to hash.
 * @param initval - The seed, an unsigned 32-bit integer (default 0).
 * @returns The hash as an unsigned 32-bit integer.
 * @example
 * ```ts
 * import { jenkinsLookup3 } from "@zarr/codec-checksums";
 * jenkinsLookup3(new TextEncoder().encode("Four score and seven years ago")); // 0x17770551
 * ```
 */
export function jenkinsLookup3(data: Uint8Array, initval = 0): number {
  let length = data.length;
  let a = (0xdeadbeef + length + initval) | 0;
  let b = a;
  let c = a;
  if (length === 0) return c >>> 0;
  let k = 0;
  while (length > 12) {
    a = (a + (data[k] | (data[k + 1] << 8) | (data[k + 2] << 16) | (data[k + 3] << 24))) | 0;
    b = (b + (data[k + 4] | (data[k + 5] << 8) | (data[k + 6] << 16) | (data[k + 7] << 24))) | 0;
    c = (c + (data[k + 8] | (data[k + 9] << 8) | (data[k + 10] << 16) | (data[k + 11] << 24))) | 0;
    // mix(a, b, c)
    a = (a - c) | 0;
    a ^= rot(c, 4);
    c = (c + b) | 0;
    b = (b - a) | 0;
    b ^= rot(a, 6);
    a = (a + c) | 0;
    c = (c - b) | 0;
    c ^= rot(b, 8);
    b = (b + a) | 0;
    a = (a - c) | 0;
    a ^= rot(c, 16);
    c = (c + b) | 0;
    b = (b - a) | 0;
    b ^= rot(a, 19);
    a = (a + c) | 0;
    c = (c - b) | 0;
    c ^= rot(b, 4);
    b = (b + a) | 0;
    length -= 12;
    k += 12;
  }
  // The last 1..12 bytes, zero-padded: byte j of the tail is byte (j % 4) of word a, b or c.
  let wa = 0;
  let wb = 0;
  let wc = 0;
  for (let j = 0; j < length; j++) {
    const v = data[k + j] << (8 * (j & 3));
    if (j < 4) wa |= v;
    else if (j < 8) wb |= v;
    else wc |= v;
  }
  a = (a + wa) | 0;
  b = (b + wb) | 0;
  c = (c + wc) | 0;
  // final(a, b, c)
  c ^= b;
  c = (c - rot(b, 14)) | 0;
  a ^= c;
  a = (a - rot(c, 11)) | 0;
  b ^= a;
  b = (b - rot(a, 25)) | 0;
  c ^= b;
  c = (c - rot(b, 16)) | 0;
  a ^= c;
  a = (a - rot(c, 4)) | 0;
  b ^= a;
  b = (b - rot(a, 14)) | 0;
  c ^= b;
  c = (c - rot(b, 24)) | 0;
  return c >>> 0;
}

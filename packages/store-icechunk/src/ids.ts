/**
 * Object ids in file names: Crockford base 32, upper case, no padding, zero
 * bits appended on the right (spec v2, "Common Types"): 12-byte ids give 20
 * characters, 8-byte ids 13.
 *
 * @module
 */

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** Encodes id bytes as Crockford base 32. */
export function encodeId(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const b of bytes) {
    buffer = (buffer << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/**
 * Decodes a 20-character snapshot id (as written in file names and given by
 * users) to its 12 bytes; `undefined` when it is not one. Lower case and
 * Crockford's aliases (`O` for 0, `I`/`L` for 1) are accepted, as the
 * alphabet's definition allows; the bits past the 96th must be zero.
 */
export function decodeId12(text: string): Uint8Array | undefined {
  if (text.length !== 20) return undefined;
  const out = new Uint8Array(12);
  let buffer = 0;
  let bits = 0;
  let n = 0;
  for (const raw of text.toUpperCase()) {
    const c = raw === "O" ? "0" : raw === "I" || raw === "L" ? "1" : raw;
    const v = ALPHABET.indexOf(c);
    if (v < 0) return undefined;
    buffer = ((buffer << 5) | v) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      if (n < 12) out[n++] = (buffer >> bits) & 0xff;
    }
  }
  if ((buffer & ((1 << bits) - 1)) !== 0) return undefined;
  return out;
}

/** Compares two byte strings (unsigned, lexicographic). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/**
 * `crc32c` (bytes -> bytes): appends the CRC-32C (Castagnoli) of the payload as
 * 4 bytes little-endian; decoding verifies and strips it.
 *
 * @module
 */

import { CodecError } from "../../errors.js";
import type { BytesToBytesCodec, CodecFactory } from "../types.js";

// Slice-by-8 tables for the reflected Castagnoli polynomial 0x82F63B78.
const TABLES: Uint32Array[] = (() => {
  const tables = Array.from({ length: 8 }, () => new Uint32Array(256));
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
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

/** CRC-32C of `data` (optionally continuing from a previous `crc`). */
export function crc32c(data: Uint8Array, crc = 0): number {
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

/** The `crc32c` codec factory (no configuration). */
export const crc32cCodec: CodecFactory = {
  kind: "bytes_to_bytes",
  fromConfig(_configuration, context): BytesToBytesCodec {
    const path = context.path;
    return {
      kind: "bytes_to_bytes",
      name: "crc32c",
      toJSON: () => ({ name: "crc32c" }),
      encodedSize: (n) => n + 4,
      maxEncodedSize: (n) => n + 4,
      encode(bytes) {
        const out = new Uint8Array(bytes.length + 4);
        out.set(bytes);
        new DataView(out.buffer).setUint32(bytes.length, crc32c(bytes), true);
        return out;
      },
      decode(bytes, decodedSize) {
        if (bytes.length < 4) {
          throw new CodecError(
            `${path}: crc32c: ${bytes.length} bytes is shorter than the checksum`,
            {
              path,
            },
          );
        }
        const payload = bytes.subarray(0, bytes.length - 4);
        if (decodedSize !== undefined && payload.length !== decodedSize) {
          throw new CodecError(
            `${path}: crc32c: payload is ${payload.length} bytes, expected ${decodedSize}`,
            { path },
          );
        }
        const stored = new DataView(bytes.buffer, bytes.byteOffset + payload.length, 4).getUint32(
          0,
          true,
        );
        const actual = crc32c(payload);
        if (stored !== actual) {
          throw new CodecError(
            `${path}: crc32c checksum mismatch (stored 0x${stored.toString(16)}, computed 0x${actual.toString(16)})`,
            { path },
          );
        }
        return payload;
      },
    };
  },
};

/**
 * Node's own CRC-32 (`zlib.crc32`, Node >= 20.15 and 22.2; zlib's vectorized
 * code): about 4 times the TypeScript slice-by-8 loop on the bench machine
 * (`bench/codecs/checksums.mjs`). It computes the same function as
 * {@link crc32} (tested on both).
 *
 * @module
 */
import * as zlib from "node:zlib";

const api = zlib as { crc32?: (data: Uint8Array, value?: number) => number };

/** zlib's CRC-32 when this Node has it. */
export const nativeCrc32: ((data: Uint8Array) => number) | undefined =
  typeof api.crc32 === "function" ? (data) => api.crc32!(data) : undefined;

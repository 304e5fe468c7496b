/**
 * Decompression bombs for the attack suite: small inputs that decode to far
 * more than any chunk can hold.
 *
 * @module
 */

import { createDeflate, createGzip } from "node:zlib";

/**
 * A zstd frame of RLE blocks (format: RFC 8878 §3.1.1): no content size in the
 * header, so a decoder learns the output size only by decoding. Each 4-byte
 * block regenerates 128 KiB of `byte`.
 */
export function zstdRleBomb(decodedBytes: number, byte = 0x61): Uint8Array {
  const block = 128 * 1024;
  const blocks = Math.ceil(decodedBytes / block);
  const out = new Uint8Array(6 + blocks * 4);
  new DataView(out.buffer).setUint32(0, 0xfd2fb528, true);
  out[4] = 0x00; // no content size, not single-segment, no checksum, no dictionary
  out[5] = 7 << 3; // window 2^(10+7) = 128 KiB
  for (let i = 0; i < blocks; i++) {
    const size = Math.min(block, decodedBytes - i * block);
    const header = (size << 3) | (1 << 1) | (i === blocks - 1 ? 1 : 0); // RLE block
    const at = 6 + i * 4;
    out[at] = header & 0xff;
    out[at + 1] = (header >>> 8) & 0xff;
    out[at + 2] = (header >>> 16) & 0xff;
    out[at + 3] = byte;
  }
  return out;
}

/** A zlib (`deflate`) or gzip stream of `decodedBytes` copies of `byte`, compressed at level 9. */
export async function zlibBomb(
  format: "zlib" | "gzip",
  decodedBytes: number,
  byte = 0,
): Promise<Uint8Array> {
  const stream = format === "gzip" ? createGzip({ level: 9 }) : createDeflate({ level: 9 });
  const parts: Buffer[] = [];
  stream.on("data", (b: Buffer) => parts.push(b));
  const done = new Promise<void>((resolve, reject) => {
    stream.on("end", resolve);
    stream.on("error", reject);
  });
  const piece = Buffer.alloc(16 << 20, byte);
  for (let left = decodedBytes; left > 0; left -= piece.length) {
    const part = left >= piece.length ? piece : piece.subarray(0, left);
    if (!stream.write(part)) await new Promise((r) => stream.once("drain", r));
  }
  stream.end();
  await done;
  return new Uint8Array(Buffer.concat(parts));
}

/** A zstd frame holding `payload` in raw (uncompressed) blocks, with its content size declared. */
export function zstdRawFrame(payload: Uint8Array): Uint8Array {
  const block = 128 * 1024;
  const blocks = Math.max(1, Math.ceil(payload.length / block));
  const out = new Uint8Array(5 + 8 + blocks * 3 + payload.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0xfd2fb528, true);
  out[4] = (3 << 6) | (1 << 5); // 8-byte content size, single segment
  view.setBigUint64(5, BigInt(payload.length), true);
  let at = 13;
  for (let i = 0; i < blocks; i++) {
    const part = payload.subarray(i * block, (i + 1) * block);
    const header = (part.length << 3) | (i === blocks - 1 ? 1 : 0); // raw block
    out[at] = header & 0xff;
    out[at + 1] = (header >>> 8) & 0xff;
    out[at + 2] = (header >>> 16) & 0xff;
    out.set(part, at + 3);
    at += 3 + part.length;
  }
  return out;
}

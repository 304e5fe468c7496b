/** Test data and a length-prefixed framing for batched python calls. */

/** Packs byte strings as u32le count, then u32le length + bytes each. */
export function pack(items: readonly Uint8Array[]): Uint8Array {
  const total = 4 + items.reduce((n, b) => n + 4 + b.length, 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, items.length, true);
  let offset = 4;
  for (const item of items) {
    view.setUint32(offset, item.length, true);
    out.set(item, offset + 4);
    offset += 4 + item.length;
  }
  return out;
}

/** Inverse of {@link pack}. */
export function unpack(buf: Uint8Array): Uint8Array[] {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const count = view.getUint32(0, true);
  const items: Uint8Array[] = [];
  let offset = 4;
  for (let i = 0; i < count; i++) {
    const len = view.getUint32(offset, true);
    items.push(buf.subarray(offset + 4, offset + 4 + len));
    offset += 4 + len;
  }
  return items;
}

/** The same framing in python, prepended to interop scripts. */
export const PY_PACK = `
import sys, struct
def unpack(b):
    n = struct.unpack_from('<I', b, 0)[0]; o = 4; out = []
    for _ in range(n):
        l = struct.unpack_from('<I', b, o)[0]; out.append(b[o+4:o+4+l]); o += 4 + l
    return out
def pack(items):
    return struct.pack('<I', len(items)) + b''.join(struct.pack('<I', len(x)) + bytes(x) for x in items)
`;

/** Deterministic pseudo-random bytes (xorshift32). */
export function randomBytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed | 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** A smooth float32 field (compressible like real gridded data), `n` values. */
export function smoothField(n: number): Uint8Array {
  const f = new Float32Array(n);
  for (let i = 0; i < n; i++) f[i] = Math.sin(i / 97) * 100 + Math.cos(i / 13);
  return new Uint8Array(f.buffer);
}

/** Named inputs covering empty, tiny, incompressible, repetitive and smooth data. */
export function sampleInputs(): { name: string; data: Uint8Array }[] {
  return [
    { name: "empty", data: new Uint8Array(0) },
    { name: "one byte", data: new Uint8Array([42]) },
    { name: "random 1000", data: randomBytes(1000, 7) },
    { name: "zeros 100000", data: new Uint8Array(100_000) },
    { name: "text", data: new TextEncoder().encode("zarr ".repeat(3000)) },
    { name: "smooth float32 200000 B", data: smoothField(50_000) },
  ];
}

/** Fast byte equality (vitest's deep equality is slow on large typed arrays). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(
    Buffer.from(b.buffer, b.byteOffset, b.byteLength),
  );
}

/** RFC 8878 3.1.1: rewrites a frame's header without Frame_Content_Size (as numcodecs < 0.13 wrote). */
export function stripContentSize(frame: Uint8Array): Uint8Array {
  const fhd = frame[4]!;
  const fcsFlag = fhd >>> 6;
  const single = (fhd & 0x20) !== 0;
  const dictSize = [0, 1, 2, 4][fhd & 3]!;
  const fcsSize = [single ? 1 : 0, 2, 4, 8][fcsFlag]!;
  let at = 5 + (single ? 0 : 1) + dictSize;
  let size = 0;
  for (let i = 0; i < fcsSize; i++) size += frame[at + i]! * 2 ** (8 * i);
  if (fcsSize === 2) size += 256;
  at += fcsSize;
  let windowDescriptor: number;
  if (single) {
    const windowLog = Math.max(10, Math.ceil(Math.log2(Math.max(size, 1))));
    windowDescriptor = (windowLog - 10) << 3;
  } else {
    windowDescriptor = frame[5]!;
  }
  const header = [0x28, 0xb5, 0x2f, 0xfd, fhd & 0x07, windowDescriptor];
  const dict = frame.subarray(at - fcsSize - dictSize, at - fcsSize);
  return new Uint8Array([...header, ...dict, ...frame.subarray(at)]);
}

/** A skippable frame (RFC 8878 3.1.2) with magic 0x184D2A5n and `payload`. */
export function skippableFrame(payload: Uint8Array, n = 0): Uint8Array {
  const out = new Uint8Array(8 + payload.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x184d2a50 + n, true);
  view.setUint32(4, payload.length, true);
  out.set(payload, 8);
  return out;
}

/** A frame of raw blocks without content size (window 1 MiB), built by hand. */
export function rawFrame(data: Uint8Array, blockSize = 100_000): Uint8Array {
  const parts: number[] = [0x28, 0xb5, 0x2f, 0xfd, 0x00, (20 - 10) << 3];
  let at = 0;
  do {
    const n = Math.min(blockSize, data.length - at);
    const last = at + n >= data.length ? 1 : 0;
    const header = last | (0 << 1) | (n << 3);
    parts.push(header & 0xff, (header >>> 8) & 0xff, (header >>> 16) & 0xff);
    for (let i = 0; i < n; i++) parts.push(data[at + i]!);
    at += n;
  } while (at < data.length);
  return new Uint8Array(parts);
}

/** A frame with one RLE block claiming `size` bytes of `byte`, optionally with content size. */
export function rleFrame(byte: number, size: number): Uint8Array {
  const header = 1 | (1 << 1) | (size << 3);
  return new Uint8Array([
    0x28,
    0xb5,
    0x2f,
    0xfd,
    0x00,
    (17 - 10) << 3,
    header & 0xff,
    (header >>> 8) & 0xff,
    header >>> 16,
    byte,
  ]);
}

/** Concatenates byte arrays. */
export function cat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

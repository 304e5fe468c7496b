// Sample inputs and batched python packing shared by the codec packages' tests.
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

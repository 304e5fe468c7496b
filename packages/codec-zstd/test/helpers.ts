// zstd frame builders for the tests (RFC 8878).

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

/**
 * A frame of `size` copies of `byte` as RLE blocks of up to 128 KiB (window
 * 128 KiB): 4 bytes per block, so 1 GiB is 32 KiB. With `contentSize`, the
 * header declares it (true or not).
 */
export function rleBlocksFrame(byte: number, size: number, contentSize?: number): Uint8Array {
  const head = [0x28, 0xb5, 0x2f, 0xfd, contentSize === undefined ? 0x00 : 0xc0, (17 - 10) << 3];
  if (contentSize !== undefined) {
    for (let i = 0; i < 8; i++) head.push(Math.floor(contentSize / 2 ** (8 * i)) & 0xff);
  }
  const nblocks = Math.max(1, Math.ceil(size / (128 * 1024)));
  const out = new Uint8Array(head.length + 4 * nblocks);
  out.set(head);
  let at = head.length;
  for (let b = 0; b < nblocks; b++) {
    const n = Math.min(128 * 1024, size - b * 128 * 1024);
    const h = (b === nblocks - 1 ? 1 : 0) | (1 << 1) | (n << 3);
    out.set([h & 0xff, (h >>> 8) & 0xff, h >>> 16, byte], at);
    at += 4;
  }
  return out;
}

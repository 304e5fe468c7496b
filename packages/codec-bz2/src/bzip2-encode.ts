/**
 * bzip2 compression: run-length encoding of 4+ byte runs, a Burrows-Wheeler
 * transform by prefix doubling (O(n log n), no worst case on repetitive data),
 * move-to-front with RUNA/RUNB zero runs, and one Huffman code (sent twice, as
 * the format needs at least two tables) of length at most 17. Compression is
 * a little below libbzip2's (which tunes up to six tables per block); the
 * streams are standard and read by libbzip2 / Python's `bz2`.
 *
 * @module
 */

import { ByteSink } from "@zarr/core/codec";
import { bzip2CrcTable } from "./crc.js";

/** Writes bits most significant first. */
class BitWriter {
  readonly out = new ByteSink();
  private bits = 0;
  private count = 0;

  /** Writes the low `n` (at most 24) bits of `value`. */
  write(n: number, value: number): void {
    this.bits = (this.bits << n) | (value & ((1 << n) - 1));
    this.count += n;
    while (this.count >= 8) {
      this.count -= 8;
      this.out.push((this.bits >>> this.count) & 0xff);
    }
  }

  write32(value: number): void {
    this.write(16, value >>> 16);
    this.write(16, value & 0xffff);
  }

  finish(): Uint8Array {
    if (this.count > 0) this.write(8 - this.count, 0);
    return this.out.bytes();
  }
}

/** Sorted rotation starts of `s` (cyclic suffix array) by prefix doubling with counting sorts. */
export function sortRotations(s: Uint8Array, n: number): Int32Array {
  const p = new Int32Array(n);
  let c = new Int32Array(n);
  const cnt = new Int32Array(Math.max(256, n));
  for (let i = 0; i < n; i++) cnt[s[i]]++;
  for (let i = 1; i < 256; i++) cnt[i] += cnt[i - 1];
  for (let i = n - 1; i >= 0; i--) p[--cnt[s[i]]] = i;
  let classes = 1;
  c[p[0]] = 0;
  for (let i = 1; i < n; i++) {
    if (s[p[i]] !== s[p[i - 1]]) classes++;
    c[p[i]] = classes - 1;
  }
  const pn = new Int32Array(n);
  let cn = new Int32Array(n);
  for (let h = 1; h < n && classes < n; h *= 2) {
    for (let i = 0; i < n; i++) {
      const v = p[i] - h;
      pn[i] = v < 0 ? v + n : v;
    }
    cnt.fill(0, 0, classes);
    for (let i = 0; i < n; i++) cnt[c[pn[i]]]++;
    for (let i = 1; i < classes; i++) cnt[i] += cnt[i - 1];
    for (let i = n - 1; i >= 0; i--) p[--cnt[c[pn[i]]]] = pn[i];
    cn[p[0]] = 0;
    classes = 1;
    for (let i = 1; i < n; i++) {
      const a = p[i];
      const b = p[i - 1];
      const a2 = a + h >= n ? a + h - n : a + h;
      const b2 = b + h >= n ? b + h - n : b + h;
      if (c[a] !== c[b] || c[a2] !== c[b2]) classes++;
      cn[a] = classes - 1;
    }
    [c, cn] = [cn, c];
  }
  return p;
}

/** Huffman code lengths for `freq`, none longer than `maxLen` (frequencies are flattened until they fit). */
function codeLengths(freq: Int32Array, maxLen: number): Uint8Array {
  const n = freq.length;
  const lengths = new Uint8Array(n);
  const weight = Array.from(freq, (f) => Math.max(1, f));
  for (;;) {
    // Package the two lightest nodes until one tree remains (n <= 258: a sorted list suffices).
    const parent = new Int32Array(2 * n).fill(-1);
    const nodes: { w: number; id: number }[] = weight.map((w, id) => ({ w, id }));
    let next = n;
    while (nodes.length > 1) {
      nodes.sort((a, b) => b.w - a.w || b.id - a.id);
      const x = nodes.pop()!;
      const y = nodes.pop()!;
      parent[x.id] = next;
      parent[y.id] = next;
      nodes.push({ w: x.w + y.w, id: next++ });
    }
    let longest = 0;
    for (let i = 0; i < n; i++) {
      let d = 0;
      for (let k = i; parent[k] >= 0; k = parent[k]) d++;
      lengths[i] = d;
      if (d > longest) longest = d;
    }
    if (longest <= maxLen) return lengths;
    for (let i = 0; i < n; i++) weight[i] = 1 + (weight[i] >> 1);
  }
}

/** Encodes one block of run-length-encoded bytes `block[0..n)`. */
function writeBlock(w: BitWriter, block: Uint8Array, n: number, crc: number): void {
  const order = sortRotations(block, n);
  let origPtr = 0;
  const bwt = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const start = order[i];
    if (start === 0) origPtr = i;
    bwt[i] = block[start === 0 ? n - 1 : start - 1];
  }

  const inUse = new Uint8Array(256);
  for (let i = 0; i < n; i++) inUse[bwt[i]] = 1;
  const unseqToSeq = new Uint8Array(256);
  let nInUse = 0;
  for (let b = 0; b < 256; b++) if (inUse[b]) unseqToSeq[b] = nInUse++;
  const eob = nInUse + 1;
  const alphaSize = nInUse + 2;

  // Move-to-front, zero runs as RUNA (0) / RUNB (1), index j as j + 1.
  const syms = new Uint16Array(n + 1);
  let count = 0;
  const mtf = new Uint8Array(256);
  for (let i = 0; i < 256; i++) mtf[i] = i;
  let zeros = 0;
  const flushZeros = () => {
    let z = zeros - 1;
    for (;;) {
      syms[count++] = z & 1;
      if (z < 2) break;
      z = (z - 2) >> 1;
    }
    zeros = 0;
  };
  for (let i = 0; i < n; i++) {
    const v = unseqToSeq[bwt[i]];
    let j = 0;
    while (mtf[j] !== v) j++;
    if (j === 0) {
      zeros++;
      continue;
    }
    if (zeros > 0) flushZeros();
    mtf.copyWithin(1, 0, j);
    mtf[0] = v;
    syms[count++] = j + 1;
  }
  if (zeros > 0) flushZeros();
  syms[count++] = eob;

  const freq = new Int32Array(alphaSize);
  for (let i = 0; i < count; i++) freq[syms[i]]++;
  const lengths = codeLengths(freq, 17);
  const codes = new Int32Array(alphaSize);
  let code = 0;
  for (let len = 1; len <= 17; len++) {
    for (let s = 0; s < alphaSize; s++) if (lengths[s] === len) codes[s] = code++;
    code <<= 1;
  }

  w.write(24, 0x314159);
  w.write(24, 0x265359);
  w.write32(crc);
  w.write(1, 0);
  w.write(24, origPtr);
  let ranges = 0;
  for (let r = 0; r < 16; r++)
    for (let k = 0; k < 16; k++) if (inUse[r * 16 + k]) ranges |= 0x8000 >>> r;
  w.write(16, ranges);
  for (let r = 0; r < 16; r++) {
    if (!(ranges & (0x8000 >>> r))) continue;
    let used = 0;
    for (let k = 0; k < 16; k++) if (inUse[r * 16 + k]) used |= 0x8000 >>> k;
    w.write(16, used);
  }
  const nSelectors = Math.ceil(count / 50);
  w.write(3, 2);
  w.write(15, nSelectors);
  for (let i = 0; i < nSelectors; i++) w.write(1, 0);
  for (let t = 0; t < 2; t++) {
    let cur = lengths[0];
    w.write(5, cur);
    for (let s = 0; s < alphaSize; s++) {
      while (cur < lengths[s]) {
        w.write(2, 2);
        cur++;
      }
      while (cur > lengths[s]) {
        w.write(2, 3);
        cur--;
      }
      w.write(1, 0);
    }
  }
  for (let i = 0; i < count; i++) w.write(lengths[syms[i]], codes[syms[i]]);
}

/** Compresses `data` as one bzip2 stream with blocks of up to `level` × 100 kB. */
export function bzip2Compress(data: Uint8Array, level: number): Uint8Array {
  const w = new BitWriter();
  w.write(8, 0x42);
  w.write(8, 0x5a);
  w.write(8, 0x68);
  w.write(8, 0x30 + level);
  const capacity = level * 100000 - 19;
  const block = new Uint8Array(capacity);
  const crcTable = bzip2CrcTable();
  let combined = 0;
  let i = 0;
  while (i < data.length) {
    // Run-length encode into the block: 4 equal bytes, then a count of 0..255 more.
    let n = 0;
    let crc = 0xffffffff;
    while (i < data.length && n + 5 <= capacity) {
      const b = data[i];
      let run = 1;
      while (run < 259 && i + run < data.length && data[i + run] === b) run++;
      for (let k = 0; k < run; k++) crc = (crc << 8) ^ crcTable[((crc >>> 24) ^ b) & 0xff];
      if (run >= 4) {
        block.fill(b, n, n + 4);
        block[n + 4] = run - 4;
        n += 5;
      } else {
        block.fill(b, n, n + run);
        n += run;
      }
      i += run;
    }
    crc = ~crc >>> 0;
    writeBlock(w, block, n, crc);
    combined = (((combined << 1) | (combined >>> 31)) ^ crc) >>> 0;
  }
  w.write(24, 0x177245);
  w.write(24, 0x385090);
  w.write32(combined);
  return w.finish();
}

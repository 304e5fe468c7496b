/**
 * bzip2 decompression (the format of bzip2 1.0 / libbzip2): one or more
 * concatenated streams of Huffman-coded, move-to-front and run-length encoded
 * Burrows-Wheeler blocks, each verified by its CRC and the stream CRC.
 *
 * Every length is checked against the input and the output limit before use:
 * a block may not exceed the stream's declared block size nor what the output
 * limit can hold, so memory stays within `limit` plus one block.
 *
 * @module
 */
import { bzip2CrcTable } from "./crc.js";
import { corrupt, Output } from "./output.js";

const CODEC = "bz2";
const BLOCK_MAGIC_HI = 0x314159;
const BLOCK_MAGIC_LO = 0x265359;
const END_MAGIC_HI = 0x177245;
const END_MAGIC_LO = 0x385090;
const GROUP_SIZE = 50;
const MAX_SELECTORS = 18002;
const MAX_CODE_LEN = 20;

/** Reads bits most significant first. */
class BitReader {
  pos = 0;
  private bits = 0;
  private count = 0;

  constructor(
    readonly input: Uint8Array,
    readonly path: string,
  ) {}

  read(n: number): number {
    while (this.count < n) {
      if (this.pos >= this.input.length) throw corrupt(this.path, CODEC, "unexpected end of data");
      this.bits = (this.bits << 8) | this.input[this.pos++];
      this.count += 8;
    }
    this.count -= n;
    return (this.bits >>> this.count) & ((1 << n) - 1);
  }

  bit(): number {
    if (this.count === 0) {
      if (this.pos >= this.input.length) throw corrupt(this.path, CODEC, "unexpected end of data");
      this.bits = this.input[this.pos++];
      this.count = 8;
    }
    this.count--;
    return (this.bits >>> this.count) & 1;
  }

  /** Drops the bits left in the current byte. */
  align(): void {
    this.count = 0;
  }
}

/** A canonical Huffman code, decoded a bit at a time with per-length ranges. */
interface HuffmanTable {
  minLen: number;
  maxLen: number;
  /** First code of each length. */
  first: Int32Array;
  /** Number of codes of each length. */
  count: Int32Array;
  /** Index into `symbols` of the first symbol of each length. */
  offset: Int32Array;
  symbols: Uint16Array;
}

function buildTable(lengths: Uint8Array, alphaSize: number): HuffmanTable {
  const count = new Int32Array(MAX_CODE_LEN + 2);
  let minLen = MAX_CODE_LEN;
  let maxLen = 0;
  for (let i = 0; i < alphaSize; i++) {
    count[lengths[i]]++;
    if (lengths[i] < minLen) minLen = lengths[i];
    if (lengths[i] > maxLen) maxLen = lengths[i];
  }
  const first = new Int32Array(MAX_CODE_LEN + 2);
  const offset = new Int32Array(MAX_CODE_LEN + 2);
  let code = 0;
  let index = 0;
  for (let len = 1; len <= MAX_CODE_LEN; len++) {
    first[len] = code;
    offset[len] = index;
    code = (code + count[len]) << 1;
    index += count[len];
  }
  const next = offset.slice();
  const symbols = new Uint16Array(alphaSize);
  for (let s = 0; s < alphaSize; s++) symbols[next[lengths[s]]++] = s;
  return { minLen, maxLen, first, count, offset, symbols };
}

function decodeSymbol(r: BitReader, t: HuffmanTable): number {
  let len = t.minLen;
  let code = r.read(len);
  for (;;) {
    const d = code - t.first[len];
    if (d >= 0 && d < t.count[len]) return t.symbols[t.offset[len] + d];
    if (++len > t.maxLen) throw corrupt(r.path, CODEC, "invalid Huffman code");
    code = (code << 1) | r.bit();
  }
}

/** Working memory reused across the blocks of one call. */
interface Scratch {
  tt: Uint32Array;
}

/**
 * Decodes one block into `out`, returning its CRC as computed over the output.
 * `maxBlock` bounds the block's BWT size (the stream's level and the output room).
 */
function decodeBlock(r: BitReader, out: Output, maxBlock: number, scratch: Scratch): number {
  const path = r.path;
  if (r.bit()) throw corrupt(path, CODEC, "randomised blocks (bzip2 0.9.0) are not supported");
  const origPtr = r.read(24);

  // Symbols in use: a 16-bit map of 16-symbol ranges, then each range's map.
  const seqToUnseq = new Uint8Array(256);
  let numInUse = 0;
  const ranges = r.read(16);
  for (let i = 0; i < 16; i++) {
    if (!(ranges & (0x8000 >>> i))) continue;
    const used = r.read(16);
    for (let j = 0; j < 16; j++) if (used & (0x8000 >>> j)) seqToUnseq[numInUse++] = i * 16 + j;
  }
  if (numInUse === 0) throw corrupt(path, CODEC, "block uses no symbols");
  const alphaSize = numInUse + 2;

  const nGroups = r.read(3);
  if (nGroups < 2 || nGroups > 6) throw corrupt(path, CODEC, `${nGroups} Huffman tables (2..6)`);
  const nSelectors = r.read(15);
  if (nSelectors < 1) throw corrupt(path, CODEC, "no selectors");
  // Selectors are move-to-front coded in unary; libbzip2 ignores those past 18002.
  const mtfGroups = [0, 1, 2, 3, 4, 5].slice(0, nGroups);
  const selectors = new Uint8Array(Math.min(nSelectors, MAX_SELECTORS));
  for (let i = 0; i < nSelectors; i++) {
    let j = 0;
    while (r.bit()) if (++j >= nGroups) throw corrupt(path, CODEC, "selector out of range");
    const g = mtfGroups[j];
    mtfGroups.splice(j, 1);
    mtfGroups.unshift(g);
    if (i < MAX_SELECTORS) selectors[i] = g;
  }

  // Code lengths: delta coded from a 5-bit start.
  const tables: HuffmanTable[] = [];
  const lengths = new Uint8Array(alphaSize);
  for (let g = 0; g < nGroups; g++) {
    let len = r.read(5);
    for (let s = 0; s < alphaSize; s++) {
      for (;;) {
        if (len < 1 || len > MAX_CODE_LEN) throw corrupt(path, CODEC, `code length ${len}`);
        if (!r.bit()) break;
        len += r.bit() ? -1 : 1;
      }
      lengths[s] = len;
    }
    tables.push(buildTable(lengths, alphaSize));
  }

  // Symbols: runs of the front symbol (RUNA/RUNB in bijective base 2), MTF indices, EOB.
  if (scratch.tt.length < maxBlock) scratch.tt = new Uint32Array(maxBlock);
  const tt = scratch.tt;
  const unzftab = new Int32Array(256);
  const mtf = new Uint8Array(256);
  for (let i = 0; i < 256; i++) mtf[i] = i;
  const eob = numInUse + 1;
  let nblock = 0;
  let selector = 0;
  let groupLeft = 0;
  let table = tables[0];
  let run = 0;
  let runBit = 1;
  for (;;) {
    if (groupLeft === 0) {
      if (selector >= selectors.length) throw corrupt(path, CODEC, "ran out of selectors");
      table = tables[selectors[selector++]];
      groupLeft = GROUP_SIZE;
    }
    groupLeft--;
    const sym = decodeSymbol(r, table);
    if (sym <= 1) {
      run += sym === 0 ? runBit : 2 * runBit;
      runBit *= 2;
      if (run > maxBlock) throw corrupt(path, CODEC, `block longer than ${maxBlock} bytes`);
      continue;
    }
    if (run > 0) {
      if (nblock + run > maxBlock)
        throw corrupt(path, CODEC, `block longer than ${maxBlock} bytes`);
      const b = seqToUnseq[mtf[0]];
      unzftab[b] += run;
      tt.fill(b, nblock, nblock + run);
      nblock += run;
      run = 0;
      runBit = 1;
    }
    if (sym === eob) break;
    if (nblock >= maxBlock) throw corrupt(path, CODEC, `block longer than ${maxBlock} bytes`);
    const idx = sym - 1;
    const v = mtf[idx];
    mtf.copyWithin(1, 0, idx);
    mtf[0] = v;
    const b = seqToUnseq[v];
    unzftab[b]++;
    tt[nblock++] = b;
  }
  if (origPtr >= nblock)
    throw corrupt(path, CODEC, `origin ${origPtr} outside a block of ${nblock}`);

  // Inverse BWT: link each position to its successor (byte in the low 8 bits).
  const cftab = new Int32Array(256);
  for (let i = 0, sum = 0; i < 256; i++) {
    cftab[i] = sum;
    sum += unzftab[i];
  }
  for (let i = 0; i < nblock; i++) {
    const b = tt[i] & 0xff;
    tt[cftab[b]++] |= i << 8;
  }

  // Undo the initial run-length encoding (4 equal bytes then a repeat count) and CRC it.
  const crcTable = bzip2CrcTable();
  let crc = 0xffffffff;
  let pos = tt[origPtr] >>> 8;
  let last = -1;
  let same = 0;
  for (let i = 0; i < nblock; i++) {
    const entry = tt[pos];
    const b = entry & 0xff;
    pos = entry >>> 8;
    if (same === 4) {
      out.reserve(b);
      out.buf.fill(last, out.length, out.length + b);
      out.length += b;
      for (let k = 0; k < b; k++) crc = (crc << 8) ^ crcTable[((crc >>> 24) ^ last) & 0xff];
      same = 0;
      continue;
    }
    if (b === last) same++;
    else {
      same = 1;
      last = b;
    }
    out.reserve(1);
    out.buf[out.length++] = b;
    crc = (crc << 8) ^ crcTable[((crc >>> 24) ^ b) & 0xff];
  }
  return ~crc >>> 0;
}

/**
 * Decompresses bzip2 data (one or more concatenated streams, as Python's
 * `bz2.decompress` accepts). More than `limit` decoded bytes is a `CodecError`;
 * `exact` allocates the output once when its size is known.
 */
export function bzip2Decompress(
  input: Uint8Array,
  limit: number,
  path: string,
  exact?: number,
): Uint8Array {
  const out = new Output(
    limit,
    path,
    CODEC,
    exact !== undefined && exact <= limit ? exact : undefined,
  );
  const r = new BitReader(input, path);
  const scratch: Scratch = { tt: new Uint32Array(0) };
  do {
    if (r.read(8) !== 0x42 || r.read(8) !== 0x5a || r.read(8) !== 0x68)
      throw corrupt(path, CODEC, "missing the BZh stream header");
    const level = r.read(8) - 0x30;
    if (level < 1 || level > 9) throw corrupt(path, CODEC, `block size digit ${level} (1..9)`);
    let combined = 0;
    for (;;) {
      const hi = r.read(24);
      const lo = r.read(24);
      const stored = ((r.read(16) << 16) | r.read(16)) >>> 0;
      if (hi === END_MAGIC_HI && lo === END_MAGIC_LO) {
        if (stored !== combined) throw corrupt(path, CODEC, "stream CRC mismatch");
        break;
      }
      if (hi !== BLOCK_MAGIC_HI || lo !== BLOCK_MAGIC_LO)
        throw corrupt(path, CODEC, "bad block signature");
      // A block of n BWT bytes decodes to at least 4n/5 bytes: bound it by the room left too.
      const room = out.limit - out.length;
      const maxBlock = Math.min(level * 100000, Math.floor((room * 5) / 4) + 5);
      const crc = decodeBlock(r, out, maxBlock, scratch);
      if (crc !== stored) throw corrupt(path, CODEC, "block CRC mismatch");
      combined = (((combined << 1) | (combined >>> 31)) ^ crc) >>> 0;
    }
    r.align();
  } while (r.pos < input.length);
  return out.result();
}

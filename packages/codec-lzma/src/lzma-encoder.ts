/**
 * A greedy LZMA encoder: hash-chain match finding, repeated-distance matches
 * preferred when as long, and a range encoder mirroring `lzma-decode.ts` bit
 * for bit. It emits LZMA1 (with an end marker) or LZMA2 chunks; the output is
 * what liblzma decodes, not byte-identical to liblzma's own encoder.
 *
 * @module
 */
import { ByteSink } from "@zarr/core/codec";
import type { LzmaProps } from "./lzma-decode.js";

/** The range encoder: `low` is a 33-bit value kept as a double. */
class RangeEncoder {
  private low = 0;
  private range = 0xffffffff;
  private cache = 0;
  private cacheSize = 1;

  constructor(readonly out: ByteSink) {}

  private shiftLow(): void {
    if (this.low < 0xff000000 || this.low >= 0x100000000) {
      const carry = this.low >= 0x100000000 ? 1 : 0;
      let temp = this.cache;
      do {
        this.out.push((temp + carry) & 0xff);
        temp = 0xff;
      } while (--this.cacheSize !== 0);
      this.cache = Math.floor(this.low / 0x1000000) & 0xff;
    }
    this.cacheSize++;
    this.low = (this.low % 0x1000000) * 256;
  }

  bit(probs: Uint16Array, i: number, b: number): void {
    const p = probs[i];
    const bound = (this.range >>> 11) * p;
    if (b === 0) {
      this.range = bound;
      probs[i] = p + ((2048 - p) >>> 5);
    } else {
      this.low += bound;
      this.range -= bound;
      probs[i] = p - (p >>> 5);
    }
    while (this.range < 0x1000000) {
      this.range = (this.range << 8) >>> 0;
      this.shiftLow();
    }
  }

  direct(value: number, n: number): void {
    for (let i = n - 1; i >= 0; i--) {
      this.range >>>= 1;
      if ((value >>> i) & 1) this.low += this.range;
      while (this.range < 0x1000000) {
        this.range = (this.range << 8) >>> 0;
        this.shiftLow();
      }
    }
  }

  tree(probs: Uint16Array, base: number, n: number, value: number): void {
    let m = 1;
    for (let i = n - 1; i >= 0; i--) {
      const b = (value >>> i) & 1;
      this.bit(probs, base + m, b);
      m = (m << 1) | b;
    }
  }

  reverseTree(probs: Uint16Array, base: number, n: number, value: number): void {
    let m = 1;
    for (let i = 0; i < n; i++) {
      const b = (value >>> i) & 1;
      this.bit(probs, base + m, b);
      m = (m << 1) | b;
    }
  }

  finish(): void {
    for (let i = 0; i < 5; i++) this.shiftLow();
  }
}

const PROB_INIT = 1024;
const MIN_MATCH = 2;
const MAX_MATCH = 273;
const HASH_BITS = 16;

class LengthEncoder {
  readonly probs = new Uint16Array(2 + 16 * 8 * 2 + 256);

  reset(): void {
    this.probs.fill(PROB_INIT);
  }

  encode(rc: RangeEncoder, len: number, posState: number): void {
    const p = this.probs;
    if (len < 8) {
      rc.bit(p, 0, 0);
      rc.tree(p, 2 + posState * 8 - 1, 3, len);
    } else if (len < 16) {
      rc.bit(p, 0, 1);
      rc.bit(p, 1, 0);
      rc.tree(p, 130 + posState * 8 - 1, 3, len - 8);
    } else {
      rc.bit(p, 0, 1);
      rc.bit(p, 1, 1);
      rc.tree(p, 258 - 1, 8, len - 16);
    }
  }
}

/** How hard to look for matches: chain depth per preset level. */
function chainDepth(preset: number): number {
  return preset <= 1 ? 4 : preset <= 3 ? 8 : preset <= 6 ? 16 : 48;
}

/** The encoder over one input buffer; `encode` may be called for consecutive ranges (LZMA2 chunks). */
export class LzmaEncoder {
  private readonly literal: Uint16Array;
  private readonly isMatch = new Uint16Array(192);
  private readonly isRep = new Uint16Array(12);
  private readonly isRepG0 = new Uint16Array(12);
  private readonly isRepG1 = new Uint16Array(12);
  private readonly isRepG2 = new Uint16Array(12);
  private readonly isRep0Long = new Uint16Array(192);
  private readonly posSlot = new Uint16Array(4 * 64);
  private readonly posSpecial = new Uint16Array(115);
  private readonly align = new Uint16Array(16);
  private readonly lenEnc = new LengthEncoder();
  private readonly repLenEnc = new LengthEncoder();
  private state = 0;
  private readonly reps = [0, 0, 0, 0];
  private readonly head = new Int32Array(1 << HASH_BITS).fill(-1);
  private readonly prev: Int32Array;
  /** Next position whose hash is not yet inserted. */
  private hashed = 0;
  private readonly depth: number;

  constructor(
    readonly data: Uint8Array,
    readonly props: LzmaProps,
    /** Largest match distance allowed (the dictionary size). */
    readonly dictSize: number,
    preset: number,
  ) {
    this.literal = new Uint16Array(0x300 << (props.lc + props.lp));
    this.prev = new Int32Array(data.length);
    this.depth = chainDepth(preset);
    this.resetState();
  }

  resetState(): void {
    for (const p of [this.literal, this.isMatch, this.isRep, this.isRepG0, this.isRepG1])
      p.fill(PROB_INIT);
    for (const p of [this.isRepG2, this.isRep0Long, this.posSlot, this.posSpecial, this.align])
      p.fill(PROB_INIT);
    this.lenEnc.reset();
    this.repLenEnc.reset();
    this.state = 0;
    this.reps.fill(0);
  }

  private hash(i: number): number {
    const d = this.data;
    return Math.imul((d[i] << 16) | (d[i + 1] << 8) | d[i + 2], 0x9e3779b1) >>> (32 - HASH_BITS);
  }

  private insertUpTo(end: number): void {
    const limit = Math.min(end, this.data.length - 2);
    for (let i = this.hashed; i < limit; i++) {
      const h = this.hash(i);
      this.prev[i] = this.head[h];
      this.head[h] = i;
    }
    if (limit > this.hashed) this.hashed = limit;
  }

  private matchLength(i: number, dist: number, max: number): number {
    const d = this.data;
    let n = 0;
    while (n < max && d[i + n] === d[i + n - dist]) n++;
    return n;
  }

  /** Encodes `data[start..end)` (whose history is `data[0..start)`), optionally ending with the end marker. */
  encode(rc: RangeEncoder, start: number, end: number, endMarker: boolean): void {
    const d = this.data;
    const pbMask = (1 << this.props.pb) - 1;
    const lpMask = (1 << this.props.lp) - 1;
    const lc = this.props.lc;
    let i = start;
    while (i < end) {
      const max = Math.min(MAX_MATCH, end - i);
      this.insertUpTo(i);
      // Best repeated-distance match, then the best hash-chain match.
      let repLen = 0;
      let repIndex = 0;
      for (let r = 0; r < 4; r++) {
        const dist = this.reps[r] + 1;
        if (dist > i) continue;
        const n = this.matchLength(i, dist, max);
        if (n > repLen) {
          repLen = n;
          repIndex = r;
        }
      }
      let mainLen = 0;
      let mainDist = 0;
      if (max >= 3 && i + 2 < d.length) {
        let cand = this.head[this.hash(i)];
        for (let k = 0; k < this.depth && cand >= 0; k++) {
          const dist = i - cand;
          if (dist > this.dictSize) break;
          if (d[cand + mainLen] === d[i + mainLen]) {
            const n = this.matchLength(i, dist, max);
            if (n > mainLen) {
              mainLen = n;
              mainDist = dist;
              if (n === max) break;
            }
          }
          cand = this.prev[cand];
        }
        if (mainLen === 3 && mainDist > 1 << 16) mainLen = 0;
      }
      const posState = i & pbMask;
      const state = this.state;
      if (repLen >= MIN_MATCH && repLen + 1 >= mainLen) {
        this.encodeRep(rc, repIndex, repLen, posState);
        i += repLen;
      } else if (mainLen >= 3) {
        rc.bit(this.isMatch, (state << 4) + posState, 1);
        rc.bit(this.isRep, state, 0);
        this.lenEnc.encode(rc, mainLen - MIN_MATCH, posState);
        this.state = state < 7 ? 7 : 10;
        this.encodeDistance(rc, mainDist - 1, mainLen - MIN_MATCH);
        this.reps[3] = this.reps[2];
        this.reps[2] = this.reps[1];
        this.reps[1] = this.reps[0];
        this.reps[0] = mainDist - 1;
        i += mainLen;
      } else {
        rc.bit(this.isMatch, (state << 4) + posState, 0);
        const prev = i > 0 ? d[i - 1] : 0;
        const base = 0x300 * (((i & lpMask) << lc) + (prev >>> (8 - lc)));
        const byte = d[i];
        let sym = 1;
        let bitIndex = 7;
        if (state >= 7) {
          let match = d[i - this.reps[0] - 1];
          do {
            const mbit = (match >>> 7) & 1;
            match <<= 1;
            const b = (byte >>> bitIndex--) & 1;
            rc.bit(this.literal, base + ((1 + mbit) << 8) + sym, b);
            sym = (sym << 1) | b;
            if (b !== mbit) break;
          } while (sym < 0x100);
        }
        while (sym < 0x100) {
          const b = (byte >>> bitIndex--) & 1;
          rc.bit(this.literal, base + sym, b);
          sym = (sym << 1) | b;
        }
        this.state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
        i += 1;
      }
    }
    if (endMarker) {
      const posState = i & pbMask;
      const state = this.state;
      rc.bit(this.isMatch, (state << 4) + posState, 1);
      rc.bit(this.isRep, state, 0);
      this.lenEnc.encode(rc, 0, posState);
      this.state = state < 7 ? 7 : 10;
      this.encodeDistance(rc, 0xffffffff, 0);
    }
  }

  private encodeRep(rc: RangeEncoder, index: number, len: number, posState: number): void {
    const state = this.state;
    rc.bit(this.isMatch, (state << 4) + posState, 1);
    rc.bit(this.isRep, state, 1);
    if (index === 0) {
      rc.bit(this.isRepG0, state, 0);
      rc.bit(this.isRep0Long, (state << 4) + posState, 1);
    } else {
      rc.bit(this.isRepG0, state, 1);
      const dist = this.reps[index];
      if (index === 1) rc.bit(this.isRepG1, state, 0);
      else {
        rc.bit(this.isRepG1, state, 1);
        rc.bit(this.isRepG2, state, index === 2 ? 0 : 1);
        if (index === 3) this.reps[3] = this.reps[2];
        this.reps[2] = this.reps[1];
      }
      this.reps[1] = this.reps[0];
      this.reps[0] = dist;
    }
    this.repLenEnc.encode(rc, len - MIN_MATCH, posState);
    this.state = state < 7 ? 8 : 11;
  }

  private encodeDistance(rc: RangeEncoder, dist: number, len: number): void {
    const lenState = len < 4 ? len : 3;
    let slot: number;
    if (dist < 4) slot = dist;
    else {
      const top = 31 - Math.clz32(dist);
      slot = 2 * top + ((dist >>> (top - 1)) & 1);
    }
    rc.tree(this.posSlot, lenState * 64 - 1, 6, slot);
    if (slot < 4) return;
    const bits = (slot >>> 1) - 1;
    const base = (2 | (slot & 1)) * 2 ** bits;
    const reduced = dist - base;
    if (slot < 14) rc.reverseTree(this.posSpecial, base - slot, bits, reduced);
    else {
      rc.direct(Math.floor(reduced / 16), bits - 4);
      rc.reverseTree(this.align, 0, 4, reduced & 15);
    }
  }

  /** LZMA1 of the whole input with an end marker. */
  static lzma1(
    data: Uint8Array,
    props: LzmaProps,
    dictSize: number,
    preset: number,
    out: ByteSink,
  ): void {
    const enc = new LzmaEncoder(data, props, dictSize, preset);
    const rc = new RangeEncoder(out);
    enc.encode(rc, 0, data.length, true);
    rc.finish();
  }

  /**
   * LZMA2 chunks of the whole input (lc=3, lp=0, pb=2), each LZMA-compressed
   * unless storing it is smaller, then the end byte.
   */
  static lzma2(data: Uint8Array, dictSize: number, preset: number, out: ByteSink): void {
    const props = { lc: 3, lp: 0, pb: 2 };
    const enc = new LzmaEncoder(data, props, dictSize, preset);
    const CHUNK = 1 << 16;
    let needProps = true;
    let needReset = false;
    let first = true;
    for (let start = 0; start < data.length; start += CHUNK) {
      const end = Math.min(data.length, start + CHUNK);
      if (needProps || needReset) enc.resetState();
      const sink = new ByteSink();
      const rc = new RangeEncoder(sink);
      enc.encode(rc, start, end, false);
      rc.finish();
      const unpacked = end - start;
      if (sink.length <= 1 << 16 && sink.length < unpacked) {
        const control = first ? 0xe0 : needProps ? 0xc0 : needReset ? 0xa0 : 0x80;
        const u = unpacked - 1;
        const p = sink.length - 1;
        out.push(control | (u >>> 16));
        out.push((u >>> 8) & 0xff);
        out.push(u & 0xff);
        out.push(p >>> 8);
        out.push(p & 0xff);
        if (control >= 0xc0) out.push((props.pb * 5 + props.lp) * 9 + props.lc);
        out.append(sink.bytes());
        needProps = false;
        needReset = false;
      } else {
        out.push(first ? 1 : 2);
        out.push((unpacked - 1) >>> 8);
        out.push((unpacked - 1) & 0xff);
        out.append(data.subarray(start, end));
        if (first) needProps = true;
        needReset = true;
      }
      first = false;
    }
    out.push(0);
  }
}

/**
 * LZMA and LZMA2 decoding (the algorithms of liblzma / the 7-Zip LZMA SDK):
 * a range decoder, the LZMA literal/match model, and LZMA2's chunk framing.
 *
 * The whole output serves as the dictionary (chunks are small), so a match
 * distance is checked against the bytes decoded since the last dictionary
 * reset and against the declared dictionary size, as liblzma does. Reading past
 * the input, a match past the end of its chunk, and output past the limit are
 * `CodecError`s; every loop iteration consumes input or produces output.
 *
 * @module
 */
import { corrupt, type Output } from "./output.js";

/** Literal context bits, literal position bits and position bits. */
export interface LzmaProps {
  lc: number;
  lp: number;
  pb: number;
}

/**
 * Parses the LZMA properties byte `(pb * 5 + lp) * 9 + lc`. Like liblzma,
 * rejects lc + lp > 4 (which also bounds the literal model to 24 KiB).
 */
export function parsePropsByte(b: number, path: string, codec: string): LzmaProps {
  if (b >= 9 * 5 * 5) throw corrupt(path, codec, `LZMA properties byte ${b} (< 225)`);
  const props = { lc: b % 9, lp: Math.floor(b / 9) % 5, pb: Math.floor(b / 45) };
  if (props.lc + props.lp > 4)
    throw corrupt(path, codec, `LZMA lc + lp is ${props.lc + props.lp} (at most 4)`);
  return props;
}

/** liblzma's effective window: the dictionary size rounded up to 16, at least 4 KiB. */
export function windowOf(dictSize: number): number {
  return Math.max(4096, Math.ceil(dictSize / 16) * 16);
}

/** A range decoder reading `input[pos..end)`. */
export class RangeDecoder {
  range = 0xffffffff;
  code = 0;
  pos: number;

  constructor(
    readonly input: Uint8Array,
    start: number,
    readonly end: number,
    readonly path: string,
    readonly codec: string,
  ) {
    if (end - start < 5) throw corrupt(path, codec, "LZMA data shorter than 5 bytes");
    if (input[start] !== 0) throw corrupt(path, codec, "LZMA data does not start with 0");
    this.code =
      ((input[start + 1] << 24) |
        (input[start + 2] << 16) |
        (input[start + 3] << 8) |
        input[start + 4]) >>>
      0;
    this.pos = start + 5;
    if (this.code === 0xffffffff) throw corrupt(path, codec, "invalid range coder start");
  }

  private next(): number {
    if (this.pos >= this.end) throw corrupt(this.path, this.codec, "unexpected end of LZMA data");
    return this.input[this.pos++];
  }

  /** Decodes one bit with the adaptive probability `probs[i]`. */
  bit(probs: Uint16Array, i: number): number {
    const p = probs[i];
    const bound = (this.range >>> 11) * p;
    let b: number;
    if (this.code < bound) {
      this.range = bound;
      probs[i] = p + ((2048 - p) >>> 5);
      b = 0;
    } else {
      this.range -= bound;
      this.code -= bound;
      probs[i] = p - (p >>> 5);
      b = 1;
    }
    if (this.range < 0x1000000) {
      this.range = (this.range << 8) >>> 0;
      this.code = ((this.code << 8) | this.next()) >>> 0;
    }
    return b;
  }

  /** `n` bits of probability one half. */
  direct(n: number): number {
    let res = 0;
    for (let i = 0; i < n; i++) {
      this.range >>>= 1;
      let b = 0;
      if (this.code >= this.range) {
        this.code -= this.range;
        b = 1;
      }
      res = res * 2 + b;
      if (this.range < 0x1000000) {
        this.range = (this.range << 8) >>> 0;
        this.code = ((this.code << 8) | this.next()) >>> 0;
      }
    }
    return res;
  }

  /** A bit tree of `n` bits at `probs[base + 1 ..]`, most significant bit first. */
  tree(probs: Uint16Array, base: number, n: number): number {
    let m = 1;
    for (let i = 0; i < n; i++) m = (m << 1) | this.bit(probs, base + m);
    return m - (1 << n);
  }

  /** A bit tree of `n` bits, least significant bit first. */
  reverseTree(probs: Uint16Array, base: number, n: number): number {
    let m = 1;
    let sym = 0;
    for (let i = 0; i < n; i++) {
      const b = this.bit(probs, base + m);
      m = (m << 1) | b;
      sym |= b << i;
    }
    return sym;
  }
}

const PROB_INIT = 1024;
const END_MARKER = 0xffffffff;

/** Length model: choice bits, 8 low and 8 mid symbols per position state, 256 high. */
class LengthModel {
  readonly probs = new Uint16Array(2 + 16 * 8 * 2 + 256);

  reset(): void {
    this.probs.fill(PROB_INIT);
  }

  /** A match length minus 2 (0..271). */
  decode(rc: RangeDecoder, posState: number): number {
    const p = this.probs;
    if (!rc.bit(p, 0)) return rc.tree(p, 2 + posState * 8 - 1, 3);
    if (!rc.bit(p, 1)) return 8 + rc.tree(p, 130 + posState * 8 - 1, 3);
    return 16 + rc.tree(p, 258 - 1, 8);
  }
}

/** The LZMA model state, kept across LZMA2 chunks until a state reset. */
export class LzmaDecoder {
  private lc = 0;
  private lp = 0;
  private pb = 0;
  private literal = new Uint16Array(0x300);
  private readonly isMatch = new Uint16Array(192);
  private readonly isRep = new Uint16Array(12);
  private readonly isRepG0 = new Uint16Array(12);
  private readonly isRepG1 = new Uint16Array(12);
  private readonly isRepG2 = new Uint16Array(12);
  private readonly isRep0Long = new Uint16Array(192);
  private readonly posSlot = new Uint16Array(4 * 64);
  private readonly posSpecial = new Uint16Array(115);
  private readonly align = new Uint16Array(16);
  private readonly lenModel = new LengthModel();
  private readonly repLenModel = new LengthModel();
  private state = 0;
  private rep0 = 0;
  private rep1 = 0;
  private rep2 = 0;
  private rep3 = 0;
  /** Output position of the last dictionary reset. */
  dictStart: number;

  constructor(
    readonly out: Output,
    readonly window: number,
    readonly path: string,
    readonly codec: string,
  ) {
    this.dictStart = out.length;
  }

  /** New properties (implies a state reset). */
  setProps(props: LzmaProps): void {
    this.lc = props.lc;
    this.lp = props.lp;
    this.pb = props.pb;
    const size = 0x300 << (props.lc + props.lp);
    if (this.literal.length !== size) this.literal = new Uint16Array(size);
    this.resetState();
  }

  resetState(): void {
    for (const p of [this.literal, this.isMatch, this.isRep, this.isRepG0, this.isRepG1])
      p.fill(PROB_INIT);
    for (const p of [this.isRepG2, this.isRep0Long, this.posSlot, this.posSpecial, this.align])
      p.fill(PROB_INIT);
    this.lenModel.reset();
    this.repLenModel.reset();
    this.state = 0;
    this.rep0 = this.rep1 = this.rep2 = this.rep3 = 0;
  }

  private distance(rc: RangeDecoder, len: number): number {
    const slot = rc.tree(this.posSlot, (len < 4 ? len : 3) * 64 - 1, 6);
    if (slot < 4) return slot;
    const bits = (slot >>> 1) - 1;
    let dist = (2 | (slot & 1)) * 2 ** bits;
    if (slot < 14) return dist + rc.reverseTree(this.posSpecial, dist - slot, bits);
    dist += rc.direct(bits - 4) * 16;
    return dist + rc.reverseTree(this.align, 0, 4);
  }

  /**
   * Decodes until the output reaches `stop` (exclusive bound on matches) or,
   * when `endMarker` allows it, until the end-of-payload marker. Returns true
   * when the marker was read.
   */
  decode(rc: RangeDecoder, stop: number, endMarker: boolean): boolean {
    const out = this.out;
    const pbMask = (1 << this.pb) - 1;
    const lpMask = (1 << this.lp) - 1;
    const lc = this.lc;
    while (out.length < stop || endMarker) {
      const pos = out.length - this.dictStart;
      const posState = pos & pbMask;
      const state = this.state;
      if (!rc.bit(this.isMatch, (state << 4) + posState)) {
        // Literal, matched against the byte at rep0 after a match.
        if (out.length >= stop) throw this.pastStop(stop);
        const prev = pos > 0 ? out.buf[out.length - 1] : 0;
        const base = 0x300 * (((pos & lpMask) << lc) + (prev >>> (8 - lc)));
        const probs = this.literal;
        let sym = 1;
        if (state >= 7) {
          let match = out.buf[out.length - this.rep0 - 1];
          do {
            const mbit = (match >>> 7) & 1;
            match <<= 1;
            const b = rc.bit(probs, base + ((1 + mbit) << 8) + sym);
            sym = (sym << 1) | b;
            if (b !== mbit) break;
          } while (sym < 0x100);
        }
        while (sym < 0x100) sym = (sym << 1) | rc.bit(probs, base + sym);
        out.reserve(1);
        out.buf[out.length++] = sym & 0xff;
        this.state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
        continue;
      }
      let len: number;
      if (!rc.bit(this.isRep, state)) {
        len = this.lenModel.decode(rc, posState);
        this.state = state < 7 ? 7 : 10;
        const dist = this.distance(rc, len);
        if (dist === END_MARKER) {
          if (!endMarker) throw corrupt(this.path, this.codec, "unexpected end marker");
          return true;
        }
        this.rep3 = this.rep2;
        this.rep2 = this.rep1;
        this.rep1 = this.rep0;
        this.rep0 = dist;
      } else {
        if (pos === 0) throw corrupt(this.path, this.codec, "repeated match before any data");
        if (!rc.bit(this.isRepG0, state)) {
          if (!rc.bit(this.isRep0Long, (state << 4) + posState)) {
            // Short rep: one byte from rep0.
            if (out.length >= stop) throw this.pastStop(stop);
            this.state = state < 7 ? 9 : 11;
            this.copy(1, stop);
            continue;
          }
        } else {
          let dist: number;
          if (!rc.bit(this.isRepG1, state)) dist = this.rep1;
          else {
            if (!rc.bit(this.isRepG2, state)) dist = this.rep2;
            else {
              dist = this.rep3;
              this.rep3 = this.rep2;
            }
            this.rep2 = this.rep1;
          }
          this.rep1 = this.rep0;
          this.rep0 = dist;
        }
        len = this.repLenModel.decode(rc, posState);
        this.state = state < 7 ? 8 : 11;
      }
      this.copy(len + 2, stop);
    }
    return false;
  }

  private pastStop(stop: number): Error {
    return corrupt(
      this.path,
      this.codec,
      stop >= this.out.limit
        ? `decoded data exceeds the expected ${this.out.limit} bytes`
        : "data past the declared size",
    );
  }

  private copy(len: number, stop: number): void {
    const out = this.out;
    const dist = this.rep0 + 1;
    const available = out.length - this.dictStart;
    if (dist > available || dist > this.window)
      throw corrupt(
        this.path,
        this.codec,
        `match distance ${dist} beyond the ${Math.min(available, this.window)} bytes of the window`,
      );
    if (out.length + len > stop) throw this.pastStop(stop);
    out.reserve(len);
    const buf = out.buf;
    let o = out.length;
    const end = o + len;
    if (dist >= len) buf.copyWithin(o, o - dist, end - dist);
    else for (; o < end; o++) buf[o] = buf[o - dist];
    out.length = end;
  }
}

/**
 * Decodes an LZMA2 chunk sequence from `input[pos..end)` into `dec.out`,
 * through its 0x00 end byte. Returns the position after it.
 */
export function decodeLzma2(dec: LzmaDecoder, input: Uint8Array, pos: number, end: number): number {
  const { path, codec, out } = dec;
  let needDictReset = true;
  let needProps = true;
  for (;;) {
    if (pos >= end) throw corrupt(path, codec, "LZMA2 data ends without its end byte");
    const control = input[pos++];
    if (control === 0) return pos;
    if (control >= 0xe0 || control === 1) {
      needProps = true;
      needDictReset = false;
      dec.dictStart = out.length;
    } else if (needDictReset)
      throw corrupt(path, codec, "first LZMA2 chunk does not reset the dictionary");
    if (control < 0x80) {
      if (control > 2) throw corrupt(path, codec, `LZMA2 control byte ${control}`);
      if (end - pos < 2) throw corrupt(path, codec, "truncated LZMA2 chunk header");
      const size = ((input[pos] << 8) | input[pos + 1]) + 1;
      pos += 2;
      if (end - pos < size) throw corrupt(path, codec, "truncated uncompressed LZMA2 chunk");
      out.reserve(size);
      out.buf.set(input.subarray(pos, pos + size), out.length);
      out.length += size;
      pos += size;
      continue;
    }
    if (end - pos < 4) throw corrupt(path, codec, "truncated LZMA2 chunk header");
    const unpacked = ((control & 0x1f) << 16) + (input[pos] << 8) + input[pos + 1] + 1;
    const packed = (input[pos + 2] << 8) + input[pos + 3] + 1;
    pos += 4;
    if (control >= 0xc0) {
      if (pos >= end) throw corrupt(path, codec, "truncated LZMA2 chunk header");
      const props = parsePropsByte(input[pos++], path, codec);
      dec.setProps(props);
      needProps = false;
    } else if (needProps) throw corrupt(path, codec, "LZMA2 chunk without properties");
    else if (control >= 0xa0) dec.resetState();
    if (end - pos < packed) throw corrupt(path, codec, "truncated LZMA2 chunk");
    out.reserve(0);
    if (out.length + unpacked > out.limit)
      throw corrupt(path, codec, `decoded data exceeds the expected ${out.limit} bytes`);
    const rc = new RangeDecoder(input, pos, pos + packed, path, codec);
    dec.decode(rc, out.length + unpacked, false);
    if (rc.pos !== pos + packed || rc.code !== 0)
      throw corrupt(path, codec, "LZMA2 chunk does not end where its header says");
    pos += packed;
  }
}

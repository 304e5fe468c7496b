/**
 * Little-endian bit unpacking (format spec: "All bit packing ... is done in a
 * little-endian fashion"): a value of `n` bits at bit `pos` is bits
 * `pos..pos+n` of the stream, least significant first.
 *
 * Reads past the end of the input yield zero bits (typed arrays return
 * `undefined`, which bit operators treat as 0); callers check
 * {@link BitReader.checkInBounds} after each bounded section, as Pco's own
 * reader does, so a truncated stream is an error and never an over-read.
 *
 * @module
 */
import { corrupt } from "./errors.js";

/** Masks of the low n bits, n = 0..32, as unsigned numbers. */
const MASKS = Uint32Array.from({ length: 33 }, (_, n) => (n === 32 ? 0xffffffff : 2 ** n - 1));

/** Reads `n` (0..32) bits at bit `pos` of `buf`. */
export function readBitsAt(buf: Uint8Array, pos: number, n: number): number {
  const i = pos >>> 3;
  const s = pos & 7;
  let v = (buf[i] | (buf[i + 1] << 8) | (buf[i + 2] << 16) | (buf[i + 3] << 24)) >>> s;
  if (s + n > 32) v |= buf[i + 4] << (32 - s);
  return (v & MASKS[n]) >>> 0;
}

/** A cursor over a byte array, reading bit-packed unsigned integers. */
export class BitReader {
  /** The bit position. */
  pos: number;
  /** The high 32 bits of the last {@link read64}. */
  hi = 0;
  readonly bitLength: number;

  constructor(
    readonly buf: Uint8Array,
    byteOffset = 0,
  ) {
    this.pos = byteOffset * 8;
    this.bitLength = buf.length * 8;
  }

  /** Bits left before the end of the input. */
  get remaining(): number {
    return this.bitLength - this.pos;
  }

  /** Reads `n` (0..32) bits. */
  read(n: number): number {
    const v = readBitsAt(this.buf, this.pos, n);
    this.pos += n;
    return v;
  }

  /** Reads `n` (0..64) bits: returns the low 32, leaves the high 32 in {@link hi}. */
  read64(n: number): number {
    if (n <= 32) {
      this.hi = 0;
      return this.read(n);
    }
    const lo = readBitsAt(this.buf, this.pos, 32);
    this.hi = readBitsAt(this.buf, this.pos + 32, n - 32);
    this.pos += n;
    return lo;
  }

  /** Throws unless `bits` more bits are present (checked before large allocations). */
  require(bits: number, what: string): void {
    if (bits > this.remaining) {
      corrupt(`truncated: ${what} needs ${Math.ceil(bits / 8)} more bytes than the stream has`);
    }
  }

  /** Throws if the cursor has passed the end of the input. */
  checkInBounds(what: string): void {
    if (this.pos > this.bitLength) corrupt(`truncated stream (in ${what})`);
  }

  /** Reads `n` whole bytes at a byte boundary. */
  readAlignedBytes(n: number, what: string): Uint8Array {
    if (this.pos & 7) corrupt(`${what} is not byte-aligned`);
    this.require(n * 8, what);
    const start = this.pos >>> 3;
    this.pos += n * 8;
    return this.buf.subarray(start, start + n);
  }

  /**
   * Moves to the next byte boundary; the skipped bits must be 0 (Pco's
   * `drain_empty_byte`: "0s until byte-aligned").
   */
  drainEmptyByte(what: string): void {
    this.checkInBounds(what);
    const s = this.pos & 7;
    if (s === 0) return;
    if (this.buf[this.pos >>> 3] >>> s !== 0) corrupt(`nonzero padding bits after ${what}`);
    this.pos += 8 - s;
  }
}

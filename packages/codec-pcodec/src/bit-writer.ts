/**
 * Little-endian bit packing, the inverse of {@link BitReader}: a growable
 * buffer of 32-bit words.
 *
 * @module
 */

/** Appends bit-packed unsigned integers to a growing byte buffer. */
export class BitWriter {
  #buf: Uint8Array;
  /** The bit position. */
  pos = 0;

  constructor(initialBytes = 1024) {
    this.#buf = new Uint8Array(Math.max(16, initialBytes));
  }

  #ensure(bits: number): void {
    const needed = ((this.pos + bits) >>> 3) + 9;
    if (needed <= this.#buf.length) return;
    const next = new Uint8Array(Math.max(needed, this.#buf.length * 2));
    next.set(this.#buf);
    this.#buf = next;
  }

  /** Writes the low `n` (0..32) bits of `value`. */
  write(value: number, n: number): void {
    if (n > 24) {
      this.write(value & 0xffff, 16);
      this.write(value >>> 16, n - 16);
      return;
    }
    if (n === 0) return;
    if (((this.pos + n) >>> 3) + 8 > this.#buf.length) this.#ensure(n);
    const buf = this.#buf;
    const i = this.pos >>> 3;
    // n <= 24 and a shift <= 7 fit in 31 bits; bytes past the cursor are still 0.
    const v = (value & ((1 << n) - 1)) << (this.pos & 7);
    buf[i] |= v;
    buf[i + 1] = v >>> 8;
    buf[i + 2] = v >>> 16;
    buf[i + 3] = v >>> 24;
    this.pos += n;
  }

  /** Writes the low `n` (0..64) bits of the unsigned 64-bit value `hi:lo`. */
  write64(lo: number, hi: number, n: number): void {
    if (n <= 32) this.write(lo, n);
    else {
      this.write(lo, 32);
      this.write(hi, n - 32);
    }
  }

  /** Pads with 0 bits to the next byte boundary. */
  finishByte(): void {
    this.pos = (this.pos + 7) & ~7;
  }

  /** Appends whole bytes (at a byte boundary). */
  writeBytes(bytes: ArrayLike<number>): void {
    this.finishByte();
    this.#ensure(bytes.length * 8);
    this.#buf.set(bytes, this.pos >>> 3);
    this.pos += bytes.length * 8;
  }

  /** The bytes written (the last byte zero-padded). */
  bytes(): Uint8Array {
    return this.#buf.slice(0, (this.pos + 7) >>> 3);
  }
}

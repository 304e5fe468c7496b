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
    if (n === 0) return;
    this.#ensure(n);
    const buf = this.#buf;
    let v = n === 32 ? value >>> 0 : (value & (2 ** n - 1)) >>> 0;
    let i = this.pos >>> 3;
    const s = this.pos & 7;
    this.pos += n;
    // Merge into the partial byte, then whole bytes.
    buf[i] |= (v << s) & 0xff;
    let written = 8 - s;
    v = written >= 32 ? 0 : Math.floor(v / 2 ** written);
    while (written < n) {
      buf[++i] = v & 0xff;
      v = Math.floor(v / 256);
      written += 8;
    }
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

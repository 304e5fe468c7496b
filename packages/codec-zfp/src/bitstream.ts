/**
 * zfp's bit stream: bits are written and read least significant first, in
 * consecutive little-endian words, so bit `i` of a stream is bit `i % 8` of
 * byte `i / 8` whatever the word size libzfp was built with. The word size
 * only decides how far the final flush pads with zeros (to 8 bits on Debian's
 * build, to 64 on libzfp's default build).
 *
 * @module
 */

/** Appends bits to a growing byte buffer (32 bits at a time). */
export class BitWriter {
  #bytes: Uint8Array;
  /** Bytes of whole 32-bit words written. */
  #length = 0;
  /** Pending bits (fewer than 32), least significant first. */
  #buffer = 0;
  #bits = 0;

  constructor(capacity = 1024) {
    this.#bytes = new Uint8Array(Math.max(16, capacity + 8));
  }

  /** Bits written so far. */
  get position(): number {
    return this.#length * 8 + this.#bits;
  }

  #word(value: number): void {
    let bytes = this.#bytes;
    const at = this.#length;
    if (at + 4 > bytes.length) {
      const grown = new Uint8Array(bytes.length * 2);
      grown.set(bytes);
      this.#bytes = bytes = grown;
    }
    bytes[at] = value;
    bytes[at + 1] = value >>> 8;
    bytes[at + 2] = value >>> 16;
    bytes[at + 3] = value >>> 24;
    this.#length = at + 4;
  }

  /** Writes the `n` (0..32) low bits of `value` (which must have no higher bits set). */
  writeBits(value: number, n: number): void {
    if (n === 0) return;
    const bits = this.#bits;
    this.#buffer = (this.#buffer | (value << bits)) >>> 0;
    const total = bits + n;
    if (total < 32) {
      this.#bits = total;
      return;
    }
    this.#word(this.#buffer);
    const rest = total - 32;
    this.#buffer = rest === 0 ? 0 : value >>> (n - rest);
    this.#bits = rest;
  }

  writeBit(bit: number): void {
    const bits = this.#bits;
    this.#buffer = (this.#buffer | (bit << bits)) >>> 0;
    if (bits === 31) {
      this.#word(this.#buffer);
      this.#buffer = 0;
      this.#bits = 0;
    } else {
      this.#bits = bits + 1;
    }
  }

  /** Writes `n` zero bits (`stream_pad`). */
  writeZeros(n: number): void {
    while (n > 32) {
      this.writeBits(0, 32);
      n -= 32;
    }
    this.writeBits(0, n);
  }

  /**
   * Pads with zeros to a multiple of `wordBits` bits (`stream_flush`) and
   * returns the stream's bytes.
   */
  finish(wordBits: number): Uint8Array {
    const pad = (wordBits - (this.position % wordBits)) % wordBits;
    this.writeZeros(pad);
    const total = this.position / 8;
    // Pending bits (fewer than 32) are whole bytes here (wordBits >= 8).
    let at = this.#length;
    if (at + 4 > this.#bytes.length) {
      const grown = new Uint8Array(at + 4);
      grown.set(this.#bytes);
      this.#bytes = grown;
    }
    let b = this.#buffer;
    while (at < total) {
      this.#bytes[at++] = b & 0xff;
      b >>>= 8;
    }
    return this.#bytes.slice(0, total);
  }
}

/**
 * Reads bits from a byte array. Reading past the end yields zeros and is
 * caught by {@link BitReader.overrun}, which callers check after each block
 * (libzfp itself reads past the end unchecked).
 */
export class BitReader {
  readonly #bytes: Uint8Array;
  /** Total bits in the input. */
  readonly totalBits: number;
  /** Index of the next 32-bit word to fetch. */
  #word = 0;
  #buffer = 0;
  #bits = 0;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
    this.totalBits = bytes.length * 8;
  }

  /** Bits consumed so far. */
  get position(): number {
    return this.#word * 32 - this.#bits;
  }

  /** True when more bits were consumed than the input holds. */
  get overrun(): boolean {
    return this.position > this.totalBits;
  }

  #fetch(): number {
    const bytes = this.#bytes;
    const at = this.#word * 4;
    this.#word++;
    if (at + 4 <= bytes.length) {
      return (
        (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0
      );
    }
    let value = 0;
    for (let i = 0; i < 4 && at + i < bytes.length; i++) value |= bytes[at + i]! << (8 * i);
    return value >>> 0;
  }

  readBit(): number {
    if (this.#bits === 0) {
      this.#buffer = this.#fetch();
      this.#bits = 32;
    }
    this.#bits--;
    const bit = this.#buffer & 1;
    this.#buffer >>>= 1;
    return bit;
  }

  /** Reads `n` (0..32) bits as an unsigned number. */
  readBits(n: number): number {
    if (n === 0) return 0;
    const bits = this.#bits;
    const buffer = this.#buffer;
    if (bits >= n) {
      this.#bits = bits - n;
      if (n === 32) {
        this.#buffer = 0;
        return buffer;
      }
      this.#buffer = buffer >>> n;
      return (buffer & ((1 << n) - 1)) >>> 0;
    }
    const w = this.#fetch();
    const need = n - bits;
    let value = (buffer | (w << bits)) >>> 0;
    if (n < 32) value = (value & ((1 << n) - 1)) >>> 0;
    this.#buffer = need === 32 ? 0 : w >>> need;
    this.#bits = 32 - need;
    return value;
  }

  /**
   * Reads zeros until a one bit, at most `limit` bits in all; returns how many
   * zeros were read (`limit` when no one bit came, else the one is consumed
   * too and the count of zeros before it is returned).
   */
  readZerosUntilOne(limit: number): number {
    if (limit <= 0) return 0;
    let count = 0;
    for (;;) {
      if (this.#bits === 0) {
        if (limit - count >= 32 && this.#word * 4 >= this.#bytes.length) {
          // Past the end: all zeros.
          const skip = Math.floor((limit - count) / 32) * 32;
          this.#word += skip / 32;
          count += skip;
          if (count === limit) return count;
          continue;
        }
        this.#buffer = this.#fetch();
        this.#bits = 32;
      }
      const room = limit - count;
      const buffer = this.#buffer;
      if (buffer === 0) {
        const take = Math.min(this.#bits, room);
        count += take;
        this.#bits -= take;
        this.#buffer = take === 32 ? 0 : buffer >>> take;
        if (count === limit) return count;
        continue;
      }
      const zeros = 31 - Math.clz32(buffer & -buffer); // trailing zeros
      if (zeros >= room) {
        count += room;
        this.#bits -= room;
        this.#buffer = buffer >>> room;
        return count;
      }
      // zeros < bits since the buffer holds a one below bit `bits`.
      const used = zeros + 1;
      this.#bits -= used;
      this.#buffer = used === 32 ? 0 : buffer >>> used;
      return count + zeros;
    }
  }

  /** Skips `n` bits (`stream_skip`). */
  skip(n: number): void {
    this.seek(this.position + n);
  }

  /** Moves to bit `offset`. */
  seek(offset: number): void {
    const word = Math.floor(offset / 32);
    const bit = offset - word * 32;
    this.#word = word;
    if (bit === 0) {
      this.#buffer = 0;
      this.#bits = 0;
    } else {
      this.#buffer = this.#fetch() >>> bit;
      this.#bits = 32 - bit;
    }
  }
}

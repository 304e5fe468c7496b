/**
 * A growable byte buffer for the encoder's output.
 *
 * @module
 */

/** Bytes written so far (`buf[0..length)`); grows by doubling. */
export class ByteSink {
  buf = new Uint8Array(1 << 12);
  length = 0;

  push(b: number): void {
    if (this.length === this.buf.length) this.grow(1);
    this.buf[this.length++] = b;
  }

  append(bytes: Uint8Array): void {
    if (this.length + bytes.length > this.buf.length) this.grow(bytes.length);
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
  }

  private grow(n: number): void {
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  bytes(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

/**
 * Memory for file reads, reused when the caller hands values back with
 * `release` (arrays do, once a chunk is decoded): no fresh allocation and no
 * garbage per chunk read. One pool per thread serves every store, so that a
 * store opened per read (a common pattern: open, read, drop) reuses the memory
 * the previous one read into instead of faulting in fresh pages (64 × 780 KB
 * chunk reads took about 5,000 page faults per read with a pool per store).
 *
 * @module
 */
import { Buffer } from "node:buffer";

/** Free memory kept at most per thread (16 chunks in flight of up to 2 MiB; beyond it, reads allocate as before). */
const MAX_FREE_BYTES = 32 * 1024 * 1024;
/** Values smaller than this are not worth pooling. */
const MIN_POOLED_BYTES = 64 * 1024;

/**
 * Size classes with at most 1/8 slack: the length rounded up to a multiple of
 * an eighth of its highest power of two.
 */
function sizeClass(length: number): number {
  const step = 2 ** Math.max(0, Math.floor(Math.log2(length)) - 3);
  return Math.ceil(length / step) * step;
}

/** A free list of read buffers by size class. */
export class ReadBuffers {
  readonly #free = new Map<number, ArrayBuffer[]>();
  /**
   * Each buffer handed out and not yet back, with the value it was handed out
   * as: `give` accepts that very value only, so a view of it, or a value given
   * back a second time after its memory went to another read (of any store of
   * the thread), is ignored instead of freeing memory a live value holds.
   */
  readonly #out = new WeakMap<ArrayBufferLike, Uint8Array>();
  #freeBytes = 0;

  /** Buffers kept for reuse, and their bytes (for tests). */
  get kept(): { buffers: number; bytes: number } {
    let buffers = 0;
    for (const list of this.#free.values()) buffers += list.length;
    return { buffers, bytes: this.#freeBytes };
  }

  /**
   * `length` bytes of memory whose contents are undefined (the caller fills
   * them), as a plain `Uint8Array` over its own `ArrayBuffer`.
   */
  take(length: number): Uint8Array {
    if (length < MIN_POOLED_BYTES) return unzeroed(length);
    const size = sizeClass(length);
    const reused = this.#free.get(size)?.pop();
    if (reused !== undefined) this.#freeBytes -= size;
    // The slack past `length` is reachable through `value.buffer`: never show old
    // heap there, nor the end of a value read into this memory before.
    const buffer = reused ?? (unzeroed(size).buffer as ArrayBuffer);
    new Uint8Array(buffer, length).fill(0);
    const value = new Uint8Array(buffer, 0, length);
    this.#out.set(buffer, value);
    return value;
  }

  /**
   * Room for a value of about `length` bytes whose exact size is not known
   * yet: a whole buffer, the smallest kept one from `length`'s size class up
   * to twice that (memory given back by earlier reads of values about this
   * size), else a new one of that class. Its contents are undefined; the
   * caller fills a part and {@link fit}s it to that.
   */
  takeRoom(length: number): Uint8Array {
    const size = sizeClass(Math.max(length, 1));
    if (size < MIN_POOLED_BYTES) return unzeroed(size);
    let best: number | undefined;
    for (const [kept, list] of this.#free) {
      if (
        list.length > 0 &&
        kept >= size &&
        kept <= 2 * size &&
        (best === undefined || kept < best)
      ) {
        best = kept;
      }
    }
    return this.take(best ?? size);
  }

  /**
   * The first `length` bytes of `room` (from {@link take} or {@link takeRoom},
   * not used afterwards) as a value of its own: in place, the rest of its
   * memory zeroed (it is reachable through `.buffer`), when they fill at least
   * half of it; otherwise copied into memory of their size and `room` given
   * back, so that a small value never holds a large buffer.
   */
  fit(room: Uint8Array, length: number): Uint8Array {
    if (length >= room.length) return room;
    if (2 * length < room.length) {
      const value = this.take(length);
      value.set(room.subarray(0, length));
      this.give(room);
      return value;
    }
    room.fill(0, length);
    const value = room.subarray(0, length);
    if (this.#out.get(room.buffer) === room) this.#out.set(room.buffer, value);
    return value;
  }

  /**
   * Takes back a value returned by {@link take}. Anything else is ignored:
   * other memory, views of a value, a value given back twice, and a value
   * whose memory was transferred away (detached: nothing left to reuse).
   */
  give(value: Uint8Array): void {
    const buffer = value.buffer;
    if (this.#out.get(buffer) !== value) return;
    this.#out.delete(buffer);
    const size = buffer.byteLength;
    if (size === 0 || this.#freeBytes + size > MAX_FREE_BYTES) return;
    const list = this.#free.get(size);
    if (list) list.push(buffer as ArrayBuffer);
    else this.#free.set(size, [buffer as ArrayBuffer]);
    this.#freeBytes += size;
  }
}

/**
 * Not zeroed (the read fills it; only filled bytes are ever returned), and
 * never a view of Node's shared small-buffer pool.
 */
function unzeroed(length: number): Uint8Array {
  const b = Buffer.allocUnsafeSlow(length);
  return new Uint8Array(b.buffer, b.byteOffset, length);
}

/** The pool every `FileSystemStore` of this thread reads into (`release` gives back to it). */
export const readBuffers = new ReadBuffers();

/**
 * Reused shared memory for handing encoded chunk bytes to workers: the calling
 * thread copies a chunk's bytes in (a store's buffer must never be detached),
 * the worker reads them in place, and the buffer comes back when it replies.
 *
 * @module
 */

/** Smallest staging buffer; sizes are rounded up to powers of two from here. */
const MIN_BYTES = 64 * 1024;
/** Free buffers kept per size (more are left to the garbage collector). */
const KEEP_PER_SIZE = 8;

/** Whether `SharedArrayBuffer` can be allocated and sent to workers here. */
export function sharedMemoryUsable(): boolean {
  if (typeof SharedArrayBuffer === "undefined") return false;
  // Browsers only allow sharing memory with workers on cross-origin isolated pages.
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated;
  return isolated !== false;
}

/** A typed array over shared memory (a caller's shared output, or a view of staging memory). */
export function isShared(data: unknown): boolean {
  return (
    ArrayBuffer.isView(data) &&
    typeof SharedArrayBuffer !== "undefined" &&
    data.buffer instanceof SharedArrayBuffer
  );
}

/** A free list of shared buffers by size class. */
export class StagingBuffers {
  readonly #free = new Map<number, SharedArrayBuffer[]>();

  /** A view of `length` bytes of a shared buffer; return it with {@link give}. */
  take(length: number): Uint8Array {
    let size = MIN_BYTES;
    while (size < length) size *= 2;
    const buffer = this.#free.get(size)?.pop() ?? new SharedArrayBuffer(size);
    return new Uint8Array(buffer, 0, length);
  }

  give(view: Uint8Array): void {
    const buffer = view.buffer as SharedArrayBuffer;
    const list = this.#free.get(buffer.byteLength);
    if (!list) this.#free.set(buffer.byteLength, [buffer]);
    else if (list.length < KEEP_PER_SIZE) list.push(buffer);
  }
}

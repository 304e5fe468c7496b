/**
 * Transfer lists: move typed-array buffers between threads instead of copying.
 *
 * @module
 */

/** The buffer of `value` when it can be transferred (a typed array over a plain `ArrayBuffer`). */
export function transferable(value: unknown): Transferable[] {
  if (ArrayBuffer.isView(value) && value.buffer instanceof ArrayBuffer) return [value.buffer];
  return [];
}

/**
 * Posts with a transfer list, falling back to a copy when the buffer cannot be
 * transferred (e.g. a WebAssembly memory view).
 */
export function postTransferring(
  post: (message: unknown, transfer: Transferable[]) => void,
  message: unknown,
  transfer: Transferable[],
): void {
  if (transfer.length > 0) {
    try {
      post(message, transfer);
      return;
    } catch {
      // not transferable: structured clone copies it below
    }
  }
  post(message, []);
}

/**
 * Turns the engine's allocation failures into typed errors. A chunk or a
 * selection can ask for more memory than a JavaScript engine hands out in one
 * piece (Node 20: typed arrays of at most 4 GiB; every engine: what the
 * machine has), which the engine reports as a `RangeError`.
 *
 * @module
 */

import { ValueError } from "../errors.js";

const ALLOCATION_FAILURE =
  /Invalid typed array length|Array buffer allocation failed|Invalid array length|Invalid string length|Invalid array buffer length/;

/** True for the engine's `RangeError`s of allocations too large to make. */
export function isAllocationFailure(e: unknown): e is RangeError {
  return e instanceof RangeError && ALLOCATION_FAILURE.test(e.message);
}

/**
 * Runs `fn`; an allocation failure inside it becomes a `ValueError` naming
 * `path` and `what` was being done, with the engine's message.
 */
export async function guardAllocation<T>(
  path: string,
  what: string,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (!isAllocationFailure(e)) throw e;
    throw new ValueError(
      `${path || "/"}: ${what} needs more memory in one piece than this JavaScript engine can allocate (${e.message}); read smaller selections or use smaller chunks`,
      { path, cause: e },
    );
  }
}

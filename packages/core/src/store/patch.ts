/**
 * Applying partial writes to a value (v3 core: "set_partial_values"), for
 * stores that implement `setPartialValues` by read-modify-write.
 *
 * @module
 */

import { StoreError } from "../errors.js";
import { validateKey } from "./keys.js";
import type { KeyWrite } from "./types.js";

/** Returns `value` when it is a `Uint8Array`; throws a {@link StoreError} naming `key` otherwise. */
export function validateValue(value: Uint8Array, key: string): Uint8Array {
  if (!(value instanceof Uint8Array)) {
    throw new StoreError(`value for key ${JSON.stringify(key)} must be a Uint8Array`, {
      path: key,
    });
  }
  return value;
}

/**
 * Validates `writes` (keys, values, offsets that are non-negative safe integers
 * with a safe end) and groups them by key, keeping their order.
 */
export function groupWrites(writes: readonly KeyWrite[]): Map<string, KeyWrite[]> {
  if (!Array.isArray(writes)) throw new StoreError("setPartialValues expects an array of writes");
  const byKey = new Map<string, KeyWrite[]>();
  for (const write of writes) {
    const { key, offset, value } = write;
    validateKey(key);
    validateValue(value, key);
    if (
      !Number.isSafeInteger(offset) ||
      offset < 0 ||
      !Number.isSafeInteger(offset + value.length)
    ) {
      throw new StoreError(
        `invalid write offset ${String(offset)} for key ${JSON.stringify(key)}: must be a non-negative safe integer`,
        { path: key },
      );
    }
    const list = byKey.get(key);
    if (list) list.push(write);
    else byKey.set(key, [write]);
  }
  return byKey;
}

/**
 * Returns a new value: `current` (or nothing) with each of `writes` copied in at
 * its offset, in order (later writes win where they overlap), zero-filled where
 * a write starts past the end. `writes` must all be for `key`.
 */
export function applyWrites(
  key: string,
  current: Uint8Array | undefined,
  writes: readonly KeyWrite[],
): Uint8Array {
  let size = current?.length ?? 0;
  for (const { offset, value } of writes) size = Math.max(size, offset + value.length);
  let result: Uint8Array;
  try {
    result = new Uint8Array(size);
  } catch (cause) {
    throw new StoreError(
      `cannot allocate ${size} bytes for a partial write of key ${JSON.stringify(key)}`,
      { path: key, cause },
    );
  }
  if (current) result.set(current);
  for (const { offset, value } of writes) result.set(value, offset);
  return result;
}

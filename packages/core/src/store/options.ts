/**
 * Option checks shared by store implementations (ours and third parties').
 *
 * @module
 */

import { showJson } from "../dtypes/scalar-json.js";
import type { JsonValue } from "../dtypes/types.js";
import { StoreError } from "../errors.js";
import { validateKey } from "./keys.js";

/**
 * The key prefix a store lives under, normalized (`"/a/b/"` → `"a/b"`, `""` for
 * the root) and validated like a key, so that no prefix can climb out of the
 * bucket or directory it names. `owner` (e.g. `"S3Store"`) names the store in
 * the `StoreError`.
 */
export function normalizeStorePrefix(prefix: unknown, owner: string): string {
  if (typeof prefix !== "string") {
    throw new StoreError(`${owner} prefix must be a string, got ${typeof prefix}`);
  }
  const trimmed = prefix.replace(/^\/+|\/+$/g, "");
  if (trimmed !== "") {
    try {
      validateKey(trimmed);
    } catch (cause) {
      throw new StoreError(
        `invalid ${owner} prefix ${JSON.stringify(prefix)}: ${(cause as Error).message}`,
        {
          path: prefix,
          cause,
        },
      );
    }
  }
  return trimmed;
}

/**
 * An integer option in `[min, max]`, or `fallback` when it is `undefined`;
 * anything else is a `StoreError` naming `owner` and the option.
 */
export function integerOption(
  owner: string,
  name: string,
  value: unknown,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new StoreError(
      `${owner} option "${name}" must be an integer from ${min} to ${max}, got ${showJson(value as JsonValue)}`,
    );
  }
  return value;
}

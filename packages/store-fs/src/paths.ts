/**
 * Mapping store keys to file paths under the store's root.
 *
 * @module
 */

import { join, sep } from "node:path";
import { InvalidKeyError } from "@zarr/core";
import { validateKey } from "@zarr/core/store";

/**
 * File names starting with this are temporary files of in-progress (or
 * crashed) writes: never listed, never readable as keys.
 */
export const TEMP_PREFIX = ".zarr-tmp.";

/** True when a directory entry is a temporary file of a write. */
export function isTempName(name: string): boolean {
  return name.startsWith(TEMP_PREFIX);
}

/**
 * The path of `key` under `root` (an absolute, normalized path). Validates the
 * key, refuses names reserved for temporary files, and checks that the result
 * is inside `root` (defence in depth: validation already rules out escapes).
 */
export function keyPath(root: string, key: string): string {
  validateKey(key);
  const segments = key.split("/");
  // Any segment: listings skip temporary names, so a key below one would be unlistable.
  checkNotTemp(segments, key);
  if (sep === "\\") {
    for (const segment of segments) {
      const problem = win32SegmentProblem(segment);
      if (problem !== undefined) {
        throw new InvalidKeyError(
          `invalid store key ${JSON.stringify(key)} on Windows: ${problem}`,
          {
            path: key,
          },
        );
      }
    }
  }
  return checkInside(root, join(root, ...segments), key);
}

const WIN32_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\.|$)/i;

/**
 * Why a key segment cannot be a file name on Windows (where it would name a
 * device, an alternate data stream, or alias another key), or `undefined`.
 */
export function win32SegmentProblem(segment: string): string | undefined {
  const bad = /[<>:"|?*]/.exec(segment);
  if (bad) return `segment ${JSON.stringify(segment)} contains '${bad[0]}'`;
  if (/[. ]$/.test(segment)) {
    return `segment ${JSON.stringify(segment)} ends with a dot or space (Windows drops them)`;
  }
  if (WIN32_RESERVED.test(segment)) {
    return `segment ${JSON.stringify(segment)} is a reserved device name`;
  }
  return undefined;
}

/** The directory path of `prefix` (`""` or ending in `/`, already validated) under `root`. */
export function prefixPath(root: string, prefix: string): string {
  if (prefix === "") return root;
  const segments = prefix.slice(0, -1).split("/");
  checkNotTemp(segments, prefix);
  return checkInside(root, join(root, ...segments), prefix);
}

function checkNotTemp(segments: readonly string[], key: string): void {
  if (segments.some(isTempName)) {
    throw new InvalidKeyError(
      `invalid store key ${JSON.stringify(key)}: names starting with "${TEMP_PREFIX}" are reserved for temporary files`,
      { path: key },
    );
  }
}

function checkInside(root: string, path: string, key: string): string {
  // `join` normalized `path`: it is strictly inside `root` exactly when it
  // starts with the root and a separator and goes on (a prefix test, cheaper
  // than `relative` on every read).
  const base = root.endsWith(sep) ? root : root + sep;
  if (!(path.length > base.length && path.startsWith(base))) {
    throw new InvalidKeyError(
      `invalid store key ${JSON.stringify(key)}: resolves outside the store root ${root}`,
      { path: key },
    );
  }
  return path;
}

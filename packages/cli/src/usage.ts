import { ZarrError } from "@zarr/core";

/**
 * What was asked is too large to do here (a text dump of 10^9 elements, a file
 * bigger than its disk's free space): refused before anything is allocated or
 * written (exit code 2). The message names the size and what to do instead.
 */
export class TooLargeError extends ZarrError {
  override name = this.constructor === TooLargeError ? "TooLargeError" : this.constructor.name;
}

import { UsageError } from "./command.js";

export { UsageError };

/** Parses `"10,20,30"` into positive (or, with `allowZero`, non-negative) integers. */
export function parseIntList(text: string, option: string, allowZero = false): number[] {
  const parts = text.split(/[,x×]/).map((s) => s.trim());
  const list = parts.map(Number);
  if (
    parts.some((p) => p === "") ||
    list.some((n) => !Number.isSafeInteger(n) || n < (allowZero ? 0 : 1))
  ) {
    throw new UsageError(
      `${option} must be a comma-separated list of ${allowZero ? "non-negative" : "positive"} integers, got "${text}"`,
    );
  }
  return list;
}

/** Parses a non-negative integer option. */
export function parseCount(text: string, option: string, min = 0): number {
  const n = Number(text);
  if (text.trim() === "" || !Number.isSafeInteger(n) || n < min)
    throw new UsageError(`${option} must be an integer >= ${min}, got "${text}"`);
  return n;
}

/** Parses a JSON option value. */
export function parseJsonOption(text: string, option: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${option} is not valid JSON: ${e instanceof Error ? e.message : e}`);
  }
}

/** Parses a byte size such as `512M`, `2G`, `1048576`. */
export function parseBytes(text: string, option: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?$/i.exec(text.trim());
  if (!m) throw new UsageError(`${option} must be a size like 512M or 2G, got "${text}"`);
  const scale = { "": 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 }[
    m[2].toLowerCase() as "" | "k" | "m" | "g" | "t"
  ];
  return Math.floor(Number(m[1]) * scale);
}

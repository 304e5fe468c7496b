/**
 * Checking the options a store opener gets (from `openStore(url, options)`
 * or CLI flags): each is checked for its type, and a wrong one is a
 * `StoreError` naming the option, the URL and the value.
 *
 * @module
 */

import { StoreError } from "@zarr/core";

/**
 * The options of one `open(url, options)` call, read with their types
 * checked. Each getter returns `undefined` for an option not given.
 *
 * @example
 * const read = new OpenerOptions(url, options);
 * const endpoint = read.string("endpoint"); // a non-empty string or undefined
 * const maxBodyBytes = read.integer("maxBodyBytes", 0);
 */
export class OpenerOptions {
  constructor(
    readonly url: string,
    readonly options: Record<string, unknown>,
  ) {}

  /** Throws the `StoreError` for option `name`, which must be `expected`. */
  fail(name: string, expected: string): never {
    throw new StoreError(
      `option "${name}" of ${JSON.stringify(this.url)} must be ${expected}, got ${JSON.stringify(this.options[name])}`,
      { path: this.url },
    );
  }

  /** A non-empty string. */
  string(name: string): string | undefined {
    const value = this.options[name];
    if (value !== undefined && (typeof value !== "string" || value === "")) {
      this.fail(name, "a non-empty string");
    }
    return value as string | undefined;
  }

  /** A boolean. */
  boolean(name: string): boolean | undefined {
    const value = this.options[name];
    if (value !== undefined && typeof value !== "boolean") this.fail(name, "a boolean");
    return value as boolean | undefined;
  }

  /** A safe integer of at least `min` (0: "a non-negative integer", 1: "a positive integer"). */
  integer(name: string, min: 0 | 1): number | undefined {
    const value = this.options[name];
    if (
      value !== undefined &&
      (typeof value !== "number" || !Number.isSafeInteger(value) || value < min)
    ) {
      this.fail(name, min === 0 ? "a non-negative integer" : "a positive integer");
    }
    return value as number | undefined;
  }

  /** One of `values` (named in the error, quoted and joined by "or"). */
  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const value = this.options[name];
    if (value !== undefined && !values.includes(value as T)) {
      this.fail(name, values.map((v) => JSON.stringify(v)).join(" or "));
    }
    return value as T | undefined;
  }
}

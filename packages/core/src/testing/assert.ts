/**
 * A tiny assertion toolkit for the conformance suites, so that core's testing
 * entry point does not depend on any test framework.
 *
 * @module
 */

/** Thrown when a conformance check fails. */
export class ConformanceFailure extends Error {
  override name = "ConformanceFailure";
}

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ConformanceFailure(message);
}

function show(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value instanceof Uint8Array) {
    const head = Array.from(value.subarray(0, 16)).join(",");
    return `Uint8Array(${value.length})[${head}${value.length > 16 ? ",..." : ""}]`;
  }
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** Checks that `actual` holds exactly the bytes of `expected` (or both are undefined). */
export function checkBytes(
  actual: Uint8Array | undefined,
  expected: Uint8Array | undefined,
  what: string,
): void {
  if (expected === undefined) {
    check(actual === undefined, `${what}: expected undefined, got ${show(actual)}`);
    return;
  }
  check(actual instanceof Uint8Array, `${what}: expected ${show(expected)}, got ${show(actual)}`);
  check(
    actual.length === expected.length,
    `${what}: expected ${expected.length} bytes, got ${actual.length} (${show(actual)})`,
  );
  for (let i = 0; i < expected.length; i++) {
    if (actual[i] !== expected[i]) {
      throw new ConformanceFailure(
        `${what}: byte ${i} differs: expected ${expected[i]}, got ${actual[i]}`,
      );
    }
  }
}

/** Checks deep equality of JSON-like values (arrays, plain objects, primitives). */
export function checkEqual(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  check(a === e, `${what}: expected ${e}, got ${a}`);
}

// biome-ignore lint/suspicious/noExplicitAny: error classes take varied constructor arguments
type ErrorClass = abstract new (...args: any[]) => Error;

/**
 * Checks that `action` fails with an error of class `expected` (matched by
 * `instanceof`, or by name when the error comes from another copy of core).
 */
export async function checkRejects(
  action: () => unknown,
  expected: ErrorClass,
  what: string,
): Promise<void> {
  let error: unknown;
  try {
    await action();
  } catch (e) {
    error = e;
  }
  check(error !== undefined, `${what}: expected ${expected.name}, but it succeeded`);
  const matches =
    error instanceof expected ||
    (error instanceof Error && chainNames(error).includes(expected.name));
  check(
    matches,
    `${what}: expected ${expected.name}, got ${error instanceof Error ? `${error.name}: ${error.message}` : show(error)}`,
  );
}

function chainNames(error: Error): string[] {
  const names: string[] = [];
  for (let proto = Object.getPrototypeOf(error); proto; proto = Object.getPrototypeOf(proto)) {
    if (typeof proto.constructor?.name === "string") names.push(proto.constructor.name);
  }
  return names;
}

/** Collects an async iterable into an array. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** `n` deterministic pseudo-random bytes; different seeds give different values. */
export function pattern(n: number, seed = 0): Uint8Array {
  const out = new Uint8Array(n);
  let x = (seed * 2654435761 + 12345) >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** UTF-8 bytes of `text`. */
export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

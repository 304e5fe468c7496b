// Fuzzing of byte-range reads (v3 core: "Abstract store interface",
// get_partial_values): random ranges, valid and malformed, against a model of
// the store contract ({offset, length?} and {suffix}, clipped to the value;
// anything else an InvalidRangeError). FileSystemStore reads only the bytes
// asked for, so a range claiming 2^53 - 1 bytes allocates no more than the file
// (plus the at most 1/8 slack of its reusable read buffers' size classes).
// FUZZ_RUNS raises the number of cases (`pnpm fuzz`).
import { InvalidRangeError, MemoryStore, type Store } from "@zarr/core";
import { type ByteRange, resolveStore } from "@zarr/core/store";
import { FileSystemStore } from "@zarr/store-fs";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "./helpers.js";

const RUNS = Math.max(100, Math.floor((Number(process.env.FUZZ_RUNS) || 10_000) / 5));
const SIZES = [0, 1, 7, 4096, 70_000];

let cleanup: () => Promise<void>;
const stores: [string, Store][] = [];
beforeAll(async () => {
  const dir = await tempDir();
  cleanup = dir.cleanup;
  stores.push(["FileSystemStore", resolveStore(new FileSystemStore(dir.root))]);
  stores.push(["MemoryStore", resolveStore(new MemoryStore())]);
  for (const [, store] of stores) {
    for (const size of SIZES) {
      const value = new Uint8Array(size);
      for (let i = 0; i < size; i++) value[i] = (i * 131 + size) & 0xff;
      await store.set(`v/${size}`, value);
    }
  }
});
afterAll(() => cleanup());

const same = (a: Uint8Array, b: Uint8Array) =>
  Buffer.from(a.buffer, a.byteOffset, a.length).equals(
    Buffer.from(b.buffer, b.byteOffset, b.length),
  );

/** The model: the bytes a valid range selects, or "invalid". */
function model(value: Uint8Array, range: unknown): Uint8Array | "invalid" {
  const count = (n: unknown) => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
  if (typeof range !== "object" || range === null) return "invalid";
  const r = range as Record<string, unknown>;
  if ("suffix" in r && r.suffix !== undefined) {
    if (r.offset !== undefined || r.length !== undefined || !count(r.suffix)) return "invalid";
    return value.subarray(Math.max(0, value.length - (r.suffix as number)));
  }
  if (!count(r.offset) || (r.length !== undefined && !count(r.length))) return "invalid";
  const start = Math.min(r.offset as number, value.length);
  const end = r.length === undefined ? value.length : (r.offset as number) + (r.length as number);
  return value.subarray(start, Math.max(start, Math.min(end, value.length)));
}

const n = fc.oneof(
  fc.nat({ max: 80_000 }),
  fc.constantFrom(0, 1, 2 ** 31, 2 ** 32, Number.MAX_SAFE_INTEGER),
  fc.constantFrom(-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53),
);
const range: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ offset: n, length: fc.option(n, { nil: undefined }) }) },
  { weight: 2, arbitrary: fc.record({ suffix: n }) },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.record({ offset: n, suffix: n }),
      fc.constantFrom<unknown>(null, 5, "0-10", [], { length: 3 }, { offset: "1" }),
    ),
  },
);

describe("byte ranges (fuzzed against the store contract)", () => {
  it.each(["FileSystemStore", "MemoryStore"])(
    "%s: get and getPartialValues return the model's bytes or throw InvalidRangeError",
    async (name) => {
      const which = name === "FileSystemStore" ? 0 : 1;
      const store = stores[which][1];
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...SIZES),
          fc.array(range, { minLength: 1, maxLength: 4 }),
          async (size, ranges) => {
            const value = (await store.get(`v/${size}`))!;
            const want = ranges.map((r) => model(value, r));
            const invalid = want.some((w) => w === "invalid");
            const requests = ranges.map((r) => ({ key: `v/${size}`, range: r as ByteRange }));
            if (invalid) {
              await expect(store.getPartialValues(requests), name).rejects.toThrow(
                InvalidRangeError,
              );
            } else {
              const got = await store.getPartialValues(requests);
              expect(got.map((g, i) => same(g!, want[i] as Uint8Array))).toEqual(
                got.map(() => true),
              );
            }
            const first = want[0];
            if (first === "invalid") {
              await expect(store.get(`v/${size}`, ranges[0] as ByteRange)).rejects.toThrow(
                InvalidRangeError,
              );
            } else {
              const got = await store.get(`v/${size}`, ranges[0] as ByteRange);
              expect(same(got!, first)).toBe(true);
              expect(got!.buffer.byteLength).toBeLessThanOrEqual(size + size / 8);
            }
          },
        ),
        { seed: 42 + which, numRuns: RUNS },
      );
    },
  );
});

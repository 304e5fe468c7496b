// Fuzzing of selections: parseSelection (the NumPy-like text form used by the
// CLI) on random text and on printed random selections, and normalizeSelection
// on random selections against an independent model of NumPy's basic indexing
// (Python slice semantics) and orthogonal index arrays / masks. Results are
// right or the error is an IndexError (UnsupportedError for index arrays past
// 2^31). FUZZ_RUNS raises the number of cases (`pnpm fuzz`).
import {
  type DimSelection,
  ELLIPSIS,
  IndexError,
  type Selection,
  Slice,
  UnsupportedError,
} from "@zarr/core";
import { type NormalizedDim, normalizeSelection, parseSelection } from "@zarr/core/internal";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const RUNS = Number(process.env.FUZZ_RUNS) || 10_000;
const CASE_MS = 2_000;
let slowest = 0;
const seen = { ok: 0, rejected: 0 };

function attempt<T>(fn: () => T, allowed: (e: unknown) => boolean): T | undefined {
  const t0 = performance.now();
  try {
    const out = fn();
    seen.ok++;
    return out;
  } catch (e) {
    if (!allowed(e)) throw e;
    seen.rejected++;
    return undefined;
  } finally {
    const ms = performance.now() - t0;
    slowest = Math.max(slowest, ms);
    expect(ms).toBeLessThan(CASE_MS);
  }
}

const isIndexError = (e: unknown) => e instanceof IndexError;

// Text ----------------------------------------------------------------------

const int = fc.oneof(fc.integer({ min: -20, max: 20 }), fc.integer());
const dimSel: fc.Arbitrary<DimSelection | typeof ELLIPSIS> = fc.oneof(
  int,
  fc
    .tuple(fc.option(int), fc.option(int), fc.option(int.filter((s) => s !== 0)))
    .map(([a, b, c]) => new Slice(a, b, c)),
  fc.array(int, { maxLength: 4 }),
  fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }),
  fc.constant(ELLIPSIS),
);

function printDim(d: DimSelection | typeof ELLIPSIS): string {
  if (d === ELLIPSIS) return "...";
  if (d instanceof Slice) return d.toString();
  if (Array.isArray(d)) return `[${d.join(", ")}]`;
  return String(d);
}

describe("parseSelection fuzzing", () => {
  it("printed selections parse back to the same selection", () => {
    fc.assert(
      fc.property(fc.array(dimSel, { maxLength: 4 }), fc.boolean(), (sel, trailing) => {
        const text = sel.map(printDim).join(", ") + (trailing && sel.length > 0 ? "," : "");
        const parsed = attempt(
          () => parseSelection(text),
          () => false,
        ) as unknown[];
        expect(parsed.map((d) => printDim(d as DimSelection))).toEqual(sel.map(printDim));
      }),
      { seed: 42, numRuns: RUNS / 4 },
    );
  });

  it("random text parses to a well-formed selection or fails with an IndexError naming the offset", () => {
    const alphabet = fc.constantFrom(
      ..."0123456789-+:,[]. \t".split(""),
      "true",
      "False",
      "…",
      "\u0000",
      "٣",
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(alphabet, { maxLength: 24 }).map((a) => a.join("")),
          fc.string({ maxLength: 24 }),
        ),
        (text) => {
          let error: unknown;
          const parsed = attempt(
            () => parseSelection(text),
            (e) => {
              error = e;
              return isIndexError(e);
            },
          );
          if (parsed === undefined) {
            expect((error as Error).message).toMatch(/at offset \d+/);
            return;
          }
          for (const d of parsed as unknown[]) {
            const ok =
              d === ELLIPSIS ||
              Number.isSafeInteger(d) ||
              d instanceof Slice ||
              (Array.isArray(d) &&
                (d.every((x) => Number.isSafeInteger(x)) ||
                  d.every((x) => typeof x === "boolean")));
            expect(ok).toBe(true);
          }
        },
      ),
      { seed: 43, numRuns: RUNS / 4 },
    );
  });

  it("a very long selection parses in linear time", () => {
    const text = Array.from({ length: 20_000 }, (_, i) => `${i}:${i + 1}:1`).join(",");
    const t0 = performance.now();
    expect((parseSelection(text) as unknown[]).length).toBe(20_000);
    expect(performance.now() - t0).toBeLessThan(CASE_MS);
    expect(() => parseSelection(`[${"1,".repeat(100_000)}`)).toThrow(IndexError);
  });
});

// normalizeSelection ----------------------------------------------------------

/** Python's `range(len)[start:stop:step]`, written as a filter over every position. */
function modelSlice(s: Slice, len: number): number[] {
  const step = s.step ?? 1;
  const out: number[] = [];
  if (step > 0) {
    const clamp = (v: number | null, dflt: number) =>
      v === null ? dflt : Math.min(len, Math.max(0, v < 0 ? v + len : v));
    const a = clamp(s.start, 0);
    const b = clamp(s.stop, len);
    for (let i = 0; i < len; i++) if (i >= a && i < b && (i - a) % step === 0) out.push(i);
  } else {
    const clamp = (v: number | null, dflt: number) =>
      v === null ? dflt : Math.min(len - 1, Math.max(-1, v < 0 ? v + len : v));
    const a = clamp(s.start, len - 1);
    const b = clamp(s.stop, -1);
    for (let i = len - 1; i >= 0; i--) if (i <= a && i > b && (a - i) % -step === 0) out.push(i);
  }
  return out;
}

/** The positions a normalized dimension selects, or the integer it picks. */
function positions(d: NormalizedDim): number[] | number {
  if (d.kind === "int") return d.index;
  if (d.kind === "points") return [...d.indices];
  return Array.from({ length: d.count }, (_, k) => d.start + k * d.step);
}

/** The model: per dimension, the positions (or integer), or "error". */
function model(sel: readonly (DimSelection | typeof ELLIPSIS)[], shape: number[]) {
  const ellipses = sel.filter((d) => d === ELLIPSIS).length;
  if (ellipses > 1) return "error";
  const explicit = sel.length - ellipses;
  if (explicit > shape.length) return "error";
  const dims: (DimSelection | typeof ELLIPSIS)[] = [];
  for (const d of sel) {
    if (d === ELLIPSIS) for (let k = 0; k < shape.length - explicit; k++) dims.push(null);
    else dims.push(d);
  }
  while (dims.length < shape.length) dims.push(null);
  const out: (number[] | number)[] = [];
  for (let i = 0; i < shape.length; i++) {
    const d = dims[i];
    const len = shape[i];
    const wrap = (v: number) => (v < 0 ? v + len : v);
    if (d === null) out.push(Array.from({ length: len }, (_, k) => k));
    else if (typeof d === "number") {
      if (wrap(d) < 0 || wrap(d) >= len) return "error";
      out.push(wrap(d));
    } else if (d instanceof Slice) out.push(modelSlice(d, len));
    else if (Array.isArray(d) && d.length > 0 && typeof d[0] === "boolean") {
      if (d.length !== len) return "error";
      out.push((d as boolean[]).flatMap((b, k) => (b ? [k] : [])));
    } else {
      const idx = (d as number[]).map(wrap);
      if (idx.some((v) => v < 0 || v >= len)) return "error";
      out.push(idx);
    }
  }
  return out;
}

describe("normalizeSelection fuzzing (NumPy basic indexing, orthogonal index arrays)", () => {
  const shape = fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 4 });
  const small = fc.integer({ min: -15, max: 15 });
  const dim: fc.Arbitrary<DimSelection | typeof ELLIPSIS> = fc.oneof(
    small,
    fc.constant(null),
    fc
      .tuple(
        fc.option(fc.oneof(small, fc.integer())),
        fc.option(fc.oneof(small, fc.integer())),
        fc.option(fc.oneof(fc.integer({ min: -4, max: 4 }), fc.integer())),
      )
      .map(([a, b, c]) => new Slice(a, b, c)),
    fc.array(small, { maxLength: 5 }),
    fc.array(fc.boolean(), { minLength: 1, maxLength: 13 }),
    fc.constant(ELLIPSIS),
  );

  it("agrees with the model or throws IndexError exactly when the model says error", () => {
    fc.assert(
      fc.property(shape, fc.array(dim, { maxLength: 5 }), (shp, sel) => {
        const want = model(sel, shp);
        const got = attempt(() => normalizeSelection(sel as Selection, shp, "fuzz"), isIndexError);
        // A zero step is an error for the model as well.
        const zeroStep = sel.some((d) => d instanceof Slice && d.step === 0);
        if (want === "error" || zeroStep) {
          expect(got).toBeUndefined();
          return;
        }
        expect(got).toBeDefined();
        expect(got!.dims.map(positions)).toEqual(want);
        expect(got!.shape).toEqual(want.filter((d) => Array.isArray(d)).map((d) => d.length));
      }),
      { seed: 44, numRuns: RUNS / 2 },
    );
  });

  it("non-integers, NaN, bigints and foreign objects fail with an IndexError", () => {
    const junk = fc.oneof(
      fc.double(),
      fc.constantFrom<unknown>(Number.NaN, Infinity, "0", {}, [1.5], [Number.NaN], [[1]], true),
      fc.bigInt().map((b) => [b]),
    );
    fc.assert(
      fc.property(shape, junk, fc.nat(3), (shp, j, at) => {
        const sel: unknown[] = shp.map(() => null);
        sel.splice(Math.min(at, sel.length), 0, j);
        attempt(
          () => normalizeSelection(sel as Selection, shp, "fuzz"),
          (e) => e instanceof IndexError || e instanceof UnsupportedError,
        );
      }),
      { seed: 45, numRuns: RUNS / 4 },
    );
  });

  it("reached both outcomes often, and no case came close to the time bound", () => {
    expect(seen.ok).toBeGreaterThan(RUNS / 10);
    expect(seen.rejected).toBeGreaterThan(RUNS / 10);
    console.info(`${RUNS} cases; slowest case ${slowest.toFixed(1)} ms`);
    expect(slowest).toBeLessThan(CASE_MS);
  });
});

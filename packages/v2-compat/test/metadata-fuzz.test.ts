// Fuzzing of v2 and v1 metadata (v2 spec: "Metadata", v1 spec: "Metadata"):
// valid `.zarray` / `meta` documents with structural edits (fields removed or
// replaced by arbitrary JSON, members added) and byte-level damage are opened
// and read through core's `open`. Every case opens and reads (values of the
// declared shape), or fails with a ZarrError — never another exception, never
// a hang. FUZZ_RUNS raises the number of cases (`pnpm fuzz`).
import "@zarr/codec-blosc/register";
import "@zarr/codec-gzip/register";
import "@zarr/codec-zstd/register";
import "../src/register.js";
import { type JsonValue, MemoryStore, open, ZarrError } from "@zarr/core";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const RUNS = Number(process.env.FUZZ_RUNS) || 10_000;
const CASE_MS = 2_000;
const utf8 = new TextEncoder();

const DTYPES = [
  "<i4",
  ">i2",
  "|u1",
  "<f8",
  ">f4",
  "|b1",
  "<c8",
  "|S5",
  "<U3",
  "|V4",
  "<M8[s]",
  "<m8[ms]",
];
const COMPRESSORS: JsonValue[] = [
  null,
  { id: "zlib", level: 1 },
  { id: "gzip", level: 5 },
  { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 },
  { id: "zstd", level: 3 },
];
const FILTERS: JsonValue[] = [
  null,
  [{ id: "delta", dtype: "<i4" }],
  [{ id: "shuffle", elementsize: 4 }],
];

/** A valid v2 `.zarray` document. */
const zarray = fc
  .record({
    shape: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 0, maxLength: 3 }),
    dtype: fc.constantFrom(...DTYPES),
    compressor: fc.constantFrom(...COMPRESSORS),
    filters: fc.constantFrom(...FILTERS),
    order: fc.constantFrom("C", "F"),
    separator: fc.constantFrom(".", "/"),
  })
  .map(({ shape, dtype, compressor, filters, order, separator }) => ({
    zarr_format: 2,
    shape,
    chunks: shape.map((n) => Math.max(1, Math.ceil(n / 2))),
    dtype,
    compressor,
    fill_value: dtype.includes("S") || dtype.includes("V") || dtype.includes("U") ? null : 0,
    filters,
    order,
    dimension_separator: separator,
  }));

/** Arbitrary JSON, including the values parsers trip on. */
const anyJson: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constantFrom<JsonValue>(null, true, -1, 0, 2 ** 53, 1e308, "NaN", "", "<i4", "|O", [], {}),
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>,
);

type Mutation = { kind: "delete" | "replace" | "add"; field: string; value: JsonValue };
const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom("delete", "replace", "add"),
  field: fc.constantFrom(
    "zarr_format",
    "shape",
    "chunks",
    "dtype",
    "compressor",
    "fill_value",
    "filters",
    "order",
    "dimension_separator",
    "extra_field",
  ),
  value: anyJson,
});

function mutate(doc: Record<string, JsonValue>, edits: Mutation[]): Record<string, JsonValue> {
  const out = { ...doc };
  for (const e of edits) {
    if (e.kind === "delete") delete out[e.field];
    else out[e.field] = e.value;
  }
  return out;
}

/** How many cases read values and how many were rejected (the test must exercise both). */
const seen = { read: 0, rejected: 0 };

/** Opens and reads the node at "a": values of the declared shape, or a ZarrError. */
async function check(store: MemoryStore): Promise<void> {
  const t0 = performance.now();
  try {
    const node = await open(store, "a");
    if (node.kind === "array") {
      const got = await node.get();
      expect(got.shape).toEqual(node.shape);
      seen.read++;
    }
  } catch (e) {
    if (!(e instanceof ZarrError)) throw e;
    seen.rejected++;
  }
  expect(performance.now() - t0).toBeLessThan(CASE_MS);
}

/** A store holding `doc` under `key` and a few chunks of random bytes. */
async function storeWith(key: string, doc: Uint8Array, chunks: Uint8Array[]): Promise<MemoryStore> {
  const store = new MemoryStore();
  await store.set(key, doc);
  for (let i = 0; i < chunks.length; i++) await store.set(`a/${i}`, chunks[i]!);
  await store.set("a/0.0", chunks[0] ?? new Uint8Array(0));
  return store;
}

const chunks = fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 3 });

beforeEach(() => {
  seen.read = 0;
  seen.rejected = 0;
});
afterEach(() => {
  // A fuzz target that only ever rejects (or only ever reads) tests nothing.
  expect(seen.read).toBeGreaterThan(0);
  expect(seen.rejected).toBeGreaterThan(0);
  console.info(`v2/v1 metadata fuzz: ${seen.read} read, ${seen.rejected} rejected`);
});

describe("v2 .zarray fuzzing", () => {
  it("structurally edited documents open and read, or fail with a ZarrError", async () => {
    await fc.assert(
      fc.asyncProperty(
        zarray,
        fc.array(mutation, { maxLength: 3 }),
        chunks,
        async (doc, edits, data) => {
          const json = JSON.stringify(mutate(doc as Record<string, JsonValue>, edits));
          await check(await storeWith("a/.zarray", utf8.encode(json), data));
        },
      ),
      { seed: 42, numRuns: RUNS },
    );
  });

  it("byte-damaged documents open and read, or fail with a ZarrError", async () => {
    await fc.assert(
      fc.asyncProperty(
        zarray,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 4,
        }),
        chunks,
        async (doc, flips, data) => {
          const bytes = utf8.encode(JSON.stringify(doc));
          for (const [at, value] of flips) bytes[at % bytes.length] = value;
          await check(await storeWith("a/.zarray", bytes, data));
        },
      ),
      { seed: 43, numRuns: RUNS },
    );
  });
});

describe("v1 meta fuzzing", () => {
  /** A valid v1 `meta` document (v1 spec: compression, compression_opts, fill_value, order). */
  const meta = fc
    .record({
      shape: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 3 }),
      dtype: fc.constantFrom("<i4", ">f8", "|u1", "<i2"),
      compression: fc.constantFrom("none", "zlib", "blosc"),
      order: fc.constantFrom("C", "F"),
    })
    .map(({ shape, dtype, compression, order }) => ({
      zarr_format: 1,
      shape,
      chunks: shape.map((n) => Math.max(1, Math.ceil(n / 2))),
      dtype,
      compression,
      compression_opts:
        compression === "zlib"
          ? 1
          : compression === "blosc"
            ? { cname: "lz4", clevel: 5, shuffle: 1 }
            : null,
      fill_value: 0,
      order,
    }));

  it("edited and damaged documents open and read, or fail with a ZarrError", async () => {
    await fc.assert(
      fc.asyncProperty(
        meta,
        fc.array(mutation, { maxLength: 3 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 2 }),
        chunks,
        async (doc, edits, flips, data) => {
          const bytes = utf8.encode(
            JSON.stringify(mutate(doc as Record<string, JsonValue>, edits)),
          );
          for (const [at, value] of flips) bytes[at % bytes.length] = value;
          await check(await storeWith("a/meta", bytes, data));
        },
      ),
      { seed: 44, numRuns: RUNS },
    );
  });
});

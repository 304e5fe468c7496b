// Fuzz: random and mutated inputs either parse or fail with the package's
// typed errors, never another exception: JSON reference documents
// (StoreError), template text (TemplateError), and Parquet record files with
// a mutated footer or truncated (StoreError naming the record file or key;
// pages bounded by MAX_PAGE_SIZE and the row count before allocation).
import { StoreError } from "@zarr/core";
import { parseJsonReferences, renderTemplate, TemplateError } from "@zarr/store-reference";
import { ParquetReferences } from "@zarr/store-reference/parquet";
import fc from "fast-check";
import { parquetWriteBuffer } from "hyparquet-writer";
import { describe, expect, it } from "vitest";

const RUNS = Math.max(200, Math.floor((Number(process.env.FUZZ_RUNS) || 10_000) / 10));

const key = fc.oneof(
  fc.constantFrom("a/0", "a/.zarray", ".zgroup", "../x", "a//b", "b/1.2"),
  fc.string({ maxLength: 8 }),
);
const templated = fc
  .array(
    fc.constantFrom(
      "{{",
      "}}",
      "i",
      "u",
      "f(c=1)",
      " + ",
      "*",
      "//",
      "%",
      "'s'",
      "(",
      ")",
      "7",
      "-",
      "x",
      "{%",
      "|",
    ),
    {
      maxLength: 8,
    },
  )
  .map((p) => p.join(""));
const refValue = fc.oneof(
  fc.string({ maxLength: 10 }),
  fc.constant("base64:AAEC"),
  fc.string({ maxLength: 10 }).map((s) => `base64:${s}`),
  fc.tuple(
    fc.oneof(templated, fc.constant(null)),
    fc.integer({ min: -5, max: 1e6 }),
    fc.integer({ min: -5, max: 1e6 }),
  ),
  fc.tuple(fc.oneof(fc.string({ maxLength: 6 }), fc.constant(null))),
  fc.jsonValue({ maxDepth: 2 }),
);
const dimension = fc.oneof(
  fc.record(
    {
      start: fc.integer({ min: -3, max: 3 }),
      stop: fc.integer({ min: -3, max: 6 }),
      step: fc.integer({ min: -2, max: 2 }),
    },
    { requiredKeys: ["stop"] },
  ),
  fc.array(fc.oneof(fc.integer({ min: 0, max: 5 }), fc.string({ maxLength: 3 })), { maxLength: 4 }),
  fc.jsonValue({ maxDepth: 1 }),
);
const doc = fc.oneof(
  fc.dictionary(key, refValue, { maxKeys: 6 }),
  fc.record({
    version: fc.oneof(fc.constant(1), fc.jsonValue({ maxDepth: 0 })),
    templates: fc.dictionary(fc.constantFrom("u", "f", "g"), fc.oneof(templated, fc.integer()), {
      maxKeys: 3,
    }),
    gen: fc.array(
      fc.record({
        key: fc.oneof(
          templated.map((t) => `a/${t}`),
          fc.constant("a/{{i}}"),
        ),
        url: templated,
        offset: fc.oneof(templated, fc.integer({ min: -1, max: 100 })),
        length: fc.oneof(templated, fc.integer({ min: -1, max: 100 })),
        dimensions: fc.dictionary(fc.constantFrom("i", "j"), dimension, { maxKeys: 2 }),
      }),
      { maxLength: 2 },
    ),
    refs: fc.dictionary(key, refValue, { maxKeys: 4 }),
  }),
  fc.jsonValue({ maxDepth: 3 }),
);

describe("fuzz: JSON reference documents", () => {
  it(`${RUNS} random documents parse or throw StoreError`, () => {
    let parsed = 0;
    fc.assert(
      fc.property(doc, (d) => {
        try {
          parseJsonReferences(d, { maxGenerated: 1000 });
          parsed++;
        } catch (e) {
          expect(e).toBeInstanceOf(StoreError);
        }
      }),
      { seed: 1, numRuns: RUNS },
    );
    console.info(`${RUNS} documents: ${parsed} parsed`);
  });

  it(`${RUNS} random templates render or throw TemplateError`, () => {
    fc.assert(
      fc.property(templated, (t) => {
        try {
          expect(
            typeof renderTemplate(t, { values: { i: 3 }, templates: { u: "h", f: "{{c}}" } }),
          ).toBe("string");
        } catch (e) {
          expect(e).toBeInstanceOf(TemplateError);
        }
      }),
      { seed: 2, numRuns: RUNS },
    );
  });
});

describe("fuzz: Parquet record files", () => {
  const rows = 8;
  const valid = new Uint8Array(
    parquetWriteBuffer({
      columnData: [
        {
          name: "path",
          type: "STRING",
          nullable: true,
          data: Array.from({ length: rows }, (_, i) => (i === 3 ? null : `s3://b/f${i}.nc`)),
        },
        {
          name: "offset",
          type: "INT64",
          data: Array.from({ length: rows }, (_, i) => BigInt(i * 100)),
        },
        { name: "size", type: "INT64", data: Array.from({ length: rows }, () => 100n) },
        {
          name: "raw",
          type: "BYTE_ARRAY",
          nullable: true,
          data: Array.from({ length: rows }, (_, i) => (i === 5 ? Uint8Array.of(1, 2) : null)),
        },
      ],
    }),
  );
  const metadata = JSON.stringify({
    record_size: rows,
    metadata: {
      ".zgroup": { zarr_format: 2 },
      "a/.zarray": { shape: [rows * 2], chunks: [1], dtype: "<i4", zarr_format: 2 },
    },
  });
  const open = (record: Uint8Array) =>
    ParquetReferences.open(async (name) => {
      if (name === ".zmetadata") return new TextEncoder().encode(metadata);
      if (name === "a/refs.0.parq") return record;
      return undefined;
    });

  it("the unmutated file reads as written", async () => {
    const refs = await open(valid);
    expect(await refs.lookup("a/0")).toEqual({
      kind: "range",
      url: "s3://b/f0.nc",
      offset: 0,
      length: 100,
    });
    expect(await refs.lookup("a/3")).toBeUndefined();
    expect(await refs.lookup("a/5")).toEqual({ kind: "inline", bytes: Uint8Array.of(1, 2) });
    expect(await refs.lookup("a/9")).toBeUndefined(); // record 1 is missing
  });

  // Mutations of the footer (the Thrift file metadata: schema, row groups,
  // column offsets and sizes) and truncations. Bytes flipped inside page data
  // (where a corrupted run could keep hyparquet busy without the page guard)
  // are fuzzed in parquet-pages.test.ts, in a child process under a watchdog.
  it(`${RUNS} files with a mutated footer or truncated: lookups return references or throw StoreError`, async () => {
    const footer =
      new DataView(valid.buffer, valid.byteOffset).getUint32(valid.length - 8, true) + 8;
    let readable = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            fc.integer({ min: valid.length - footer, max: valid.length - 1 }),
            fc.integer({ min: 0, max: 255 }),
          ),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
        fc.option(fc.nat(valid.length), { nil: undefined }),
        async (flips, cut) => {
          const bytes = valid.slice(0, cut);
          for (const [at, v] of flips) if (at < bytes.length) bytes[at] = v;
          const refs = await open(bytes);
          try {
            for (let i = 0; i < rows; i++) {
              const ref = await refs.lookup(`a/${i}`);
              if (ref?.kind === "range")
                expect(Number.isSafeInteger(ref.offset + ref.length)).toBe(true);
            }
            readable++;
          } catch (e) {
            expect(e).toBeInstanceOf(StoreError);
            expect((e as StoreError).message).toMatch(/a\/refs\.0\.parq|"a\/\d+"/);
          }
        },
      ),
      { seed: 3, numRuns: RUNS },
    );
    console.info(`${RUNS} mutated Parquet files: ${readable} readable`);
  });
});

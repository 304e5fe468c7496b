// Page data of Parquet reference files (parquet-guard.ts): hand-made hostile
// RLE/bit-packed runs (Parquet Encodings.md, "Run Length Encoding /
// Bit-Packing Hybrid") and a fuzz that flips bytes anywhere in a file,
// page data included. Without the guard, hyparquet's hybrid decoder loops
// for as long as a run claims, so these tests run in a child vitest under a
// wall-clock watchdog: a hang is a red test, not a stuck run.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { StoreError } from "@zarr/core";
import { ParquetReferences } from "@zarr/store-reference/parquet";
import fc from "fast-check";
import { parquetWriteBuffer } from "hyparquet-writer";
import { describe, expect, it } from "vitest";
import { flatColumns } from "../src/parquet-guard.js";
import {
  bitPackedRun,
  type CraftColumn,
  type CraftPage,
  cat,
  craftParquet,
  lengthPrefixed,
  plainInt64,
  plainStrings,
  rleRun,
  varint,
} from "./parquet-craft.js";

const CHILD = process.env.STORE_REFERENCE_PAGES_CHILD === "1";
const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "../../..");
/** Wall time the child may take in all (it needs ~10 s on a loaded 2-core machine). */
const WATCHDOG_MS = Number(process.env.STORE_REFERENCE_PAGES_WATCHDOG_MS) || 240_000;
/** Wall time one hostile file may take to be rejected. */
const CASE_MS = 2000;
const RUNS = Math.max(300, Math.floor((Number(process.env.FUZZ_RUNS) || 10_000) / 10));

describe.skipIf(CHILD)("Parquet page data, under a watchdog", () => {
  it(
    `hand-made and fuzzed pages: a child vitest passes within ${WATCHDOG_MS / 1000} s`,
    () => {
      const env: NodeJS.ProcessEnv = { ...process.env, STORE_REFERENCE_PAGES_CHILD: "1" };
      for (const name of Object.keys(env)) if (name.startsWith("VITEST")) delete env[name];
      delete env.FORCE_COLOR;
      delete env.ZARR_TEST_REPORT;
      env.NO_COLOR = "1";
      const started = performance.now();
      const run = spawnSync(
        process.execPath,
        [
          join(ROOT, "node_modules/vitest/vitest.mjs"),
          "run",
          // Worker threads, not forks: killing the child kills a spinning decoder with it.
          "--pool=threads",
          // Not the CI's JSON report: the child would overwrite the whole run's file.
          "--reporter=default",
          join(HERE, "parquet-pages.test.ts"),
        ],
        { cwd: ROOT, env, timeout: WATCHDOG_MS, killSignal: "SIGKILL", encoding: "utf8" },
      );
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: strips terminal colours
      const output = `${run.stdout}\n${run.stderr}`.replace(/\x1b\[[0-9;]*m/g, "");
      if (run.signal !== null) {
        const why =
          run.signal === "SIGKILL"
            ? "the watchdog's time limit: a hang"
            : "a crash (out of memory?)";
        throw new Error(
          `the child was killed (${run.signal}, ${why}) after ${seconds} s\n${output}`,
        );
      }
      expect(run.status, output).toBe(0);
      const summary = output.match(/Tests\s+(\d+) passed/);
      expect(summary, output).not.toBeNull();
      console.info(`child: ${summary?.[1]} tests passed in ${seconds} s`);
    },
    WATCHDOG_MS + 10_000,
  );
});

const ROWS = 8;
const METADATA = new TextEncoder().encode(
  JSON.stringify({
    record_size: ROWS,
    metadata: {
      ".zgroup": { zarr_format: 2 },
      "a/.zarray": { shape: [ROWS], chunks: [1], dtype: "<i4", zarr_format: 2 },
    },
  }),
);

function open(record: Uint8Array): Promise<ParquetReferences> {
  return ParquetReferences.open(async (name) => {
    if (name === ".zmetadata") return METADATA;
    if (name === "a/refs.0.parq") return record;
    return undefined;
  });
}

/** Every row's reference. */
async function readAll(record: Uint8Array): Promise<unknown[]> {
  const refs = await open(record);
  const out = [];
  for (let i = 0; i < ROWS; i++) out.push(await refs.lookup(`a/${i}`));
  return out;
}

/** Rejected with a StoreError naming the record file and matching `reason`, within CASE_MS. */
async function expectRejected(record: Uint8Array, reason: RegExp): Promise<void> {
  const started = performance.now();
  const error = await readAll(record).then(
    (refs) => new Error(`read ${JSON.stringify(refs, (_, v) => (typeof v === "bigint" ? 0 : v))}`),
    (e: unknown) => e,
  );
  expect(performance.now() - started).toBeLessThan(CASE_MS);
  expect(error).toBeInstanceOf(StoreError);
  expect((error as Error).message).toMatch(/"a\/refs\.0\.parq"/);
  expect(String((error as Error).cause && ((error as Error).cause as Error).message)).toMatch(
    reason,
  );
}

const PATHS = ["s3://b/x.nc", "s3://b/y.nc"];
/** Row 3 has no path (a null); the others index PATHS. */
const PATH_INDEX = [0, 1, 0, -1, 1, 1, 0, 0];
const DEF_LEVELS = PATH_INDEX.map((i) => (i < 0 ? 0 : 1));
const INDICES = PATH_INDEX.filter((i) => i >= 0);

const dictionary: CraftPage = {
  kind: "dict",
  values: PATHS.length,
  body: Uint8Array.from(plainStrings(PATHS)),
};

/** A v1 RLE_DICTIONARY page of `path`: prefixed definition levels, bit width byte, index runs. */
function pathV1(levels: number[], indices: number[], width = 1): CraftPage {
  return {
    kind: "v1",
    values: ROWS,
    encoding: "RLE_DICTIONARY",
    body: cat(lengthPrefixed(levels), [width], indices),
  };
}

/** A v2 RLE_DICTIONARY page of `path`. */
function pathV2(levels: number[], indices: number[], width: number, nulls = 1): CraftPage {
  return {
    kind: "v2",
    values: ROWS,
    nulls,
    encoding: "RLE_DICTIONARY",
    levels: Uint8Array.from(levels),
    body: cat([width], indices),
  };
}

const validPathV1 = pathV1(bitPackedRun(DEF_LEVELS, 1), bitPackedRun(INDICES, 1));

/** A reference file whose `path` column has `pathPages` (offset v1 PLAIN, size v2 PLAIN, raw v2). */
function recordFile(pathPages: CraftPage[], offset?: CraftColumn): Uint8Array {
  return craftParquet(
    [
      { name: "path", type: "BYTE_ARRAY", optional: true, pages: pathPages },
      offset ?? {
        name: "offset",
        type: "INT64",
        optional: false,
        pages: [
          {
            kind: "v1",
            values: ROWS,
            encoding: "PLAIN",
            body: Uint8Array.from(plainInt64(PATH_INDEX.map((_, i) => i * 100))),
          },
        ],
      },
      {
        name: "size",
        type: "INT64",
        optional: false,
        pages: [
          {
            kind: "v2",
            values: ROWS,
            nulls: 0,
            encoding: "PLAIN",
            levels: new Uint8Array(0),
            body: Uint8Array.from(plainInt64(PATH_INDEX.map(() => 100))),
          },
        ],
      },
      {
        name: "raw",
        type: "BYTE_ARRAY",
        optional: true,
        pages: [
          {
            kind: "v2",
            values: ROWS,
            nulls: ROWS - 1,
            encoding: "PLAIN",
            // Row 5 only: RLE runs 5 x 0, 1 x 1, 2 x 0.
            levels: cat(rleRun(5, 0, 1), rleRun(1, 1, 1), rleRun(2, 0, 1)),
            body: Uint8Array.from(plainStrings(["AB"])),
          },
        ],
      },
    ],
    ROWS,
  );
}

/** What the valid files hold. */
const EXPECTED = PATH_INDEX.map((p, i) =>
  i === 5
    ? { kind: "inline", bytes: new TextEncoder().encode("AB") }
    : p < 0
      ? undefined
      : { kind: "range", url: PATHS[p], offset: i * 100, length: 100 },
);

describe.runIf(CHILD)("hand-made pages (Parquet Encodings.md, RLE/bit-packed hybrid)", () => {
  it("v1 pages (dictionary indices, levels with a length prefix, PLAIN) and v2 pages (levels as RLE runs, PLAIN) read exactly", async () => {
    expect(await readAll(recordFile([dictionary, validPathV1]))).toEqual(EXPECTED);
  });

  it("levels and indices as RLE runs, and a v2 dictionary page, read exactly", async () => {
    const levels = cat(rleRun(3, 1, 1), rleRun(1, 0, 1), rleRun(4, 1, 1));
    const indices = cat(
      rleRun(1, 0, 1),
      rleRun(1, 1, 1),
      rleRun(1, 0, 1),
      bitPackedRun([1, 1, 0, 0], 1),
    );
    expect(await readAll(recordFile([dictionary, pathV1([...levels], [...indices])]))).toEqual(
      EXPECTED,
    );
    expect(await readAll(recordFile([dictionary, pathV2([...levels], [...indices], 1)]))).toEqual(
      EXPECTED,
    );
    // Wider indices than needed (bit width 9: two bytes per RLE value) are valid too.
    expect(
      await readAll(recordFile([dictionary, pathV1([...levels], bitPackedRun(INDICES, 9), 9)])),
    ).toEqual(EXPECTED);
  });

  it("v2 indices of bit width 0 (a one-entry dictionary) read exactly; v1 width 0 too", async () => {
    const one: CraftPage = {
      kind: "dict",
      values: 1,
      body: Uint8Array.from(plainStrings(["s3://b/x.nc"])),
    };
    const expected = EXPECTED.map((e) => (e?.kind === "range" ? { ...e, url: "s3://b/x.nc" } : e));
    const levels = bitPackedRun(DEF_LEVELS, 1);
    expect(await readAll(recordFile([one, pathV2(levels, rleRun(7, 0, 0), 0)]))).toEqual(expected);
    expect(await readAll(recordFile([one, pathV1(levels, [], 0)]))).toEqual(expected);
  });

  it("definition levels: an RLE run of 2^31 - 2 values (header >= 2^31) is rejected", async () => {
    await expectRejected(
      recordFile([dictionary, pathV1(rleRun(2 ** 31 - 2, 1, 1), bitPackedRun(INDICES, 1))]),
      /header of 4294967292 \(>= 2\^31\)/,
    );
  });

  it("definition levels: an RLE run of 2^30 - 1 values where 8 remain is rejected (v1 and v2)", async () => {
    const run = rleRun(2 ** 30 - 1, 1, 1);
    await expectRejected(
      recordFile([dictionary, pathV1(run, bitPackedRun(INDICES, 1))]),
      /RLE run of 1073741823 values where 8 remain/,
    );
    await expectRejected(
      recordFile([dictionary, pathV2(run, bitPackedRun(INDICES, 1), 1)]),
      /RLE run of 1073741823 values where 8 remain/,
    );
  });

  it("dictionary indices: a bit-packed run of width 0 and 2^30 values is rejected (v2)", async () => {
    await expectRejected(
      recordFile([dictionary, pathV2(bitPackedRun(DEF_LEVELS, 1), varint((2 ** 27 * 2) | 1), 0)]),
      /bit-packed run of 1073741824 values where 7 remain/,
    );
  });

  it("dictionary indices: a bit-packed header whose int32 count overflows negative is rejected", async () => {
    // groups = 2^28: hyparquet computes (header >> 1) << 3 = -2^31 and counts down for ever.
    await expectRejected(
      recordFile([dictionary, pathV2(bitPackedRun(DEF_LEVELS, 1), varint(2 ** 29 + 1), 0)]),
      /bit-packed run of 2147483648 values where 7 remain/,
    );
  });

  it("a bit-packed run with more groups than values (8 or more padding values) is rejected", async () => {
    await expectRejected(
      recordFile([dictionary, pathV1(bitPackedRun([...DEF_LEVELS, ...DEF_LEVELS], 1), [])]),
      /bit-packed run of 16 values where 8 remain/,
    );
  });

  it("truncated runs are rejected: bit-packed bytes, an RLE value, a run header, a 6-byte header", async () => {
    const levels = bitPackedRun(DEF_LEVELS, 1);
    // One group of width 3 needs 3 bytes; the page ends after 1.
    await expectRejected(
      recordFile([dictionary, pathV1(levels, [3, 0], 3)]),
      /bit-packed run overruns its stream/,
    );
    // Width 9: an RLE value of 2 bytes, 1 present.
    await expectRejected(
      recordFile([dictionary, pathV1(levels, [14, 0], 9)]),
      /RLE run overruns its stream/,
    );
    // Levels declare 2 bytes: a bit-packed header, then nothing.
    await expectRejected(
      recordFile([dictionary, pathV1([3], bitPackedRun(INDICES, 1))]),
      /bit-packed run overruns/,
    );
    await expectRejected(
      recordFile([dictionary, pathV1(levels, [0x80], 1)]),
      /run header overruns its stream/,
    );
    await expectRejected(
      recordFile([dictionary, pathV1(levels, [0x80, 0x80, 0x80, 0x80, 0x80, 0x01], 1)]),
      /longer than 5 bytes/,
    );
    // The v1 level length prefix claims more bytes than the page has.
    const lying = cat([0xff, 0, 0, 0], bitPackedRun(DEF_LEVELS, 1), [1], bitPackedRun(INDICES, 1));
    await expectRejected(
      recordFile([
        dictionary,
        { kind: "v1", values: ROWS, encoding: "RLE_DICTIONARY", body: lying },
      ]),
      /stream of 255 bytes overruns its page/,
    );
  });

  it("values out of range are rejected: an index past the dictionary, a level above 1, bit width 25", async () => {
    const levels = bitPackedRun(DEF_LEVELS, 1);
    await expectRejected(
      recordFile([dictionary, pathV1(levels, rleRun(7, 5, 3), 3)]),
      /value 5 is more than 1/,
    );
    await expectRejected(
      recordFile([dictionary, pathV1(rleRun(8, 2, 1), bitPackedRun(INDICES, 1))]),
      /value 2 is more than 1/,
    );
    await expectRejected(
      recordFile([dictionary, pathV1(levels, bitPackedRun(INDICES, 25), 25)]),
      /bit width 25 is more than 24/,
    );
  });

  it("inconsistent pages are rejected: indices without a dictionary, num_nulls unlike the levels, PLAIN past the page", async () => {
    await expectRejected(recordFile([validPathV1]), /dictionary indices without a dictionary page/);
    await expectRejected(
      recordFile([dictionary, pathV2(bitPackedRun(DEF_LEVELS, 1), bitPackedRun(INDICES, 1), 1, 0)]),
      /1 null levels but num_nulls 0/,
    );
    const short: CraftPage = {
      kind: "dict",
      values: 3,
      body: Uint8Array.from(plainStrings(PATHS)),
    };
    await expectRejected(recordFile([short, validPathV1]), /PLAIN value 2 overruns the page/);
  });

  it("DELTA_BINARY_PACKED values are refused by name", async () => {
    const offset: CraftColumn = {
      name: "offset",
      type: "INT64",
      optional: false,
      pages: [
        { kind: "v1", values: ROWS, encoding: "DELTA_BINARY_PACKED", body: Uint8Array.of(0) },
      ],
    };
    await expectRejected(
      recordFile([dictionary, validPathV1], offset),
      /encoding DELTA_BINARY_PACKED is not supported in reference files/,
    );
  });

  it("nested and repeated schemas are refused", () => {
    expect(() =>
      flatColumns([
        { name: "schema", num_children: 1 },
        { name: "group", num_children: 1 },
        { name: "path", type: "BYTE_ARRAY" },
      ]),
    ).toThrow(/column group is nested or repeated/);
    expect(() =>
      flatColumns([
        { name: "schema", num_children: 1 },
        { name: "path", type: "BYTE_ARRAY", repetition_type: "REPEATED" },
      ]),
    ).toThrow(/column path is nested or repeated/);
  });
});

describe.runIf(CHILD)("fuzz: bytes flipped anywhere in a Parquet reference file", () => {
  const written = (codec: "SNAPPY" | "UNCOMPRESSED") =>
    new Uint8Array(
      parquetWriteBuffer({
        codec,
        columnData: [
          {
            name: "path",
            type: "STRING",
            nullable: true,
            data: PATH_INDEX.map((p) => (p < 0 ? null : PATHS[p])),
          },
          { name: "offset", type: "INT64", data: PATH_INDEX.map((_, i) => BigInt(i * 100)) },
          { name: "size", type: "INT64", data: PATH_INDEX.map(() => 100n) },
          {
            name: "raw",
            type: "BYTE_ARRAY",
            nullable: true,
            data: PATH_INDEX.map((_, i) => (i === 5 ? new TextEncoder().encode("AB") : null)),
          },
        ],
      }),
    );
  const files: [string, Uint8Array][] = [
    ["hyparquet-writer, snappy v2 pages with a dictionary", written("SNAPPY")],
    ["hyparquet-writer, uncompressed v2 pages", written("UNCOMPRESSED")],
    ["hand-made v1 and v2 pages with a dictionary", recordFile([dictionary, validPathV1])],
  ];

  for (const [name, valid] of files) {
    it(`${name}: reads as written; ${RUNS} mutations read or throw StoreError, each within ${CASE_MS} ms`, async () => {
      expect(await readAll(valid)).toEqual(EXPECTED);
      let readable = 0;
      let slowest = 0;
      /** Rejections by the guard's reason (its message up to the first digit). */
      const reasons = new Map<string, number>();
      // Three flips in four land in the pages (before the footer), the rest anywhere.
      const pagesEnd =
        valid.length - 8 - new DataView(valid.buffer).getUint32(valid.length - 8, true);
      const at = fc.oneof(
        { arbitrary: fc.nat(pagesEnd - 1), weight: 3 },
        { arbitrary: fc.nat(valid.length - 1), weight: 1 },
      );
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(at, fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
          fc.oneof(
            { arbitrary: fc.constant(undefined), weight: 7 },
            { arbitrary: fc.nat(valid.length), weight: 1 },
          ),
          async (flips, cut) => {
            const bytes = valid.slice(0, cut);
            for (const [at, v] of flips) if (at < bytes.length) bytes[at] = v;
            const started = performance.now();
            try {
              const refs = await readAll(bytes);
              for (const ref of refs as { kind?: string; offset?: number; length?: number }[]) {
                if (ref?.kind === "range")
                  expect(Number.isSafeInteger((ref.offset ?? 0) + (ref.length ?? 0))).toBe(true);
              }
              readable++;
            } catch (e) {
              expect(e).toBeInstanceOf(StoreError);
              expect((e as StoreError).message).toMatch(/a\/refs\.0\.parq|"a\/\d+"/);
              const reason = String(((e as Error).cause as Error | undefined)?.message);
              const page = /^column \w+, page \d+: ([^\d]*)/.exec(reason);
              const key = page ? page[1].trim() : "(not a page check)";
              reasons.set(key, (reasons.get(key) ?? 0) + 1);
            }
            const ms = performance.now() - started;
            slowest = Math.max(slowest, ms);
            expect(ms).toBeLessThan(CASE_MS);
          },
        ),
        { seed: 11, numRuns: RUNS },
      );
      const top = [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 8);
      console.info(
        `${name}: ${RUNS} mutated files, ${readable} readable, slowest ${slowest.toFixed(1)} ms;` +
          ` rejections: ${top.map(([r, n]) => `${n} ${r}`).join("; ")}`,
      );
    });
  }
});

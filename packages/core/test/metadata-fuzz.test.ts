// Fuzzing of v3 metadata parsing (v3 core: "Array metadata", "Group metadata"):
// parseNodeMetadataV3 on random bytes, random JSON, and valid documents with
// structural and byte-level mutations. Every input parses (and then
// serializes and re-parses to the same metadata, and opens or fails cleanly)
// or fails with a ZarrError naming the document. FUZZ_RUNS raises the number
// of cases (`pnpm fuzz`).
import { type JsonObject, type JsonValue, MemoryStore, open, ZarrError } from "@zarr/core";
import {
  encodeMetadata,
  type NodeMetadataV3,
  parseNodeMetadataV3,
  serializeArrayMetadataV3,
  serializeGroupMetadataV3,
} from "@zarr/core/internal";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const RUNS = Number(process.env.FUZZ_RUNS) || 10_000;
const CASE_MS = 2_000;
const DOC = "fuzz/node/zarr.json";
const utf8 = new TextEncoder();

let slowest = 0;
const seen = { parsed: 0, rejected: 0 };

/** Parses `bytes`: the metadata, or `undefined` after checking the error is a ZarrError naming the document. */
function parse(bytes: Uint8Array): NodeMetadataV3 | undefined {
  const t0 = performance.now();
  try {
    const node = parseNodeMetadataV3(bytes, DOC);
    seen.parsed++;
    return node;
  } catch (e) {
    if (!(e instanceof ZarrError)) throw e;
    expect(`${e.message} ${e.path ?? ""}`).toContain(DOC);
    seen.rejected++;
    return undefined;
  } finally {
    const ms = performance.now() - t0;
    slowest = Math.max(slowest, ms);
    expect(ms).toBeLessThan(CASE_MS);
  }
}

function serialize(node: NodeMetadataV3): JsonObject {
  return node.kind === "array"
    ? serializeArrayMetadataV3(node.meta)
    : serializeGroupMetadataV3(node.meta);
}

/** A parsed document survives serialize -> parse unchanged, and opening it fails only with a ZarrError. */
async function checkParsed(node: NodeMetadataV3): Promise<void> {
  const again = parseNodeMetadataV3(encodeMetadata(serialize(node)), DOC);
  expect(serialize(again)).toEqual(serialize(node));
  const store = new MemoryStore();
  await store.set(DOC, encodeMetadata(serialize(node)));
  try {
    const opened = await open(store, "fuzz/node");
    expect(opened.kind).toBe(node.kind);
  } catch (e) {
    if (!(e instanceof ZarrError)) throw e;
  }
}

// Valid documents -----------------------------------------------------------

const FILLS: Record<string, JsonValue[]> = {
  bool: [false, true],
  int8: [0, -128, 127],
  uint16: [0, 65535],
  int64: [0, -9007199254740991, 9007199254740991],
  uint64: [0, 9007199254740991],
  float16: [0, "NaN", "-Infinity", "0x7e00"],
  float32: [0, -0.5, "NaN", "Infinity", "0x7fc00001"],
  float64: [1e300, "NaN", "0x7ff8000000000000"],
  complex64: [
    [0, 0],
    ["NaN", 1],
  ],
  complex128: [[1.5, "-Infinity"]],
  r16: [[0, 255]],
  string: ["", "fill"],
  bytes: [[], [1, 2]],
};

const codecsFor = (dtype: string, ndim: number): fc.Arbitrary<JsonValue[]> => {
  if (dtype === "string") return fc.constant([{ name: "vlen-utf8" }]);
  if (dtype === "bytes") return fc.constant([{ name: "vlen-bytes" }]);
  const bytes = { name: "bytes", configuration: { endian: "little" } };
  const order = Array.from({ length: ndim }, (_, i) => ndim - 1 - i);
  return fc.constantFrom<JsonValue[]>(
    [bytes],
    [bytes, { name: "crc32c" }],
    [{ name: "transpose", configuration: { order } }, bytes],
    ["bytes"].map(() => ({ name: "bytes", configuration: { endian: "big" } })),
  );
};

const arrayDoc: fc.Arbitrary<JsonObject> = fc
  .record({
    shape: fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 0, maxLength: 3 }),
    dtype: fc.constantFrom(...Object.keys(FILLS)),
    separator: fc.constantFrom("/", "."),
    encoding: fc.constantFrom("default", "v2"),
    attributes: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), {
      maxKeys: 3,
    }),
    named: fc.boolean(),
  })
  .chain((r) =>
    fc.record({
      zarr_format: fc.constant(3),
      node_type: fc.constant("array"),
      shape: fc.constant(r.shape),
      data_type: fc.constant(r.dtype),
      chunk_grid: fc
        .tuple(...r.shape.map((s) => fc.integer({ min: 1, max: Math.max(1, s) })))
        .map((chunk_shape) => ({ name: "regular", configuration: { chunk_shape } })),
      chunk_key_encoding: fc.constant({
        name: r.encoding,
        configuration: { separator: r.separator },
      }),
      fill_value: fc.constantFrom(...FILLS[r.dtype]),
      codecs: codecsFor(r.dtype, r.shape.length),
      attributes: fc.constant(r.attributes as JsonObject),
      ...(r.named
        ? { dimension_names: fc.constant(r.shape.map((_, i) => (i === 0 ? null : `d${i}`))) }
        : {}),
    }),
  );

const groupDoc: fc.Arbitrary<JsonObject> = fc.record({
  zarr_format: fc.constant(3),
  node_type: fc.constant("group"),
  attributes: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), {
    maxKeys: 3,
  }) as fc.Arbitrary<JsonObject>,
});

const validDoc = fc.oneof({ weight: 4, arbitrary: arrayDoc }, { weight: 1, arbitrary: groupDoc });

// Mutations -------------------------------------------------------------------

/** A JSON path into a document: its nested keys and indices. */
function paths(value: JsonValue, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [prefix];
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) out.push(...paths(v, [...prefix, i]));
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) out.push(...paths(v as JsonValue, [...prefix, k]));
  }
  return out;
}

type Edit = { op: "delete" } | { op: "replace"; value: JsonValue } | { op: "add"; key: string };

/** Applies `edit` at the `pick`-th path of `doc` (a deep copy is edited). */
function applyEdit(doc: JsonObject, pick: number, edit: Edit): JsonValue {
  const copy = structuredClone(doc) as JsonValue;
  const all = paths(copy);
  const target = all[pick % all.length];
  if (target.length === 0) return edit.op === "replace" ? edit.value : copy;
  let parent = copy as Record<string | number, JsonValue>;
  for (const k of target.slice(0, -1)) parent = parent[k] as Record<string | number, JsonValue>;
  const last = target[target.length - 1];
  if (edit.op === "delete") {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else if (edit.op === "replace") {
    parent[last] = edit.value;
  } else {
    const node = parent[last];
    if (node !== null && typeof node === "object" && !Array.isArray(node)) {
      (node as Record<string, JsonValue>)[edit.key] = 1;
    } else if (Array.isArray(node)) node.push(0);
  }
  return copy;
}

const tricky: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>,
  fc.constantFrom<JsonValue>(
    -1,
    0,
    2 ** 53,
    2 ** 64,
    1e308,
    -0,
    0.5,
    "",
    "NaN",
    "0x",
    "0xfffffffffffffffff",
    null,
    [],
    {},
    [2 ** 31, 2 ** 31, 2 ** 31],
    "int32",
    "sharding_indexed",
    { name: "bytes" },
    { name: "must_understand", must_understand: false },
  ),
);

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.constant<Edit>({ op: "delete" }),
  tricky.map((value): Edit => ({ op: "replace", value })),
  fc
    .constantFrom("extra", "must_understand", "__proto__", "configuration")
    .map((key): Edit => ({ op: "add", key })),
);

describe("parseNodeMetadataV3 fuzzing (v3 core: array and group metadata)", () => {
  it("valid documents parse, round-trip and open", async () => {
    await fc.assert(
      fc.asyncProperty(validDoc, async (doc) => {
        const node = parse(utf8.encode(JSON.stringify(doc)));
        expect(node).toBeDefined();
        await checkParsed(node!);
      }),
      { seed: 42, numRuns: RUNS / 5 },
    );
  });

  it("structurally mutated documents parse consistently or fail with a ZarrError", async () => {
    await fc.assert(
      fc.asyncProperty(
        validDoc,
        fc.array(fc.tuple(fc.nat(), edit), { minLength: 1, maxLength: 3 }),
        async (doc, edits) => {
          let current: JsonValue = doc;
          for (const [pick, e] of edits) {
            if (current === null || typeof current !== "object" || Array.isArray(current)) break;
            current = applyEdit(current as JsonObject, pick, e);
          }
          const node = parse(utf8.encode(JSON.stringify(current)));
          if (node) await checkParsed(node);
        },
      ),
      { seed: 43, numRuns: (RUNS * 2) / 5 },
    );
  });

  it("byte-mutated and truncated documents parse consistently or fail with a ZarrError", async () => {
    await fc.assert(
      fc.asyncProperty(
        validDoc,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { maxLength: 3 }),
        fc.option(fc.nat(), { nil: undefined }),
        async (doc, flips, cut) => {
          let bytes = encodeMetadata(doc);
          for (const [pos, xor] of flips) bytes[pos % bytes.length] ^= xor;
          if (cut !== undefined) bytes = bytes.subarray(0, cut % (bytes.length + 1));
          const node = parse(bytes);
          if (node) await checkParsed(node);
        },
      ),
      { seed: 44, numRuns: RUNS / 5 },
    );
  });

  it("random JSON values and random bytes fail with a ZarrError (or parse)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue({ maxDepth: 3 }).map((v) => utf8.encode(JSON.stringify(v) ?? "null")),
          fc.uint8Array({ maxLength: 64 }),
          fc
            .string({ unit: fc.constantFrom(...'{}[]":,0123456789.eE+-ntrufasl \\') })
            .map((s) => utf8.encode(s)),
        ),
        async (bytes) => {
          const node = parse(bytes);
          if (node) await checkParsed(node);
        },
      ),
      { seed: 45, numRuns: RUNS / 5 },
    );
  });

  it("deep nesting, huge numbers and long documents fail fast with a MetadataError", () => {
    const group = (attributes: string) =>
      `{"zarr_format":3,"node_type":"group","attributes":${attributes}}`;
    for (const text of [
      `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
      // Valid but for its depth: code walking the attributes would overflow the stack.
      group(`${'{"a":'.repeat(50_000)}1${"}".repeat(50_000)}`),
      group(`{"a":${"[".repeat(1_001)}${"]".repeat(1_001)}}`),
      `{"zarr_format":3,"node_type":"array","shape":[1${"0".repeat(10_000)}]}`,
      `"${"\\u0000".repeat(200_000)}"`,
    ]) {
      expect(parse(utf8.encode(text))).toBeUndefined();
    }
    // Up to 1000 levels are fine.
    expect(parse(utf8.encode(group(`{"a":${"[".repeat(998)}${"]".repeat(998)}}`)))).toBeDefined();
  });

  it("the generators reached both outcomes, and no case came close to the time bound", () => {
    const total = seen.parsed + seen.rejected;
    expect(seen.parsed / total).toBeGreaterThan(0.1);
    expect(seen.rejected / total).toBeGreaterThan(0.1);
    console.info(`${RUNS} cases; slowest case ${slowest.toFixed(1)} ms`);
    expect(slowest).toBeLessThan(CASE_MS);
  });
});

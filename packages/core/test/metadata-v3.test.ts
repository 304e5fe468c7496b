import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import {
  InvalidKeyError,
  type JsonObject,
  type JsonValue,
  MetadataError,
  NotRegisteredError,
  UnsupportedError,
} from "@zarr/core";
import {
  type ArrayMetadataV3,
  chunkPrefix,
  encodeMetadata,
  metadataKey,
  normalizePath,
  parseArrayMetadataV3,
  parseGroupMetadataV3,
  parseJson,
  parseNodeMetadataV3,
  serializeArrayMetadataV3,
  serializeGroupMetadataV3,
  validateNodeName,
} from "@zarr/core/internal";
import { fixturesSkipReason, haveFixtures, zarritaFixtures } from "@zarr/test-utils";
import { describe, expect, it } from "vitest";

const DOC = "foo/zarr.json";

function baseArray(): JsonObject {
  return {
    zarr_format: 3,
    node_type: "array",
    shape: [10, 20],
    data_type: "uint8",
    chunk_grid: { name: "regular", configuration: { chunk_shape: [5, 5] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    fill_value: 0,
    codecs: [{ name: "bytes" }],
    attributes: { a: 1 },
  };
}

function withChanges(changes: JsonObject, remove: string[] = []): JsonObject {
  const doc: JsonObject = { ...baseArray(), ...changes };
  for (const key of remove) delete doc[key];
  return doc;
}

/** Asserts that parsing throws `type` with a message naming the document and `field`. */
function expectFailure(
  parse: () => unknown,
  field: string,
  type: typeof MetadataError | typeof UnsupportedError = MetadataError,
): Error {
  let error: unknown;
  try {
    parse();
  } catch (e) {
    error = e;
  }
  expect(error, `expected a ${type.name} about ${field}`).toBeInstanceOf(type);
  const e = error as MetadataError;
  expect(e.message).toContain(DOC);
  expect(e.message).toContain(field);
  expect(e.path).toContain(DOC);
  return e;
}

describe("v3 core: array metadata MUSTs", () => {
  it("accepts the base document", () => {
    const { meta, dataType, fillValue } = parseArrayMetadataV3(baseArray(), DOC);
    expect(dataType.name).toBe("uint8");
    expect(fillValue.value).toBe(0);
    expect(meta.shape).toEqual([10, 20]);
    expect(meta.extra).toEqual({});
  });

  const required = [
    "zarr_format",
    "node_type",
    "shape",
    "data_type",
    "chunk_grid",
    "chunk_key_encoding",
    "fill_value",
    "codecs",
  ];
  it.each(required)("missing required field %s", (field) => {
    const e = expectFailure(() => parseArrayMetadataV3(withChanges({}, [field]), DOC), field);
    expect(e.message).toMatch(/missing/);
  });

  it("attributes are optional (default {})", () => {
    const { meta } = parseArrayMetadataV3(withChanges({}, ["attributes"]), DOC);
    expect(meta.attributes).toEqual({});
  });

  const invalid: [string, JsonObject, string][] = [
    ["zarr_format 2", { zarr_format: 2 }, "zarr_format"],
    ["zarr_format as string", { zarr_format: "3" }, "zarr_format"],
    ["node_type group", { node_type: "group" }, "node_type"],
    ["node_type unknown", { node_type: "table" }, "node_type"],
    ["shape not an array", { shape: 10 }, "shape"],
    ["shape negative", { shape: [10, -1] }, "shape[1]"],
    ["shape float", { shape: [10.5, 20] }, "shape[0]"],
    ["shape beyond 2^53", { shape: [2n ** 60n, 20] }, "shape[0]"],
    ["shape string", { shape: ["10", 20] }, "shape[0]"],
    ["data_type not string/object", { data_type: 5 }, "data_type"],
    ["data_type r12 (not a multiple of 8)", { data_type: "r12", fill_value: [0] }, "data_type"],
    ["chunk_grid not an object", { chunk_grid: "regular" }, "chunk_grid"],
    ["chunk_grid name missing", { chunk_grid: { configuration: {} } }, "chunk_grid.name"],
    [
      "chunk_grid configuration not an object",
      { chunk_grid: { name: "regular", configuration: [5, 5] } },
      "chunk_grid.configuration",
    ],
    [
      "regular grid without configuration",
      { chunk_grid: { name: "regular" } },
      "chunk_grid.configuration",
    ],
    [
      "chunk_shape rank mismatch",
      { chunk_grid: { name: "regular", configuration: { chunk_shape: [5] } } },
      "chunk_grid.configuration.chunk_shape",
    ],
    [
      "chunk_shape zero for a non-empty dimension",
      { chunk_grid: { name: "regular", configuration: { chunk_shape: [5, 0] } } },
      "chunk_shape[1]",
    ],
    [
      "chunk_shape negative",
      { chunk_grid: { name: "regular", configuration: { chunk_shape: [-5, 5] } } },
      "chunk_shape[0]",
    ],
    [
      "chunk_shape float",
      { chunk_grid: { name: "regular", configuration: { chunk_shape: [2.5, 5] } } },
      "chunk_shape[0]",
    ],
    [
      "chunk_grid unknown member",
      { chunk_grid: { name: "regular", configuration: { chunk_shape: [5, 5] }, extra: 1 } },
      "chunk_grid.extra",
    ],
    ["chunk_key_encoding not an object", { chunk_key_encoding: "default" }, "chunk_key_encoding"],
    [
      "chunk_key_encoding name not a string",
      { chunk_key_encoding: { name: 1 } },
      "chunk_key_encoding.name",
    ],
    [
      "bad default separator",
      { chunk_key_encoding: { name: "default", configuration: { separator: "-" } } },
      "chunk_key_encoding.configuration.separator",
    ],
    [
      "bad v2 separator",
      { chunk_key_encoding: { name: "v2", configuration: { separator: "" } } },
      "chunk_key_encoding.configuration.separator",
    ],
    [
      "chunk_key_encoding configuration not an object",
      { chunk_key_encoding: { name: "default", configuration: "/" } },
      "chunk_key_encoding.configuration",
    ],
    ["codecs not an array", { codecs: { name: "bytes" } }, "codecs"],
    ["codecs empty", { codecs: [] }, "codecs"],
    ["codec not an object", { codecs: [5] }, "codecs[0]"],
    ["codec without name", { codecs: [{ configuration: {} }] }, "codecs[0].name"],
    [
      "codec configuration not an object",
      { codecs: [{ name: "bytes", configuration: "little" }] },
      "codecs[0].configuration",
    ],
    ["codec unknown member", { codecs: [{ name: "bytes", level: 1 }] }, "codecs[0].level"],
    ["attributes not an object", { attributes: [1, 2] }, "attributes"],
    ["attributes null", { attributes: null }, "attributes"],
    ["dimension_names length mismatch", { dimension_names: ["x"] }, "dimension_names"],
    ["dimension_names not an array", { dimension_names: "x" }, "dimension_names"],
    ["dimension_names bad entry", { dimension_names: ["x", 1] }, "dimension_names[1]"],
    ["storage_transformers not an array", { storage_transformers: {} }, "storage_transformers"],
    ["unknown key", { foo: 1 }, "foo"],
    ["unknown key with object value", { foo: { bar: 1 } }, "foo"],
    ["unknown key with must_understand true", { foo: { must_understand: true } }, "foo"],
  ];
  it.each(invalid)("%s", (_name, changes, field) => {
    expectFailure(() => parseArrayMetadataV3(withChanges(changes), DOC), field);
  });

  it("the document must be an object", () => {
    expectFailure(() => parseArrayMetadataV3([1, 2], DOC), "document");
  });

  it("non-empty storage_transformers are unsupported, naming each transformer", () => {
    const e = expectFailure(
      () =>
        parseArrayMetadataV3(
          withChanges({ storage_transformers: [{ name: "x" }, { name: "y", configuration: {} }] }),
          DOC,
        ),
      "storage_transformers",
      UnsupportedError,
    );
    expect(e.message).toContain("'x'");
    expect(e.message).toContain("'y'");
    expect(e).not.toBeInstanceOf(MetadataError);
  });

  it("empty storage_transformers are fine and kept", () => {
    const { meta } = parseArrayMetadataV3(withChanges({ storage_transformers: [] }), DOC);
    expect(serializeArrayMetadataV3(meta).storage_transformers).toEqual([]);
  });

  it("unknown keys with must_understand: false are accepted and preserved", () => {
    const ext = { must_understand: false, payload: [1, 2, 18446744073709551615n] };
    const { meta } = parseArrayMetadataV3(withChanges({ my_extension: ext }), DOC);
    expect(meta.extra).toEqual({ my_extension: ext });
    const out = serializeArrayMetadataV3(meta);
    expect(out.my_extension).toEqual(ext);
    expect(Object.keys(out).at(-1)).toBe("my_extension");
  });

  it("an unknown data type is NotRegisteredError naming it", () => {
    const e = expectFailure(
      () => parseArrayMetadataV3(withChanges({ data_type: "quaternion" }), DOC),
      "data_type",
      UnsupportedError,
    );
    expect(e).toBeInstanceOf(NotRegisteredError);
    expect(e.message).toContain("quaternion");
  });

  it("other chunk grids and key encodings are kept as found", () => {
    const grid = {
      name: "rectilinear",
      configuration: { kind: "inline", chunk_shapes: [5, [[2, 10]]] },
    };
    const cke = { name: "custom", configuration: { anything: true } };
    const { meta } = parseArrayMetadataV3(
      withChanges({ chunk_grid: grid, chunk_key_encoding: cke }),
      DOC,
    );
    expect(meta.chunk_grid).toEqual(grid);
    expect(meta.chunk_key_encoding).toEqual(cke);
  });

  it("zero-length dimensions may have chunk length 0", () => {
    const { meta } = parseArrayMetadataV3(
      withChanges({
        shape: [0, 20],
        chunk_grid: { name: "regular", configuration: { chunk_shape: [0, 5] } },
      }),
      DOC,
    );
    expect(meta.shape).toEqual([0, 20]);
  });

  it("codec string shorthand expands to {name}; must_understand is kept", () => {
    const { meta } = parseArrayMetadataV3(
      withChanges({ codecs: ["bytes", { name: "crc32c", must_understand: false }] }),
      DOC,
    );
    expect(meta.codecs).toEqual([{ name: "bytes" }, { name: "crc32c", must_understand: false }]);
  });

  it("dimension_names: strings and nulls; null field means absent", () => {
    const { meta } = parseArrayMetadataV3(withChanges({ dimension_names: ["x", null] }), DOC);
    expect(meta.dimension_names).toEqual(["x", null]);
    const none = parseArrayMetadataV3(withChanges({ dimension_names: null }), DOC).meta;
    expect(none.dimension_names).toBeUndefined();
  });

  it("data_type may be an object {name}", () => {
    const { dataType } = parseArrayMetadataV3(withChanges({ data_type: { name: "uint8" } }), DOC);
    expect(dataType.name).toBe("uint8");
  });
});

describe("v3 core: fill_value must be representable in the data type", () => {
  const cases: [string, JsonValue, JsonValue][] = [
    ["uint8", 300, "300"],
    ["uint8", -1, "-1"],
    ["uint8", 1.5, "1.5"],
    ["uint8", "0", '"0"'],
    ["uint8", null, "null"],
    ["int8", -129, "-129"],
    ["int8", 128, "128"],
    ["int16", 32768, "32768"],
    ["int32", 2 ** 31, "2147483648"],
    ["uint32", 2 ** 32, "4294967296"],
    ["int64", 9223372036854775808n, "9223372036854775808"],
    ["int64", -9223372036854775809n, "-9223372036854775809"],
    ["int64", 1e19, "10000000000000000000"], // an exponent/fraction form beyond 2^53
    ["uint64", 18446744073709551616n, "18446744073709551616"],
    ["uint64", -1, "-1"],
    ["float32", "nan", '"nan"'],
    ["float32", "inf", '"inf"'],
    ["float32", "0x7fc0000", '"0x7fc0000"'], // 7 hex digits
    ["float32", "0x7fc000000", '"0x7fc000000"'], // 9 hex digits
    ["float16", "0x7fc00000", '"0x7fc00000"'], // float32 width for float16
    ["float64", "0x7ff8", '"0x7ff8"'],
    ["float64", Number.POSITIVE_INFINITY, "Infinity"], // JSON 1e400 overflows
    ["float64", true, "true"],
    ["complex64", 1, "1"],
    ["complex64", [1], "[1]"],
    ["complex64", [1, 2, 3], "[1,2,3]"],
    ["complex128", [1, "nan"], '"nan"'],
    ["r16", [1], "[1]"],
    ["r16", [1, 2, 3], "[1,2,3]"],
    ["r16", [1, 256], "[1,256]"],
    ["r16", [1, -1], "[1,-1]"],
    ["r16", 5, "5"],
    ["bool", 0, "0"],
    ["bool", "true", '"true"'],
    ["string", 0, "0"],
    ["bytes", [1, 300], "[1,300]"],
  ];
  it.each(cases)("%s: %s", (dataType, fill, shown) => {
    const e = expectFailure(
      () => parseArrayMetadataV3(withChanges({ data_type: dataType, fill_value: fill }), DOC),
      "fill_value",
    );
    expect(e.message).toContain(shown as string);
  });

  it("names the type in the message", () => {
    const e = expectFailure(
      () => parseArrayMetadataV3(withChanges({ fill_value: 300 }), DOC),
      "fill_value",
    );
    expect(e.message).toBe(
      `${DOC}: fill_value: 300 is not representable as uint8 (expected an integer in 0..255)`,
    );
  });
});

describe("v3 core: group metadata", () => {
  it("accepts a minimal group and defaults attributes", () => {
    const meta = parseGroupMetadataV3({ zarr_format: 3, node_type: "group" }, DOC);
    expect(meta).toEqual({ zarr_format: 3, node_type: "group", attributes: {}, extra: {} });
  });

  const invalid: [string, JsonValue, string][] = [
    ["zarr_format 2", { zarr_format: 2, node_type: "group" }, "zarr_format"],
    ["missing zarr_format", { node_type: "group" }, "zarr_format"],
    ["missing node_type", { zarr_format: 3 }, "node_type"],
    ["node_type array", { zarr_format: 3, node_type: "array" }, "node_type"],
    [
      "attributes not an object",
      { zarr_format: 3, node_type: "group", attributes: "x" },
      "attributes",
    ],
    ["unknown key", { zarr_format: 3, node_type: "group", shape: [1] }, "shape"],
    [
      "consolidated_metadata not an object",
      { zarr_format: 3, node_type: "group", consolidated_metadata: 5 },
      "consolidated_metadata",
    ],
  ];
  it.each(invalid)("%s", (_name, doc, field) => {
    expectFailure(() => parseGroupMetadataV3(doc, DOC), field);
  });

  it("keeps consolidated_metadata (also null) and must_understand: false extras", () => {
    const doc = {
      zarr_format: 3,
      node_type: "group",
      attributes: { x: 1 },
      consolidated_metadata: null,
      ext: { must_understand: false, v: 1 },
    } as JsonObject;
    const meta = parseGroupMetadataV3(doc, DOC);
    expect(meta.consolidated_metadata).toBeNull();
    expect(serializeGroupMetadataV3(meta)).toEqual(doc);
  });
});

describe("parseNodeMetadataV3", () => {
  const enc = (v: JsonValue) => encodeMetadata(v as JsonObject);

  it("dispatches on node_type", () => {
    expect(parseNodeMetadataV3(enc(baseArray()), DOC).kind).toBe("array");
    expect(parseNodeMetadataV3(enc({ zarr_format: 3, node_type: "group" }), DOC).kind).toBe(
      "group",
    );
  });

  it.each([
    ["malformed JSON", new TextEncoder().encode("{"), "invalid JSON"],
    ["not an object", new TextEncoder().encode("[]"), "document"],
    ["v2 document", enc({ zarr_format: 2, shape: [1] }), "zarr_format"],
    ["unknown node_type", enc({ zarr_format: 3, node_type: "x" }), "node_type"],
    ["missing node_type", enc({ zarr_format: 3 }), "node_type"],
  ])("%s", (_name, bytes, field) => {
    expectFailure(() => parseNodeMetadataV3(bytes, DOC), field);
  });

  it("keeps uint64 fill values exact", () => {
    const text = JSON.stringify(withChanges({ data_type: "uint64", fill_value: 0 })).replace(
      '"fill_value":0',
      '"fill_value":18446744073709551615',
    );
    const node = parseNodeMetadataV3(new TextEncoder().encode(text), DOC);
    if (node.kind !== "array") throw new Error("expected an array");
    expect(node.fillValue.value).toBe(18446744073709551615n);
    expect(new TextDecoder().decode(encodeMetadata(serializeArrayMetadataV3(node.meta)))).toContain(
      '"fill_value": 18446744073709551615',
    );
  });
});

describe("serialization", () => {
  it("writes the conventional key order", () => {
    const doc = withChanges({ dimension_names: ["x", "y"], storage_transformers: [] });
    const shuffled = Object.fromEntries(Object.entries(doc).reverse()) as JsonObject;
    const out = serializeArrayMetadataV3(parseArrayMetadataV3(shuffled, DOC).meta);
    expect(Object.keys(out)).toEqual([
      "zarr_format",
      "node_type",
      "shape",
      "data_type",
      "chunk_grid",
      "chunk_key_encoding",
      "fill_value",
      "codecs",
      "attributes",
      "dimension_names",
      "storage_transformers",
    ]);
  });

  it("encodes 2-space indented UTF-8 JSON", () => {
    const bytes = encodeMetadata({ zarr_format: 3, node_type: "group", attributes: { é: 1 } });
    expect(new TextDecoder().decode(bytes)).toBe(
      '{\n  "zarr_format": 3,\n  "node_type": "group",\n  "attributes": {\n    "é": 1\n  }\n}',
    );
  });
});

function findDocuments(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...findDocuments(p));
    else if (name === "zarr.json") out.push(p);
  }
  return out;
}

const fixturesPresent = haveFixtures();
if (!fixturesPresent) console.warn(fixturesSkipReason);

describe.skipIf(!fixturesPresent)("round trips of the zarrita v3 fixtures", () => {
  const root = join(zarritaFixtures, "v3/data.zarr");
  const docs = fixturesPresent ? findDocuments(root) : [];

  it("finds the fixture documents", () => {
    expect(docs.length).toBeGreaterThan(40);
  });

  it.each(docs.map((d) => [relative(root, d), d]))(
    "%s: parse -> serialize -> parse",
    (name, file) => {
      const bytes = readFileSync(file);
      const first = parseNodeMetadataV3(bytes, name);
      const serialize = (n: typeof first) =>
        n.kind === "array" ? serializeArrayMetadataV3(n.meta) : serializeGroupMetadataV3(n.meta);
      const encoded = encodeMetadata(serialize(first));
      const second = parseNodeMetadataV3(encoded, name);
      expect(second).toEqual(first);
      // Nothing is lost: the re-encoded document equals the original as JSON, except
      // that "dimension_names": null (written by zarr-python, not valid per spec) is
      // read as absent and not written back.
      const original = parseJson(bytes, name) as JsonObject;
      if (original.dimension_names === null) delete original.dimension_names;
      expect(parseJson(encoded, name)).toEqual(original);
      if (first.kind === "array" && second.kind === "array") {
        expect(second.fillValue.bits).toEqual(first.fillValue.bits);
        expect(second.dataType).toBe(first.dataType);
      }
    },
  );

  it("parses consolidated metadata entries as nodes too", () => {
    const bytes = readFileSync(join(root, "consolidated/zarr.json"));
    const node = parseNodeMetadataV3(bytes, "consolidated/zarr.json");
    if (node.kind !== "group") throw new Error("expected a group");
    const cm = node.meta.consolidated_metadata as { metadata: Record<string, JsonValue> };
    const entries = Object.entries(cm.metadata);
    expect(entries.length).toBeGreaterThan(0);
    for (const [key, value] of entries) {
      const kind = (value as JsonObject).node_type;
      if (kind === "array") parseArrayMetadataV3(value, key) as { meta: ArrayMetadataV3 };
      else parseGroupMetadataV3(value, key);
    }
  });
});

describe("v3 core: node names and paths", () => {
  it.each(["foo", "FOO", "a.b", "...a", "é", "my group with spaces", "_x", "a_", "0"])(
    "valid name %j",
    (name) => {
      expect(() => validateNodeName(name)).not.toThrow();
    },
  );

  it.each(["", "a/b", ".", "..", "...", "__zarr", "__x", "a\\b", "a\0b"])(
    "invalid name %j",
    (name) => {
      let error: unknown;
      try {
        validateNodeName(name);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InvalidKeyError);
      expect((error as Error).message).toContain(JSON.stringify(name));
    },
  );

  it.each([
    ["", ""],
    ["/", ""],
    ["foo", "foo"],
    ["/foo/bar/", "foo/bar"],
    ["a//b", "a/b"],
    ["//a///b//", "a/b"],
  ])("normalizePath(%j) = %j", (input, expected) => {
    expect(normalizePath(input)).toBe(expected);
  });

  it.each(["a/../b", "./a", "a/__b", "a/.", "a\\b"])(
    "normalizePath(%j) throws naming the path",
    (p) => {
      let error: unknown;
      try {
        normalizePath(p);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InvalidKeyError);
      expect((error as InvalidKeyError).path).toBe(p);
    },
  );

  it("metadataKey and chunkPrefix", () => {
    expect(metadataKey("")).toBe("zarr.json");
    expect(metadataKey("/a/b/")).toBe("a/b/zarr.json");
    expect(metadataKey("a", ".zarray")).toBe("a/.zarray");
    expect(chunkPrefix("")).toBe("");
    expect(chunkPrefix("a/b")).toBe("a/b/");
  });
});

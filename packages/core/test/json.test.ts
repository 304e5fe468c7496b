import { MetadataError } from "@zarr/core";
import { encodeJson, parseJson, stringifyJson } from "@zarr/core/internal";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

function parseError(input: string | Uint8Array): MetadataError {
  try {
    parseJson(input, "a/zarr.json");
  } catch (e) {
    expect(e).toBeInstanceOf(MetadataError);
    expect((e as MetadataError).path).toBe("a/zarr.json");
    expect((e as Error).message).toContain("a/zarr.json");
    return e as MetadataError;
  }
  throw new Error(`expected ${String(input)} to be rejected`);
}

describe("parseJson: exact integers", () => {
  it.each([
    ["9007199254740993", 9007199254740993n], // 2^53 + 1
    ["-9223372036854775808", -9223372036854775808n], // -2^63
    ["18446744073709551615", 18446744073709551615n], // 2^64 - 1
    ["123456789012345678901234567890", 123456789012345678901234567890n],
  ])("%s becomes a bigint", (text, expected) => {
    expect(parseJson(text, "x")).toBe(expected);
  });

  it.each([
    ["9007199254740991", 9007199254740991], // 2^53 - 1, still safe
    ["-9007199254740991", -9007199254740991],
    ["9007199254740992", 9007199254740992n], // 2^53 is not a safe integer
    ["0", 0],
    ["-0", -0],
    ["1.0", 1],
    ["9007199254740993.0", 9007199254740992], // fraction: a double, like JSON.parse
    ["1e400", Number.POSITIVE_INFINITY], // overflows like JSON.parse; fill values reject it
    ["1E2", 100],
    ["-1.5e-3", -0.0015],
    ["00000000000000001", undefined],
  ])("%s", (text, expected) => {
    if (expected === undefined) parseError(text);
    else expect(parseJson(text, "x")).toStrictEqual(expected);
  });

  it("keeps bigints nested in arrays and objects", () => {
    const v = parseJson('{"a": [1, 18446744073709551615, {"b": -9223372036854775809}]}', "x");
    expect(v).toStrictEqual({ a: [1, 18446744073709551615n, { b: -9223372036854775809n }] });
  });
});

describe("parseJson: like JSON.parse otherwise", () => {
  it.each([
    '{"a": 1, "b": [true, false, null], "c": {"d": "e"}}',
    "[]",
    "{}",
    '  \n\t\r "text"  ',
    '"\\u00e9\\u20ac\\ud83d\\ude00 \\" \\\\ \\/ \\b \\f \\n \\r \\t"',
    '"lone \\ud800 surrogate"',
    '{"a": 1, "a": 2}',
    '{"__proto__": {"x": 1}}',
    "[1.5, -2.25e10, 0.1, 3e-7]",
    '"\u00e9 raw unicode \u{1f600}"',
  ])("%s", (text) => {
    const ours = parseJson(text, "x");
    expect(ours).toStrictEqual(JSON.parse(text));
  });

  it("does not let __proto__ replace the prototype", () => {
    const v = parseJson('{"__proto__": {"polluted": true}}', "x") as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("decodes UTF-8 bytes and ignores a BOM", () => {
    const bytes = new TextEncoder().encode('\ufeff{"é": "😀"}');
    expect(parseJson(bytes, "x")).toStrictEqual({ é: "😀" });
  });

  it("agrees with JSON.parse on random JSON (bigints aside)", () => {
    const unbig = (v: unknown): unknown =>
      typeof v === "bigint"
        ? Number(v)
        : Array.isArray(v)
          ? v.map(unbig)
          : v && typeof v === "object"
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unbig(x)]))
            : v;
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(unbig(parseJson(text, "x"))).toStrictEqual(JSON.parse(text));
        // The same through the exact scanner (a long integer disables the fast path).
        const forced = parseJson(`[${text}, 18446744073709551615]`, "x") as unknown[];
        expect(unbig(forced[0])).toStrictEqual(JSON.parse(text));
      }),
      { seed: 42, numRuns: 500 },
    );
  });
});

describe("parseJson: malformed input is a MetadataError naming the document", () => {
  it.each([
    "",
    "   ",
    "{",
    "[1, 2",
    '{"a" 1}',
    '{"a": 1,}',
    "[1,]",
    "{a: 1}",
    "'single'",
    '"unterminated',
    '"bad \\x escape"',
    '"bad \\u12 escape"',
    '"control \u0001 char"',
    "-",
    "01",
    "1.",
    ".5",
    "1e",
    "+1",
    "tru",
    "nul",
    "[1] 2",
    '{"a": 1} x',
  ])("%j", (text) => {
    parseError(text);
  });

  it("reports line and column", () => {
    const e = parseError('{\n  "a": 1,\n  "b": ?\n}');
    expect(e.message).toMatch(/line 3 column 8/);
  });

  it("rejects invalid UTF-8", () => {
    const e = parseError(new Uint8Array([0x22, 0xff, 0xfe, 0x22]));
    expect(e.message).toMatch(/UTF-8/);
  });

  it("rejects very deep nesting instead of overflowing the stack", () => {
    const e = parseError("[".repeat(100_000));
    expect(e.message).toMatch(/nesting/);
  });
});

describe("stringifyJson", () => {
  it("matches JSON.stringify(value, null, 2) for plain JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const v = JSON.parse(JSON.stringify(value)); // drop -0, which we keep
        expect(stringifyJson(v)).toBe(JSON.stringify(v, null, 2));
        expect(stringifyJson(v, 0)).toBe(JSON.stringify(v));
      }),
      { seed: 42, numRuns: 500 },
    );
  });

  it("writes bigints as bare integers and -0 as -0.0 (a float with its sign for every parser)", () => {
    expect(stringifyJson({ a: 18446744073709551615n, b: [-9223372036854775808n], c: -0 }, 0)).toBe(
      '{"a":18446744073709551615,"b":[-9223372036854775808],"c":-0.0}',
    );
  });

  it("round-trips exactly through parseJson", () => {
    const v = { big: 2n ** 64n - 1n, neg: -(2n ** 63n), z: -0, s: "é\u2028\ud800", n: [1.5, null] };
    expect(parseJson(stringifyJson(v), "x")).toStrictEqual(v);
    expect(parseJson(encodeJson(v), "x")).toStrictEqual(v);
  });

  it("writes and reads non-finite numbers as Python's json does (zarr-python's attributes); rejects cycles", () => {
    const v = { m: Number.NaN, a: [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1.5] };
    expect(stringifyJson(v, 0)).toBe('{"m":NaN,"a":[Infinity,-Infinity,1.5]}');
    expect(parseJson(stringifyJson(v), "x")).toStrictEqual(v);
    expect(parseJson('{"x": -Infinity, "y": [NaN]}', "x")).toStrictEqual({
      x: Number.NEGATIVE_INFINITY,
      y: [Number.NaN],
    });
    for (const bad of ["nan", "Inf", "-Inf", "NaNa", "Infinityy", "+Infinity", "-NaN"])
      expect(() => parseJson(`[${bad}]`, "x"), bad).toThrow(MetadataError);
    const cyclic: { a?: unknown } = {};
    cyclic.a = cyclic;
    expect(() => stringifyJson(cyclic as never)).toThrow(MetadataError);
  });
});

describe("parseJson performance", () => {
  it("parses 5 MB of consolidated-metadata-like JSON quickly", () => {
    const node = {
      shape: [10000, 1000],
      data_type: "float64",
      chunk_grid: { name: "regular", configuration: { chunk_shape: [1000, 100] } },
      chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
      fill_value: "NaN",
      codecs: [{ name: "bytes", configuration: { endian: "little" } }],
      attributes: { description: "a long-ish description of the array", scale: 0.125, n: 42 },
      zarr_format: 3,
      node_type: "array",
    };
    const metadata: Record<string, unknown> = {};
    let i = 0;
    let text = "";
    while (text.length < 5_000_000) {
      for (let k = 0; k < 1000; k++, i++) metadata[`group/array_${i}`] = node;
      text = JSON.stringify({ metadata }, null, 2);
    }
    const t0 = performance.now();
    const parsed = parseJson(text, "zarr.json");
    const ms = performance.now() - t0;
    const t1 = performance.now();
    JSON.parse(text);
    const nativeMs = performance.now() - t1;
    console.log(
      `parseJson: ${(text.length / 1e6).toFixed(1)} MB in ${ms.toFixed(0)} ms (JSON.parse ${nativeMs.toFixed(0)} ms)`,
    );
    expect(Object.keys((parsed as { metadata: object }).metadata).length).toBe(i);
    expect(ms).toBeLessThan(1000);
    // One integer beyond 2^53 forces the exact scanner over the whole document.
    const exactText = text.replace('"n": 42', '"n": 18446744073709551615');
    const t2 = performance.now();
    const exact = parseJson(exactText, "zarr.json") as { metadata: Record<string, unknown> };
    const exactMs = performance.now() - t2;
    console.log(`parseJson (exact scanner): ${exactMs.toFixed(0)} ms`);
    expect(Object.keys(exact.metadata).length).toBe(i);
    expect(exactMs).toBeLessThan(1000);
  });
});

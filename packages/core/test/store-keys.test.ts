import { posix } from "node:path";
import { InvalidKeyError } from "@zarr/core";
import { isValidKey, validateKey, validatePrefix } from "@zarr/core/store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

// v3 core: "Abstract store interface" — a key is a Unicode string whose final
// character is not "/"; a prefix is "" or ends with "/". Core additionally rejects
// keys that could escape a store's root.

describe("validateKey", () => {
  it.each([
    "zarr.json",
    "a/b/c/0/1",
    "grp with spaces/数据/zarr.json",
    "🙂/é/c/0",
    " leading and trailing ",
    ".zattrs",
    "...",
    "a/.b/c.",
    "c/0.0.0",
  ])("accepts %j", (key) => {
    expect(validateKey(key)).toBe(key);
    expect(isValidKey(key)).toBe(true);
  });

  it.each([
    ["", "key is empty"],
    ["/abs", "starts with '/'"],
    ["a/", "ends with '/'"],
    ["a//b", "empty segment"],
    [".", "'.' segment"],
    ["a/./b", "'.' segment"],
    ["..", "'..' segment"],
    ["../x", "'..' segment"],
    ["a/../b", "'..' segment"],
    ["a/..", "'..' segment"],
    ["a\\b", "backslash"],
    ["..\\x", "backslash"],
    ["a\0b", "U+0000"],
    ["a\nb", "U+000A"],
    ["a\u001fb", "U+001F"],
    ["a\ud800b", "lone UTF-16 surrogate"],
    ["a\udc00", "lone UTF-16 surrogate"],
  ])("rejects %j (%s)", (key, reason) => {
    expect(() => validateKey(key)).toThrow(InvalidKeyError);
    expect(() => validateKey(key)).toThrow(reason);
    expect(isValidKey(key)).toBe(false);
    try {
      validateKey(key);
    } catch (error) {
      expect((error as InvalidKeyError).path).toBe(key);
      expect((error as Error).message).toContain(JSON.stringify(key));
    }
  });

  it("rejects non-strings with InvalidKeyError", () => {
    expect(() => validateKey(42 as unknown as string)).toThrow(InvalidKeyError);
    expect(() => validateKey(undefined as unknown as string)).toThrow("not a string");
  });

  it("agrees with a straightforward reference definition (property)", () => {
    const reference = (key: string) =>
      key.length > 0 &&
      !key.startsWith("/") &&
      !key.endsWith("/") &&
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the rule under test
      !/[\u0000-\u001f\\]/.test(key) &&
      !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(key) &&
      key.split("/").every((s) => s !== "" && s !== "." && s !== "..");
    const text = fc.oneof(
      fc.string({ unit: fc.constantFrom("a", "/", ".", "\\", "\0", "\ud800", "\udc00", " ") }),
      fc.string({ unit: "binary" }),
      fc.string({ unit: "grapheme" }),
    );
    fc.assert(
      fc.property(text, (key) => {
        expect(isValidKey(key)).toBe(reference(key));
      }),
      { seed: 42, numRuns: 5000 },
    );
  });

  it("a valid key joined under a root never leaves it (property)", () => {
    const segment = fc.oneof(
      fc.constantFrom(".", "..", "", "a", "..a", "a..", "\\", "/", "\0"),
      fc.string({ unit: "grapheme", maxLength: 6 }),
      fc.string({ unit: "binary", maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 6 }), (segments) => {
        const key = segments.join("/");
        if (!isValidKey(key)) return;
        const joined = posix.join("/root/store", ...key.split("/"));
        expect(joined.startsWith("/root/store/")).toBe(true);
        expect(posix.relative("/root/store", joined)).toBe(key);
      }),
      { seed: 42, numRuns: 3000 },
    );
  });
});

describe("validatePrefix", () => {
  it.each(["", "a/", "a/b/", "grp with spaces/数据/"])("accepts %j", (prefix) => {
    expect(validatePrefix(prefix)).toBe(prefix);
  });

  it.each([
    ["a", "must be \"\" or end with '/'"],
    ["/", "prefix is empty"],
    ["/a/", "starts with '/'"],
    ["a//", "empty segment"],
    ["../", "'..' segment"],
    ["./", "'.' segment"],
    ["a\\b/", "backslash"],
    ["a\0/", "U+0000"],
  ])("rejects %j (%s)", (prefix, reason) => {
    expect(() => validatePrefix(prefix)).toThrow(InvalidKeyError);
    expect(() => validatePrefix(prefix)).toThrow(reason);
  });
});

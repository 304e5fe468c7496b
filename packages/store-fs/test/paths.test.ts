import { describe, expect, it } from "vitest";
// Internal helpers (not part of the package's API), tested directly.
import { keyPath, prefixPath, win32SegmentProblem } from "../src/paths.js";

describe("key to path mapping", () => {
  it("joins validated keys under the root", () => {
    expect(keyPath("/r", "a/b/zarr.json")).toBe("/r/a/b/zarr.json");
    expect(prefixPath("/r", "")).toBe("/r");
    expect(prefixPath("/r", "a/b/")).toBe("/r/a/b");
    expect(() => keyPath("/r", "a/../../x")).toThrow(/'\.\.' segment/);
    expect(() => keyPath("/r", "a/.zarr-tmp.1")).toThrow(/reserved for temporary files/);
  });

  it.each([
    ["a:b", "contains ':'"],
    ["what?", "contains '?'"],
    ['q"', "contains '\"'"],
    ["trailing.", "ends with a dot or space"],
    ["trailing ", "ends with a dot or space"],
    ["CON", "reserved device name"],
    ["nul.txt", "reserved device name"],
    ["com1", "reserved device name"],
    ["LPT9.json", "reserved device name"],
  ])("Windows rejects segment %j (%s)", (segment, reason) => {
    expect(win32SegmentProblem(segment)).toContain(reason);
  });

  it.each(["zarr.json", ".zarray", "0.0.0", "console", "nul_", "c", "数据", "a b"])(
    "Windows accepts segment %j",
    (segment) => {
      expect(win32SegmentProblem(segment)).toBeUndefined();
    },
  );
});

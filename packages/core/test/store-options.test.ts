// Option checks for store authors: prefixes are validated like keys (no
// climbing out of the bucket or directory), integer options are bounded.
import { StoreError } from "@zarr/core";
import { integerOption, normalizeStorePrefix } from "@zarr/core/store";
import { describe, expect, it } from "vitest";

describe("normalizeStorePrefix", () => {
  it("trims slashes and keeps valid prefixes", () => {
    expect(normalizeStorePrefix("/data/example.zarr/", "S")).toBe("data/example.zarr");
    expect(normalizeStorePrefix("", "S")).toBe("");
    expect(normalizeStorePrefix("///", "S")).toBe("");
  });
  it("rejects prefixes that could escape, naming the store", () => {
    for (const bad of ["a/../b", "..", "a//b", "a\\b", "a\0b", 7]) {
      expect(() => normalizeStorePrefix(bad, "MyStore")).toThrow(StoreError);
      expect(() => normalizeStorePrefix(bad, "MyStore")).toThrow(/MyStore prefix/);
    }
  });
});

describe("integerOption", () => {
  it("returns the fallback for undefined and accepts integers in range", () => {
    expect(integerOption("S", "n", undefined, 5, 1, 10)).toBe(5);
    expect(integerOption("S", "n", 10, 5, 1, 10)).toBe(10);
  });
  it("rejects everything else with a StoreError naming the option", () => {
    for (const bad of [0, 11, 1.5, "3", null, 2n ** 70n]) {
      expect(() => integerOption("S", "n", bad, 5, 1, 10)).toThrow(
        /S option "n" must be an integer from 1 to 10/,
      );
    }
  });
});

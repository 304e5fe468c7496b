// The zarrita v2 fixtures written by zarr-python 2 (../shared/fixtures/zarrita/v2):
// every array reads equal to expected-v2.json through core's `open` once the
// register module is imported (v2 spec: "Arrays", "Data type encoding", "Filters").
import "@zarr/codec-blosc/register";
import "@zarr/codec-gzip/register";
import "@zarr/codec-zstd/register";
import "../src/register.js";
import { join } from "node:path";
import { open, openArray, openGroup } from "@zarr/core";
import {
  fixturesSkipReason,
  haveFixtures,
  loadExpected,
  readOnlyDirStore,
  zarritaFixtures,
} from "@zarr/test-utils";
import { describe, expect, it } from "vitest";
import { plain } from "./helpers.js";

const present = haveFixtures();
if (!present) console.warn(fixturesSkipReason);

describe.skipIf(!present)("zarrita v2 fixtures", () => {
  const expected = present ? loadExpected(2) : {};
  const store = readOnlyDirStore(join(zarritaFixtures, "v2/data.zarr"));
  for (const key of Object.keys(expected)) {
    it(`${key} reads equal to expected-v2.json`, async () => {
      const a = await openArray(store, key);
      expect(a.zarrFormat).toBe(2);
      const got = await a.get();
      expect(got.shape).toEqual(expected[key].shape);
      expect(plain(got)).toEqual(expected[key].data);
    });
  }
  it("the root and the group with spaces are v2 groups with their attributes", async () => {
    const root = await openGroup(store);
    expect(root.zarrFormat).toBe(2);
    const names = await root.childNames();
    expect(names).toContain("my group with spaces");
    const g = await open(store, "my group with spaces");
    expect(g.kind).toBe("group");
    expect(g.attrs).toBeTypeOf("object");
  });
});

describe.skipIf(!present)("zarrita v3 fixtures using numcodecs.delta", () => {
  const expected = present ? loadExpected(3) : {};
  const store = readOnlyDirStore(join(zarritaFixtures, "v3/data.zarr"));
  for (const key of ["1d.contiguous.delta.i4", "3d.contiguous.delta.i4.mixed"]) {
    it(`${key} reads equal to expected-v3.json`, async () => {
      const a = await openArray(store, key);
      const got = await a.get();
      expect(got.shape).toEqual(expected[key].shape);
      expect(plain(got)).toEqual(expected[key].data);
    });
  }
});

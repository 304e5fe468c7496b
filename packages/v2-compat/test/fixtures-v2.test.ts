// The zarrita v2 fixtures written by zarr-python 2 (../shared/fixtures/zarrita/v2):
// every array reads equal to expected-v2.json through core's `open` once the
// register module is imported (v2 spec: "Arrays", "Data type encoding", "Filters").
import "@zarr/codec-blosc/register";
import "@zarr/codec-gzip/register";
import "@zarr/codec-zstd/register";
import "../src/register.js";
import { join } from "node:path";
import { open, openArray, openGroup, slice } from "@zarr/core";
import {
  fixturesSkipReason,
  haveFixtures,
  loadExpected,
  readOnlyDirStore,
  zarritaFixtures,
} from "@zarr/test-utils";
import { describe, expect, it } from "vitest";
import { jsonValues, ownFixtures, plain } from "./helpers.js";

const present = haveFixtures();
if (!present) console.warn(fixturesSkipReason);

describe.skipIf(!present)("zarrita v2 fixtures", () => {
  const expected = present ? ownFixtures(loadExpected(2)) : {};
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

/**
 * The read paths that skip work on real zarr-python data: small windows of
 * every fixture array (byte-range reads of uncompressed chunks, byte-range
 * decodes of blosc chunks, partial shard reads) equal the same elements of a
 * whole-array read (itself checked against expected-*.json above), and reads
 * into a caller's dirty `out` array equal expected-*.json.
 */
describe.skipIf(!present)("zarrita fixtures through the partial and out paths", () => {
  for (const version of [2, 3] as const) {
    const expected = present ? ownFixtures(loadExpected(version)) : {};
    const store = readOnlyDirStore(join(zarritaFixtures, `v${version}/data.zarr`));
    for (const key of Object.keys(expected)) {
      it(`v${version} ${key}: windows and out`, async () => {
        const a = await openArray(store, key);
        const whole = await a.get();
        const values = jsonValues(whole);
        const strides = whole.shape.map((_, d) =>
          whole.shape.slice(d + 1).reduce((x, y) => x * y, 1),
        );
        const windows = [
          whole.shape.map(() => [0, 1]),
          whole.shape.map((s) => [Math.max(0, s - 1), s]),
          whole.shape.map((s) => [Math.floor(s / 3), Math.min(s, Math.floor(s / 3) + 2)]),
        ];
        for (const w of windows) {
          const got = await a.get(w.map(([lo, hi]) => slice(lo, hi)));
          const want: unknown[] = [];
          const walk = (d: number, offset: number) => {
            if (d === w.length) {
              want.push(values[offset]);
              return;
            }
            for (let i = w[d][0]; i < w[d][1]; i++) walk(d + 1, offset + i * strides[d]);
          };
          walk(0, 0);
          expect(jsonValues(got), JSON.stringify(w)).toEqual(want);
        }
        const out = a.dataType.allocate(values.length);
        if (ArrayBuffer.isView(out)) (out as unknown as { fill(v: number): void }).fill(0x55);
        const into = await a.get(null, { out });
        expect(into.data).toBe(out);
        expect(plain(into)).toEqual(expected[key].data);
      });
    }
  }
});

// The zarrita v2 fixtures zipped two ways (../shared/fixtures/zarrita/v2):
// data.zipped_from_parent.zarr.zip (entries under "data.zarr/") and
// data.zipped_from_within.zarr.zip (entries at the archive root), read through
// @zarr/store-zip, equal expected-v2.json (v2 spec: "Arrays", "Storage").
import "@zarr/codec-blosc/register";
import "@zarr/codec-gzip/register";
import "@zarr/codec-zstd/register";
import "../src/register.js";
import { join } from "node:path";
import { openArray, openGroup } from "@zarr/core";
import { openZipFile } from "@zarr/store-zip/node";
import { fixturesSkipReason, haveFixtures, loadExpected, zarritaFixtures } from "@zarr/test-utils";
import { describe, expect, it } from "vitest";
import { plain } from "./helpers.js";

const present = haveFixtures();
if (!present) console.warn(fixturesSkipReason);

const ZIPS = [
  { file: "data.zipped_from_parent.zarr.zip", root: "data.zarr" },
  { file: "data.zipped_from_within.zarr.zip", root: undefined },
];

describe.skipIf(!present)("zarrita v2 fixtures in zip archives", () => {
  const expected = present ? loadExpected(2) : {};
  for (const { file, root } of ZIPS) {
    it(`${file}: every array reads equal to expected-v2.json`, async () => {
      const store = await openZipFile(join(zarritaFixtures, "v2", file), { root });
      const failures: string[] = [];
      for (const [key, want] of Object.entries(expected)) {
        try {
          const a = await openArray(store, key);
          expect(a.zarrFormat).toBe(2);
          const got = await a.get();
          if (JSON.stringify(got.shape) !== JSON.stringify(want.shape))
            failures.push(`${key}: shape ${JSON.stringify(got.shape)}`);
          else if (JSON.stringify(plain(got)) !== JSON.stringify(want.data))
            failures.push(`${key}: values differ`);
        } catch (e) {
          failures.push(`${key}: ${(e as Error).message}`);
        }
      }
      expect(failures).toEqual([]);
      expect(Object.keys(expected).length).toBeGreaterThan(10);
      const group = await openGroup(store);
      expect(await group.childNames()).toContain("my group with spaces");
    });
  }
});

// The zarrita v2 fixtures zipped two ways (../shared/fixtures/zarrita/v2):
// data.zipped_from_parent.zarr.zip (entries under "data.zarr/") and
// data.zipped_from_within.zarr.zip (entries at the archive root), read through
// @zarr/store-zip, equal expected-v2.json (v2 spec: "Arrays", "Storage").
//
// @zarr/store-zip already devDepends on this package (its own tests read these
// zips), so depending back on it would make turbo's build graph cyclic. The
// test loads it through its package.json "./node" export ("source" condition)
// instead of a devDependency.
import "@zarr/codec-blosc/register";
import "@zarr/codec-gzip/register";
import "@zarr/codec-zstd/register";
import "../src/register.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openArray, openGroup } from "@zarr/core";
import {
  fixturesSkipReason,
  haveFixtures,
  loadExpected,
  repoRoot,
  zarritaFixtures,
} from "@zarr/test-utils";
import { describe, expect, it } from "vitest";
import { ownFixtures, plain } from "./helpers.js";

const present = haveFixtures();
if (!present) console.warn(fixturesSkipReason);

type Store = Parameters<typeof openArray>[0];
type OpenZipFile = (path: string, options?: { root?: string }) => Promise<Store>;

/** `openZipFile` from @zarr/store-zip's "./node" entry, resolved through its exports map. */
async function loadOpenZipFile(): Promise<OpenZipFile> {
  const dir = join(repoRoot, "packages/store-zip");
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const mod = await import(join(dir, pkg.exports["./node"].source));
  return mod.openZipFile as OpenZipFile;
}

const ZIPS = [
  { file: "data.zipped_from_parent.zarr.zip", root: "data.zarr" },
  { file: "data.zipped_from_within.zarr.zip", root: undefined },
];

describe.skipIf(!present)("zarrita v2 fixtures in zip archives", () => {
  const expected = present ? ownFixtures(loadExpected(2)) : {};
  for (const { file, root } of ZIPS) {
    it(`${file}: every array reads equal to expected-v2.json`, async () => {
      const openZipFile = await loadOpenZipFile();
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

// The zarrita fixtures written by zarr-python (../shared/fixtures/zarrita/v3),
// read through core alone: arrays that use only core codecs read equal to
// expected-v3.json; arrays whose codecs are not registered fail with the
// "not registered: install ..." error, never with wrong data.
import { join } from "node:path";
import { NotRegisteredError, openArray } from "@zarr/core";
import {
  fixturesSkipReason,
  haveFixtures,
  loadExpected,
  readOnlyDirStore,
  zarritaFixtures,
} from "@zarr/test-utils";
import { describe, expect, it } from "vitest";
import { toPlain } from "./plain.js";

const present = haveFixtures();
if (!present) console.warn(fixturesSkipReason);

describe.skipIf(!present)("zarrita v3 fixtures through core", () => {
  const expected = present ? loadExpected(3) : {};
  const store = readOnlyDirStore(join(zarritaFixtures, "v3/data.zarr"));
  const coreOnly = [
    "1d.contiguous.raw.i2",
    "consolidated/1d.chunked.i2",
    "consolidated/2d.contiguous.i2",
    "consolidated/nested/1d.i2",
  ];
  for (const key of coreOnly) {
    it(`${key} reads equal to expected-v3.json`, async () => {
      const a = await openArray(store, key);
      const got = await a.get();
      expect(got.shape).toEqual(expected[key].shape);
      expect(toPlain(got)).toEqual(expected[key].data);
    });
  }
  for (const [key, codec] of [
    ["1d.contiguous.blosc.i2", "blosc"],
    ["1d.contiguous.gzip.i2", "gzip"],
  ] as const) {
    it(`${key} without its codec package: NotRegisteredError naming ${codec}`, async () => {
      const err = await openArray(store, key).then(
        (a) => a.get(),
        (e) => e,
      );
      expect(err).toBeInstanceOf(NotRegisteredError);
      expect(err.message).toContain(`codec "${codec}" is not registered: install @zarr/codec-`);
    });
  }
});

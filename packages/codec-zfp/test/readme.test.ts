/** The README's examples run as written. */
import "@zarr/codec-zfp/register";
import "@zarr/v2-compat/register";
import { accuracyParams, zfpCompress, zfpDecompress, zfpReadHeader } from "@zarr/codec-zfp";
import { createArray, MemoryStore, openArray } from "@zarr/core";
import { expect, it } from "vitest";

it("README: a numcodecs.zfpy array round-trips within its tolerance", async () => {
  const store = new MemoryStore();
  const a = await createArray(store, "t", {
    shape: [64, 64],
    chunkShape: [32, 32],
    dataType: "float32",
    codecs: [{ name: "numcodecs.zfpy", configuration: { mode: 4, tolerance: 1e-3 } }],
  });
  await a.set(null, 1.5);
  const back = await (await openArray(store, "t")).get();
  for (const v of back.data as Float32Array) expect(Math.abs(v - 1.5)).toBeLessThanOrEqual(1e-3);
});

it("README: the stream functions", () => {
  const bytes = zfpCompress(new Float64Array(1000).fill(Math.PI), [10, 100], accuracyParams(1e-6));
  expect(zfpReadHeader(bytes)).toMatchObject({ type: "float64", sizes: [100, 10] });
  const values = zfpDecompress(bytes, { type: "float64", shape: [10, 100] }) as Float64Array;
  for (const v of values) expect(Math.abs(v - Math.PI)).toBeLessThanOrEqual(1e-6);
});

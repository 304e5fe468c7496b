// `zarr tree/info/get/copy` on a kerchunk JSON reference file and a Parquet
// reference directory, through the built CLI with this package's register
// module preloaded (`node --import .../dist/register.js`), so the CLI itself
// is unchanged. Values equal what netCDF4/h5py read. Skipped (with the reason
// printed) when Python or a built dist is missing: run `pnpm --filter
// @zarr/cli build` and `pnpm --filter @zarr/store-reference build` first.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  flattenRefs,
  makeSources,
  python,
  referencesV1,
  type Sources,
  skipReason,
  writeParquetReferences,
} from "./sources.js";

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, "../../cli/bin/zarr.js");
const register = join(here, "../dist/register.js");
const missing = [cli, join(here, "../../cli/dist/main.js"), register].filter((f) => !existsSync(f));
const skip =
  python !== null && missing.length === 0
    ? undefined
    : python === null
      ? skipReason
      : `skipping: not built: ${missing.join(", ")}`;
if (skip) console.warn(skip);

function zarr(...args: string[]) {
  const r = spawnSync(process.execPath, ["--import", pathToFileURL(register).href, cli, ...args], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  if (r.status !== 0) throw new Error(`zarr ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

describe.skipIf(skip !== undefined)("the zarr CLI on kerchunk references", () => {
  let s: Sources;
  let json: string;
  let parquet: string;
  beforeAll(async () => {
    s = await makeSources();
    json = join(s.dir, "combined.json");
    parquet = join(s.dir, "combined.parq");
    await writeFile(json, JSON.stringify(referencesV1(s)));
    const files: Record<string, string> = { "{{nc}}": "source.nc", "{{h5}}": "source.h5" };
    await writeParquetReferences(parquet, flattenRefs(referencesV1(s), s), 3, (u) => files[u]);
  });
  afterAll(async () => {
    if (s) await rm(s.dir, { recursive: true, force: true });
  });

  for (const [name, url] of [
    ["JSON", () => `reference:${json}`],
    ["Parquet", () => `reference:${parquet}`],
  ] as const) {
    it(`${name}: tree, info, get and copy`, () => {
      const tree = zarr("tree", url());
      for (const node of ["nc", "temp", "rec", "h5", "chunked", "sparse", "inline"])
        expect(tree).toContain(node);
      expect(zarr("info", url(), "h5/chunked")).toMatch(/10.*7/);
      const get = (store: string, path: string) => JSON.parse(zarr("get", store, path, "--json"));
      expect(get(url(), "h5/chunked")).toEqual({ shape: [10, 7], data: s.h5.chunked.values });
      expect(get(url(), "nc/rec")).toEqual({ shape: [3, 6], data: s.nc.rec.values });
      const out = join(s.dir, `copy-${name}.zarr`);
      zarr("copy", url(), out, "--format", "3");
      // float32 values print in their shortest form: compare as float32.
      const f32 = (values: number[]) => Float32Array.from(values);
      expect(f32(get(out, "h5/sparse").data)).toEqual(f32(s.h5.sparse.values));
      expect(f32(get(out, "nc/temp").data)).toEqual(f32(s.nc.temp.values));
      expect(get(out, "nc/count").data).toEqual(s.nc.count.values);
    });
  }
});

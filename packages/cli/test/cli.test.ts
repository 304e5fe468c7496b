// The zarr CLI against the shared zarrita fixtures and files it writes itself.
// `zarr get --json` output format: see the foundation issue (C order; NaN,
// Infinity and |int| > 2^53 as strings; complex as [re, im]; raw as byte lists).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createArray, slice } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import {
  fixturesSkipReason,
  haveFixtures,
  loadExpected,
  repoRoot,
  zarritaFixtures,
} from "@zarr/test-utils";
import { afterAll, describe, expect, it } from "vitest";
import { run, same } from "./helpers.js";

const present = haveFixtures();
if (!present) console.warn(fixturesSkipReason);

describe.skipIf(!present)("zarr get --json on every zarrita v3 fixture array", () => {
  const expected = present ? loadExpected(3) : {};
  const store = join(zarritaFixtures, "v3/data.zarr");
  for (const key of Object.keys(expected)) {
    it(key, async () => {
      const r = await run("get", store, key, "--json");
      expect(r.err).toBe("");
      expect(r.code).toBe(0);
      const got = JSON.parse(r.out);
      expect(got.shape).toEqual(expected[key].shape);
      expect(same(got.data, expected[key].data)).toBe(true);
    });
  }
});

describe.skipIf(!present)("zarr get --json on every zarrita v2 fixture array", () => {
  const expected = present ? loadExpected(2) : {};
  for (const key of Object.keys(expected)) {
    it(key, async () => {
      const r = await run("get", join(zarritaFixtures, "v2/data.zarr"), key, "--json");
      expect(r.err).toBe("");
      const got = JSON.parse(r.out);
      expect(got.shape).toEqual(expected[key].shape);
      expect(same(got.data, expected[key].data)).toBe(true);
    });
  }
});

describe.skipIf(!present)("info and tree on the fixtures", () => {
  const store = join(zarritaFixtures, "v3/data.zarr");
  it("info --json describes an array with its codecs and stored bytes", async () => {
    const r = await run("info", store, "3d.chunked.mixed.i2.F", "--json");
    expect(r.code).toBe(0);
    const info = JSON.parse(r.out);
    expect(info).toMatchObject({
      node_type: "array",
      zarr_format: 3,
      shape: [3, 3, 3],
      data_type: "int16",
      chunk_shape: [3, 3, 1],
      fill_value: 0,
      stored_chunks: 3,
      grid_chunks: 3,
    });
    expect(info.codecs.map((c: { name: string }) => c.name)).toEqual([
      "transpose",
      "bytes",
      "blosc",
    ]);
    expect(info.stored_bytes).toBeGreaterThan(0);
  });
  it("tree lists nested groups with shapes and data types, and --depth limits it", async () => {
    const r = await run("tree", store, "consolidated");
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      [
        "consolidated",
        "├── 1d.chunked.i2 [4] int16",
        "├── 2d.contiguous.i2 [2, 2] int16",
        "└── nested",
        "    └── 1d.i2 [4] int16",
      ].join("\n"),
    );
    const shallow = await run("tree", store, "consolidated", "--depth", "1");
    expect(shallow.out.split("\n")).toHaveLength(4);
  });
});

describe("get on arrays written here", () => {
  const dir = mkdtempSync(join(tmpdir(), "zarr-cli-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("selections, special floats, 64-bit integers, complex and raw values", async () => {
    const fs = new FileSystemStore(dir);
    const f = await createArray(fs, "f", {
      shape: [2, 3],
      dataType: "float64",
      chunkShape: [1, 2],
    });
    await f.set(
      null,
      new Float64Array([
        1.5,
        Number.NaN,
        Number.POSITIVE_INFINITY,
        Number.NEGATIVE_INFINITY,
        -0,
        2,
      ]),
    );
    const u = await createArray(fs, "u", { shape: [2], dataType: "uint64" });
    await u.set(null, new BigUint64Array([2n ** 64n - 1n, 5n]));
    const c = await createArray(fs, "c", { shape: [1], dataType: "complex64" });
    await c.set(null, new Float32Array([1, -2]));
    const r = await createArray(fs, "r", { shape: [2], dataType: "r16" });
    await r.set(slice(1, 2), new Uint8Array([7, 8]));
    const b = await createArray(fs, "b", { shape: [2], dataType: "bool" });
    await b.set(0, true);

    // -0 keeps its sign: JSON's grammar has it, and JSON.parse reads it back.
    expect((await run("get", dir, "f", "--json")).out).toBe(
      '{"shape":[2,3],"data":[1.5,"NaN","Infinity","-Infinity",-0,2]}',
    );
    expect(JSON.parse((await run("get", dir, "f", "--json")).out)).toEqual({
      shape: [2, 3],
      data: [1.5, "NaN", "Infinity", "-Infinity", -0, 2],
    });
    expect(JSON.parse((await run("get", dir, "f", "--json", "--select", "::-1,1")).out)).toEqual({
      shape: [2],
      data: [-0, "NaN"],
    });
    expect((await run("get", dir, "u", "--json")).out).toBe(
      '{"shape":[2],"data":["18446744073709551615",5]}',
    );
    expect((await run("get", dir, "c", "--json")).out).toBe('{"shape":[1],"data":[[1,-2]]}');
    expect((await run("get", dir, "r", "--json")).out).toBe('{"shape":[2],"data":[[0,0],[7,8]]}');
    expect((await run("get", dir, "b", "--json")).out).toBe('{"shape":[2],"data":[true,false]}');
  });

  it("--out writes raw little-endian C-order bytes", async () => {
    const fs = new FileSystemStore(dir);
    const a = await createArray(fs, "be", {
      shape: [2, 2],
      dataType: "int32",
      codecs: [
        { name: "transpose", configuration: { order: [1, 0] } },
        { name: "bytes", configuration: { endian: "big" } },
      ],
    });
    await a.set(null, new Int32Array([1, 2, 3, 4]));
    const file = join(dir, "out.bin");
    expect((await run("get", dir, "be", "--out", file)).code).toBe(0);
    expect(Array.from(new Int32Array(new Uint8Array(readFileSync(file)).buffer))).toEqual([
      1, 2, 3, 4,
    ]);
  });

  it("exit codes: 1 for usage errors, 2 for data errors, one-line messages", async () => {
    expect((await run()).code).toBe(1);
    expect((await run("frobnicate", dir)).code).toBe(1);
    expect((await run("get", dir, "f")).code).toBe(1);
    expect((await run("get", dir, "f", "--json", "--select", "1:2:0:")).code).toBe(1);
    expect((await run("get", dir, "--bogus")).code).toBe(1);
    const missing = await run("get", dir, "nope", "--json");
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^zarr: NodeNotFoundError: no array or group at "nope"$/);
    const oob = await run("get", dir, "f", "--json", "--select", "5");
    expect(oob.code).toBe(2);
    expect(oob.err.split("\n")).toHaveLength(1);
    expect((await run("info", dir, "f", "--help")).code).toBe(0);
  });

  it("the installed bin runs (node_modules/.bin/zarr)", () => {
    const bin = join(repoRoot, "node_modules/.bin/zarr");
    const r = spawnSync(bin, ["--version"], { encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

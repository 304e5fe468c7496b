// zarr diff: arrays and hierarchies compared by shape, data type, attributes
// and values (slab by slab, in bounded memory), metadata differences that do
// not count (a v2 → v3 copy), NaN and tolerance, --json, exit codes.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Io, main } from "@zarr/cli";
import { createArray, createGroup, openArray, slice } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { createArrayV2, createGroupV2 } from "@zarr/v2-compat";
import { afterAll, describe, expect, it } from "vitest";
import { run } from "./helpers.js";

const bin = fileURLToPath(new URL("../bin/zarr.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "zarr-cli-diff-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
/** A new store directory. */
function fresh(): string {
  return join(dir, `s${counter++}.zarr`);
}

/** A float64 array of `shape` at the root of a new store, holding `values`. */
async function float64Array(
  values: Float64Array,
  shape: number[],
  options: { chunkShape?: number[]; attributes?: Record<string, string> } = {},
): Promise<string> {
  const path = fresh();
  const a = await createArray(new FileSystemStore(path), "", {
    shape,
    dataType: "float64",
    chunkShape: options.chunkShape ?? shape.map((n) => Math.max(1, Math.ceil(n / 2))),
    fillValue: 0,
    attributes: options.attributes,
  });
  await a.set(null, values);
  return path;
}

const ramp = (n: number) => Float64Array.from({ length: n }, (_, i) => i);

/** `zarr diff ... --json`, parsed. */
async function diffJson(...args: string[]) {
  const r = await run("diff", ...args, "--json");
  return { code: r.code, err: r.err, report: r.out === "" ? undefined : JSON.parse(r.out) };
}

describe("zarr diff on arrays", () => {
  it("identical arrays (other chunking): exit 0, same values", async () => {
    const a = await float64Array(ramp(60), [6, 10], { chunkShape: [2, 3] });
    const b = await float64Array(ramp(60), [6, 10], { chunkShape: [6, 10] });
    const r = await run("diff", a, b);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^same {7}\/ \[6, 10\] float64: same values \(60 elements\)$/m);
    expect(r.out).toMatch(/not counted: chunk_shape \[2, 3\] \| \[6, 10\]/);
    expect(r.out.split("\n").at(-1)).toBe("same: 1 node, 1 array, 60 elements compared");
  });

  it("one changed element: exit 1, its index and both values", async () => {
    const a = await float64Array(ramp(60), [6, 10], { chunkShape: [4, 4] });
    const changed = ramp(60);
    changed[3 * 10 + 7] = -1.5;
    const b = await float64Array(changed, [6, 10], { chunkShape: [3, 5] });
    const r = await run("diff", a, b);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^differ {5}\/ \[6, 10\] float64: 1 of 60 elements differ$/m);
    expect(r.out).toContain("[3, 7]: 37 | -1.5");
    expect(r.out.split("\n").at(-1)).toBe(
      "differ: 1 of 1 nodes differ; 1 of 60 elements compared differ",
    );
    const { code, report } = await diffJson(a, b);
    expect(code).toBe(1);
    expect(report.nodes[0].values).toEqual({
      compared: 60,
      differing: 1,
      first: [{ index: [3, 7], a: 37, b: -1.5 }],
    });
    expect(report.nodes[0].differences).toEqual(["values"]);
  });

  it("--max-report bounds the listed elements, not the count", async () => {
    const a = await float64Array(ramp(100), [100], { chunkShape: [7] });
    const b = await float64Array(
      ramp(100).map((v) => (v % 10 === 3 ? v + 1 : v)),
      [100],
      { chunkShape: [9] },
    );
    const three = await diffJson(a, b, "--max-report", "3");
    expect(three.report.nodes[0].values.differing).toBe(10);
    expect(three.report.nodes[0].values.first.map((e: { index: number[] }) => e.index)).toEqual([
      [3],
      [13],
      [23],
    ]);
    const none = await diffJson(a, b, "--max-report", "0");
    expect(none.report.nodes[0].values).toEqual({ compared: 100, differing: 10, first: [] });
    const text = await run("diff", a, b);
    expect(text.out.match(/^ {11}\[\d+\]: /gm)).toHaveLength(10);
    const text3 = await run("diff", a, b, "--max-report", "3");
    expect(text3.out.match(/^ {11}\[\d+\]: /gm)).toHaveLength(3);
    expect(text3.out).toContain("... 7 more");
  });

  it("shape and data type mismatches differ without comparing values", async () => {
    const a = await float64Array(ramp(60), [6, 10]);
    const b = await float64Array(ramp(60), [10, 6]);
    const shape = await diffJson(a, b);
    expect(shape.code).toBe(1);
    expect(shape.report.nodes[0]).toMatchObject({
      verdict: "differ",
      differences: ["shape"],
      shape_a: [6, 10],
      shape_b: [10, 6],
      values: null,
    });
    const c = fresh();
    const ints = await createArray(new FileSystemStore(c), "", {
      shape: [6, 10],
      dataType: "int32",
      chunkShape: [3, 5],
    });
    await ints.set(null, Int32Array.from(ramp(60)));
    const dtype = await diffJson(a, c);
    expect(dtype.code).toBe(1);
    expect(dtype.report.nodes[0]).toMatchObject({
      differences: ["data_type"],
      data_type_a: "float64",
      data_type_b: "int32",
      values: null,
    });
    const text = await run("diff", a, c);
    expect(text.out).toContain("[6, 10] float64 | int32: data type differs; values not compared");
  });

  it("--tolerance: absolute, for floats and 64-bit integers; checked", async () => {
    const a = await float64Array(Float64Array.of(1, 2, 3), [3]);
    const b = await float64Array(Float64Array.of(1, 2 + 1e-7, 3 - 1e-7), [3]);
    expect((await run("diff", a, b)).code).toBe(1);
    expect((await run("diff", a, b, "--tolerance", "1e-6")).code).toBe(0);
    expect((await run("diff", a, b, "--tolerance", "1e-8")).code).toBe(1);
    const near = await diffJson(a, b, "--tolerance", "1e-6");
    expect(near.report.tolerance).toBe(1e-6);
    expect(near.report.same).toBe(true);

    const big = async (values: bigint[]) => {
      const p = fresh();
      const arr = await createArray(new FileSystemStore(p), "", {
        shape: [values.length],
        dataType: "int64",
        chunkShape: [2],
      });
      await arr.set(null, BigInt64Array.from(values));
      return p;
    };
    const x = await big([2n ** 62n, 5n, -7n]);
    const y = await big([2n ** 62n + 3n, 5n, -4n]);
    expect((await run("diff", x, y)).code).toBe(1);
    expect((await run("diff", x, y, "--tolerance", "3")).code).toBe(0);
    const two = await diffJson(x, y, "--tolerance", "2.9");
    expect(two.code).toBe(1);
    // Integers beyond 2^53 are decimal strings, as in zarr get --json.
    expect(two.report.nodes[0].values.first[0]).toEqual({
      index: [0],
      a: "4611686018427387904",
      b: "4611686018427387907",
    });

    for (const bad of ["-1", "x", "Infinity", ""]) {
      const r = await run("diff", a, b, `--tolerance=${bad}`);
      expect(r.code, bad).toBe(1);
      expect(r.err, bad).toMatch(/^zarr: usage: --tolerance must be/);
    }
  });

  it("NaN equals NaN (any payload), not a number; -0 equals 0; Infinity only itself", async () => {
    const otherNaN = new Float64Array(new BigUint64Array([0x7ff8000000000123n]).buffer)[0];
    expect(Number.isNaN(otherNaN)).toBe(true);
    const a = await float64Array(Float64Array.of(Number.NaN, 0, 1, Number.POSITIVE_INFINITY), [4]);
    const b = await float64Array(Float64Array.of(otherNaN, -0, 1, Number.POSITIVE_INFINITY), [4]);
    expect((await run("diff", a, b)).code).toBe(0);
    const c = await float64Array(Float64Array.of(0, 0, Number.NaN, Number.NEGATIVE_INFINITY), [4]);
    const r = await diffJson(a, c, "--tolerance", "1e300");
    expect(r.code).toBe(1);
    expect(r.report.nodes[0].values.first).toEqual([
      { index: [0], a: "NaN", b: 0 },
      { index: [2], a: 1, b: "NaN" },
      { index: [3], a: "Infinity", b: "-Infinity" },
    ]);
    const text = await run("diff", a, c);
    expect(text.out).toContain("[0]: NaN | 0");
    expect(text.out).toContain("[3]: Infinity | -Infinity");
  });

  it("strings and booleans compare exactly (a tolerance does not apply)", async () => {
    const make = async (values: string[]) => {
      const p = fresh();
      const arr = await createArray(new FileSystemStore(p), "", {
        shape: [values.length],
        dataType: "string",
        chunkShape: [2],
      });
      await arr.set(null, values);
      return p;
    };
    const a = await make(["a", "b", "c"]);
    expect((await run("diff", a, await make(["a", "b", "c"]))).code).toBe(0);
    const r = await diffJson(a, await make(["a", "B", "c"]), "--tolerance", "5");
    expect(r.code).toBe(1);
    expect(r.report.nodes[0].values.first).toEqual([{ index: [1], a: "b", b: "B" }]);
  });

  it("attributes count; a 0-d array compares its one element", async () => {
    const a = await float64Array(Float64Array.of(1), [1], { attributes: { units: "K" } });
    const b = await float64Array(Float64Array.of(1), [1], { attributes: { units: "C" } });
    const r = await diffJson(a, b);
    expect(r.code).toBe(1);
    expect(r.report.nodes[0]).toMatchObject({
      differences: ["attributes"],
      attribute_keys: ["units"],
    });
    expect((await run("diff", a, b)).out).toContain("attributes differ: units");
    const scalar = async (v: number) => {
      const p = fresh();
      const arr = await createArray(new FileSystemStore(p), "", { shape: [], dataType: "int16" });
      await arr.set(null, v);
      return p;
    };
    expect(
      (await diffJson(await scalar(4), await scalar(4))).report.summary.elements_compared,
    ).toBe(1);
    const d = await diffJson(await scalar(4), await scalar(5));
    expect(d.report.nodes[0].values.first).toEqual([{ index: [], a: 4, b: 5 }]);
  });
});

describe("a v2 array and its v3 copy made by zarr copy", () => {
  it("other format, chunks and codecs: exit 0, same values, the changes as notes", async () => {
    const src = fresh();
    const store = new FileSystemStore(src);
    await createGroupV2(store, "", { attributes: { title: "run 1" } });
    const t = await createArrayV2(store, "t", {
      shape: [13, 11],
      chunks: [5, 4],
      dtype: "<f8",
      compressor: { id: "zlib", level: 1 },
      fillValue: "NaN",
      attributes: { units: "K" },
    });
    const values = ramp(143).map((v) => (v % 17 === 0 ? Number.NaN : v / 7));
    await t.set(null, values);
    await createGroupV2(store, "sub");
    const i = await createArrayV2(store, "sub/i", {
      shape: [9, 2],
      chunks: [4, 1],
      dtype: "<i2",
      fillValue: 0,
    });
    await i.set(
      null,
      Int16Array.from({ length: 18 }, (_, k) => k * 3 - 20),
    );
    const dst = fresh();
    const copy = await run(
      "copy",
      src,
      dst,
      "--format",
      "3",
      "--chunks",
      "3,6",
      "--compressor",
      "zstd:3",
      "--quiet",
    );
    expect(copy.code, copy.err).toBe(0);
    expect((await openArray(new FileSystemStore(dst), "t")).zarrFormat).toBe(3);

    const r = await run("diff", src, dst);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^same {7}\/t \[13, 11\] float64: same values \(143 elements\)$/m);
    expect(r.out).toMatch(/^same {7}\/sub\/i \[9, 2\] int16: same values \(18 elements\)$/m);
    const { code, report } = await diffJson(src, dst);
    expect(code).toBe(0);
    expect(report.same).toBe(true);
    const tNode = report.nodes.find((n: { path: string }) => n.path === "t");
    const fields = tNode.notes.map((n: { field: string }) => n.field);
    expect(fields).toEqual(expect.arrayContaining(["zarr_format", "chunk_shape", "codecs"]));
    expect(tNode.notes.find((n: { field: string }) => n.field === "zarr_format")).toEqual({
      field: "zarr_format",
      a: 2,
      b: 3,
    });
    expect(report.nodes[0]).toMatchObject({ path: "", kind_a: "group", verdict: "same" });

    // One element changed in the copy is found across the different chunking.
    const copied = await openArray(new FileSystemStore(dst), "t");
    await copied.set([12, 10], 99);
    const changed = await diffJson(src, dst);
    expect(changed.code).toBe(1);
    const t2 = changed.report.nodes.find((n: { path: string }) => n.path === "t");
    expect(t2.values.first).toEqual([{ index: [12, 10], a: 142 / 7, b: 99 }]);
    // --path selects the same node in both.
    expect((await run("diff", src, dst, "--path", "sub/i")).code).toBe(0);
    const one = await run("diff", src, dst, "--path", "t");
    expect(one.code).toBe(1);
    expect(one.out).toMatch(/^differ {5}\/t \[13, 11\] float64: 1 of 143 elements differ$/m);
  });
});

describe("dimension names across formats", () => {
  it("a v2 array's _ARRAY_DIMENSIONS is its v3 copy's dimension_names, not an attribute difference", async () => {
    const src = fresh();
    const made = await run(
      "create",
      src,
      "t",
      "--format",
      "2",
      "--shape",
      "4,6",
      "--dtype",
      "float32",
      "--dimension-names",
      "y,x",
      "--attrs",
      '{"units": "K"}',
    );
    expect(made.code, made.err).toBe(0);
    // zarr-python and xarray keep v2 dimension names as this attribute.
    const zattrs = JSON.parse(readFileSync(join(src, "t", ".zattrs"), "utf8"));
    expect(zattrs._ARRAY_DIMENSIONS).toEqual(["y", "x"]);
    const dst = fresh();
    expect((await run("copy", src, dst, "--format", "3", "-q")).code).toBe(0);
    const same = await diffJson(src, dst);
    expect(same.code, JSON.stringify(same.report)).toBe(0);
    // Other names are a note (not counted), other attributes a difference.
    const renamed = fresh();
    expect(
      (
        await run(
          "create",
          renamed,
          "t",
          "--shape",
          "4,6",
          "--dtype",
          "float32",
          "--dimension-names",
          "lat,lon",
          "--attrs",
          '{"units": "K"}',
        )
      ).code,
    ).toBe(0);
    const r = await diffJson(src, renamed, "--path", "t");
    expect(r.code).toBe(0);
    const node = r.report.nodes.find((n: { path: string }) => n.path === "");
    expect(node.notes).toContainEqual({
      field: "dimension_names",
      a: ["y", "x"],
      b: ["lat", "lon"],
    });
  });
});

describe("zarr diff on groups", () => {
  async function hierarchy(names: string[], changed?: string): Promise<string> {
    const p = fresh();
    const store = new FileSystemStore(p);
    await createGroup(store, "");
    for (const name of names) {
      if (name.endsWith("/")) {
        await createGroup(store, name.slice(0, -1));
        continue;
      }
      const arr = await createArray(store, name, {
        shape: [4],
        dataType: "uint8",
        chunkShape: [2],
      });
      await arr.set(null, Uint8Array.of(1, 2, 3, name === changed ? 9 : 4));
    }
    return p;
  }

  it("children present on one side only, and each pair compared", async () => {
    const a = await hierarchy(["x", "g/", "g/y", "g/only-a", "gone/", "gone/deep"]);
    const b = await hierarchy(["x", "g/", "g/y", "g/only-b"], "g/y");
    const r = await run("diff", a, b);
    expect(r.code).toBe(1);
    const lines = r.out.split("\n");
    expect(lines).toContain("only in a  /g/only-a (array)");
    expect(lines).toContain("only in b  /g/only-b (array)");
    expect(lines).toContain("only in a  /gone (group)");
    expect(lines).toContain("           [3]: 4 | 9");
    expect(r.out).toMatch(/^differ {5}\/g\/y \[4\] uint8: 1 of 4 elements differ$/m);
    expect(r.out).toMatch(/^same {7}\/x /m);
    expect(r.out).not.toContain("gone/deep"); // a one-sided subtree is reported once
    const { report } = await diffJson(a, b);
    expect(
      report.nodes.map((n: { path: string; verdict: string }) => `${n.path}:${n.verdict}`),
    ).toEqual([
      ":same",
      "g:same",
      "g/only-a:only_in_a",
      "g/only-b:only_in_b",
      "g/y:differ",
      "gone:only_in_a",
      "x:same",
    ]);
    expect(report.summary).toEqual({
      nodes: 7,
      differing_nodes: 4,
      arrays_compared: 2,
      elements_compared: 8,
      elements_differing: 1,
    });
    // The same hierarchies on both sides.
    expect((await run("diff", a, a)).code).toBe(0);
    // --path-b: another node in b.
    expect((await run("diff", a, b, "--path", "g/y", "--path-b", "x")).code).toBe(0);
  });

  it("an array against a group differs by kind", async () => {
    const a = await hierarchy(["n"]);
    const b = await hierarchy(["n/"]);
    const { code, report } = await diffJson(a, b);
    expect(code).toBe(1);
    expect(report.nodes[1]).toMatchObject({
      path: "n",
      verdict: "differ",
      kind_a: "array",
      kind_b: "group",
      differences: ["kind"],
    });
  });
});

describe("--json schema", () => {
  it("typed fields", async () => {
    const a = await float64Array(ramp(6), [2, 3], { chunkShape: [1, 3] });
    const b = await float64Array(
      ramp(6).map((v) => v * 2),
      [2, 3],
      { chunkShape: [2, 2] },
    );
    const { report } = await diffJson(a, b, "--max-report", "2");
    expect(Object.keys(report).sort()).toEqual(["a", "b", "nodes", "same", "summary", "tolerance"]);
    expect(report.same).toBe(false);
    expect(report.a).toEqual({ store: a, path: "" });
    expect(report.b).toEqual({ store: b, path: "" });
    expect(report.tolerance).toBe(0);
    const [node] = report.nodes;
    expect(Object.keys(node).sort()).toEqual(
      [
        "attribute_keys",
        "data_type_a",
        "data_type_b",
        "differences",
        "kind_a",
        "kind_b",
        "notes",
        "path",
        "shape_a",
        "shape_b",
        "values",
        "verdict",
      ].sort(),
    );
    expect(node).toMatchObject({
      path: "",
      verdict: "differ",
      kind_a: "array",
      kind_b: "array",
      differences: ["values"],
      attribute_keys: [],
      shape_a: [2, 3],
      data_type_a: "float64",
    });
    expect(node.values).toEqual({
      compared: 6,
      differing: 5,
      first: [
        { index: [0, 1], a: 1, b: 2 },
        { index: [0, 2], a: 2, b: 4 },
      ],
    });
    expect(node.notes).toEqual([{ field: "chunk_shape", a: [1, 3], b: [2, 2] }]);
    for (const k of Object.keys(report.summary)) expect(typeof report.summary[k]).toBe("number");
  });
});

describe("exit codes and errors", () => {
  it("0 same, 1 differ or usage, 2 missing node or unreadable data", async () => {
    const a = await float64Array(ramp(4), [4], { chunkShape: [2] });
    const b = await float64Array(ramp(4), [4], { chunkShape: [2] });
    expect((await run("diff", a, b)).code).toBe(0);
    const missing = await run("diff", a, b, "--path", "nope");
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^zarr: NodeNotFoundError: /);
    expect((await run("diff", a, join(dir, "no-such.zarr"))).code).toBe(2);
    const usage = await run("diff", a);
    expect(usage.code).toBe(1);
    expect(usage.err).toMatch(/^zarr: usage: zarr diff needs more arguments/);
    expect((await run("diff", a, b, "--max-report", "-2")).code).toBe(1);
    expect((await run("diff", a, b, "--bogus")).code).toBe(1);
    // A corrupt chunk: exit 2, not a difference.
    writeFileSync(join(b, "c", "1"), Uint8Array.of(1, 2, 3));
    const corrupt = await run("diff", a, b);
    expect(corrupt.code).toBe(2);
    expect(corrupt.out).toBe("");
  });
});

describe("progress and memory", () => {
  it("a progress line only when the Io draws one", async () => {
    const a = await float64Array(ramp(1000), [1000], { chunkShape: [10] });
    const lines: string[] = [];
    const io = (progress?: (l: string) => void): Io => ({
      out: () => {},
      err: () => {},
      progress,
      color: false,
      env: {},
    });
    expect(
      await main(
        ["diff", a, a],
        io((l) => lines.push(l)),
      ),
    ).toBe(0);
    expect(lines.some((l) => /^diff \/ +100% 1000\/1000 /.test(l))).toBe(true);
    expect(lines.at(-1)).toBe(""); // cleared at the end
    expect(await main(["diff", a, a], io(undefined))).toBe(0);
  });

  it("two 200 MiB arrays compare in bounded memory (a child process)", async () => {
    // 6400 x 4096 float64 = 200 MiB each, mostly fill (chunks not stored).
    const shape = [6400, 4096];
    const make = async (last: number) => {
      const p = fresh();
      const arr = await createArray(new FileSystemStore(p), "", {
        shape,
        dataType: "float64",
        chunkShape: [100, 4096],
        fillValue: 0,
      });
      await arr.set([slice(0, 1), null], 1);
      await arr.set([6399, 4095], last);
      return p;
    };
    const a = await make(5);
    const b = await make(6);
    const hook = join(dir, "maxrss.mjs");
    writeFileSync(
      hook,
      'process.on("exit", () => process.stderr.write("maxrss " + process.resourceUsage().maxRSS + "\\n"));\n',
    );
    const r = spawnSync(
      process.execPath,
      ["--max-old-space-size=48", "--import", hook, bin, "diff", a, b, "--json"],
      { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } },
    );
    expect(r.status, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.nodes[0].values).toEqual({
      compared: 6400 * 4096,
      differing: 1,
      first: [{ index: [6399, 4095], a: 5, b: 6 }],
    });
    const kib = Number(/maxrss (\d+)/.exec(r.stderr)?.[1]);
    // Both arrays whole would be 400 MiB; slabs keep the process far below.
    expect(kib / 1024).toBeLessThan(250);
  }, 60_000);
});

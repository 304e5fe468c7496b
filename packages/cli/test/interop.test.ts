// zarr copy --format 2 output read by zarr-python 2.13 (the reference v2
// implementation), and a v2 hierarchy written by zarr-python copied to v3.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  findPython,
  haveFixtures,
  pythonSkipReason,
  repoRoot,
  runPython,
  zarritaFixtures,
} from "@zarr/test-utils";
import { afterAll, describe, expect, it } from "vitest";
import { run } from "./helpers.js";

const MODULES = ["zarr", "numcodecs", "numpy"];
const python = findPython(MODULES);
if (!python) console.warn(pythonSkipReason(MODULES));

const dir = mkdtempSync(join(tmpdir(), "zarr-cli-py-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every array of a v2 hierarchy as {path: flat list of values} (strings for 64-bit ints). */
const DUMP = `
import json, sys, zarr, numpy as np
root = zarr.open_group(sys.argv[1] if len(sys.argv) > 1 else STORE, mode="r")
out = {}
def visit(name, node):
    if isinstance(node, zarr.Array):
        a = node[...]
        vals = a.ravel().tolist()
        if a.dtype.kind in "iu" and a.dtype.itemsize == 8:
            vals = [int(v) for v in vals]
        out[name] = {"shape": list(a.shape), "data": vals, "dtype": a.dtype.str}
root.visititems(visit)
print(json.dumps(out, allow_nan=True))
`;

describe.skipIf(!python)("zarr-python reads what zarr copy --format 2 writes", () => {
  it("the bundled example hierarchy, every array equal", async () => {
    const example = join(repoRoot, "examples/data/weather.zarr");
    const dst = join(dir, "v2.zarr");
    expect((await run("copy", example, dst, "--format", "2", "-q")).code).toBe(0);
    const dumped = JSON.parse(
      runPython(python!, `STORE = ${JSON.stringify(dst)}\n${DUMP}`)
        .toString()
        .replace(/NaN/g, '"NaN"'),
    );
    expect(Object.keys(dumped).sort()).toEqual([
      "legacy/pressure",
      "legacy/station_ids",
      "masks/land",
      "stations",
      "temperature",
    ]);
    for (const path of Object.keys(dumped)) {
      const ours = JSON.parse((await run("get", example, path, "--json")).out);
      expect(dumped[path].shape, path).toEqual(ours.shape);
      const py = dumped[path].data.map((v: unknown) =>
        typeof v === "number" ? Math.fround(v) : v,
      );
      const js = ours.data.map((v: unknown) => (typeof v === "number" ? Math.fround(v) : v));
      expect(py, path).toEqual(js);
    }
    expect(dumped.stations.dtype).toBe("|O");
    expect(dumped["legacy/station_ids"].dtype).toBe(">i8");
  });

  it("a zarr-python v2 hierarchy copies to v3 with equal values", async () => {
    const src = join(dir, "py.zarr");
    runPython(
      python!,
      `import zarr, numpy as np, numcodecs
g = zarr.open_group(${JSON.stringify(src)}, mode="w")
g.attrs["title"] = "from python"
a = g.create_dataset("a/x", shape=(7, 9), chunks=(3, 4), dtype="<u2", compressor=numcodecs.Blosc("zstd", 3, numcodecs.Blosc.BITSHUFFLE), fill_value=7)
a[...] = np.arange(63, dtype="<u2").reshape(7, 9)
b = g.create_dataset("b", shape=(5,), chunks=(2,), dtype=">f8", order="F", compressor=numcodecs.GZip(4), filters=[numcodecs.Delta(">f8")])
b[...] = np.linspace(0, 1, 5)
`,
    );
    const dst = join(dir, "py-v3.zarr");
    const r = await run("copy", src, dst, "--format", "3", "--shards", "none");
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect((await run("verify", dst)).code).toBe(0);
    for (const path of ["a/x", "b"]) {
      expect((await run("get", dst, path, "--json")).out, path).toBe(
        (await run("get", src, path, "--json")).out,
      );
    }
    const info = JSON.parse((await run("info", dst, "b", "--json")).out);
    expect(info.codecs.map((c: { name: string }) => c.name)).toEqual([
      "numcodecs.delta",
      "bytes",
      "gzip",
    ]);
    expect(JSON.parse((await run("info", dst, "", "--json")).out).attributes).toEqual({
      title: "from python",
    });
  });
});

describe.skipIf(!python || !haveFixtures())(
  "zarr-python reads every zarrita v3 fixture array after copy --format 2",
  () => {
    it("values equal expected-v3.json", async () => {
      const dst = join(dir, "fixtures-v2.zarr");
      const r = await run(
        "copy",
        join(zarritaFixtures, "v3/data.zarr"),
        dst,
        "--format",
        "2",
        "-q",
      );
      expect(r.code).toBe(0);
      const script = `
import json, zarr, numpy as np
g = zarr.open_group(${JSON.stringify(dst)}, mode="r")
expected = json.load(open(${JSON.stringify(join(zarritaFixtures, "expected-v3.json"))}))
checked, bad = [], []
def same(x, y):
    if isinstance(x, float):
        if x != x: return y == "NaN"
        return isinstance(y, (int, float)) and np.float32(x) == np.float32(y)
    return x == y
def visit(name, node):
    if isinstance(node, zarr.Array) and name in expected:
        a = node[...]
        e = expected[name]
        ok = list(a.shape) == e["shape"] and all(same(x, y) for x, y in zip(a.ravel().tolist(), e["data"]))
        (checked if ok else bad).append(name)
g.visititems(visit)
print(json.dumps({"checked": len(checked), "bad": bad}))
`;
      const result = JSON.parse(runPython(python!, script).toString());
      expect(result.bad).toEqual([]);
      expect(result.checked).toBeGreaterThan(30);
    });
  },
);

// Interop with zarr-python 2.13 + numcodecs 0.11, both directions, over one
// matrix (test/python/matrix.py): every v2 dtype (byte orders, M8/m8, S/U/V,
// structured with subarray and nested fields, object arrays), every
// compressor, every numcodecs filter, order C and F, "." and "/" separators,
// NaN and null fill values, missing chunks, nested groups and .zmetadata.
import "@zarr/codec-blosc/register";
import "@zarr/codec-gzip/register";
import "@zarr/codec-zstd/register";
import "../src/register.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type JsonObject, openArray, openGroup, slice } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { findPython, pythonSkipReason, runPython } from "@zarr/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consolidate, createArrayV2, createGroupV2 } from "../src/index.js";
import { fromJsonValues, jsonValues } from "./helpers.js";

const MODULES = ["zarr", "numcodecs", "numpy"];
const python = findPython(MODULES);
if (!python) console.warn(pythonSkipReason(MODULES));
const script = fileURLToPath(new URL("./python/matrix.py", import.meta.url));

type Case = JsonObject & { expected: unknown[] };

describe.skipIf(!python)("zarr-python 2.13 interop", () => {
  const dir = mkdtempSync(join(tmpdir(), "v2-interop-"));
  let spec: Record<string, Case> = {};
  beforeAll(() => {
    const out = runPython(
      python!,
      `import runpy, sys; sys.argv = ["m", "write", ${JSON.stringify(join(dir, "py"))}]; runpy.run_path(${JSON.stringify(script)}, run_name="__main__")`,
    );
    spec = JSON.parse(out.toString());
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads every array zarr-python wrote (dtypes × compressors × filters × order × separator)", async () => {
    const store = new FileSystemStore(join(dir, "py"));
    const failures: string[] = [];
    for (const [name, c] of Object.entries(spec)) {
      try {
        const a = await openArray(store, name);
        const got = jsonValues(await a.get());
        if (JSON.stringify(got) !== JSON.stringify(c.expected))
          failures.push(`${name}: got ${JSON.stringify(got)} want ${JSON.stringify(c.expected)}`);
        if (name !== "sparse") expect(a.attrs).toEqual({ case: name });
      } catch (e) {
        failures.push(`${name}: ${(e as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
    expect(Object.keys(spec).length).toBeGreaterThan(30);
  });

  it("opens the hierarchy through .zmetadata (v2 spec: Hierarchies; consolidated metadata)", async () => {
    const root = await openGroup(new FileSystemStore(join(dir, "py")));
    expect(root.zarrFormat).toBe(2);
    expect(root.attrs).toEqual({ title: "interop" });
    expect(await root.childNames()).toEqual(["dt", "f", "obj", "sparse"]);
    const dt = await root.get("dt");
    expect(dt.kind).toBe("group");
  });

  it("zarr-python reads every array we write, with .zmetadata", async () => {
    const store = new FileSystemStore(join(dir, "js"));
    await createGroupV2(store, "", { attributes: { title: "interop" } });
    for (const [name, c] of Object.entries(spec)) {
      if (name === "sparse") {
        const a = await createArrayV2(store, name, {
          shape: [5, 4],
          chunks: [2, 3],
          dtype: "<f4",
          fillValue: -1.5,
          compressor: { id: "zlib", level: 1 },
        });
        await a.set([{ start: 0, stop: 2, step: 1 } as never, null], 7);
        continue;
      }
      const object = c.object as string | undefined;
      const filters = [
        ...((c.filters as JsonObject[] | undefined) ?? []),
        ...(object ? [{ id: object }] : []),
      ];
      const compressors: Record<string, JsonObject | null> = {
        none: null,
        zlib: { id: "zlib", level: 1 },
        gzip: { id: "gzip", level: 5 },
        blosc: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 },
        bitblosc: { id: "blosc", cname: "zstd", clevel: 3, shuffle: 2, blocksize: 0 },
        zstd: { id: "zstd", level: 1 },
      };
      const dtype = c.dtype === "O" ? "|O" : c.dtype;
      const a = await createArrayV2(store, name, {
        shape: [5, 4],
        chunks: [2, 3],
        dtype,
        compressor: compressors[c.compressor as string],
        filters,
        order: c.order as "C" | "F",
        dimensionSeparator: c.sep as "." | "/",
        fillValue:
          c.fill === null
            ? null
            : typeof dtype === "string" && /^[<>|]f/.test(dtype)
              ? "NaN"
              : undefined,
        attributes: { case: name },
      });
      await a.set(null, { data: fromJsonValues(a.dataType, c.expected), shape: [5, 4] });
    }
    await consolidate(store);
    const specPath = join(dir, "spec.json");
    writeFileSync(specPath, JSON.stringify(spec));
    const out = runPython(
      python!,
      `import runpy, sys; sys.argv = ["m", "check", ${JSON.stringify(join(dir, "js"))}, ${JSON.stringify(specPath)}]; runpy.run_path(${JSON.stringify(script)}, run_name="__main__")`,
    );
    const result = JSON.parse(out.toString());
    expect(JSON.stringify(result.bad, null, 1)).toEqual("{}");
    expect(result.top).toEqual(["sparse", "dt", "f", "obj"]);
    expect(result.attrs).toEqual({ title: "interop" });
  });
});

// Chunk rows of every width around the read path's thresholds: rows under 256
// bytes copy as 4-byte words (or bytes), uncompressed rows of 256 bytes and
// more are read by the store straight into the output. Both directions,
// element by element (as bits for floats), with edge chunks and a non-zero
// selection start.
describe.skipIf(!python)("zarr-python 2.13 interop: short and long chunk rows", () => {
  const dir = mkdtempSync(join(tmpdir(), "v2-rows-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // [dtype, chunk columns]: rows of 2 to 520 bytes.
  const cases: [string, number][] = [
    ["<f4", 16], // 64 bytes
    ["<f4", 63], // 252
    ["<f4", 64], // 256
    ["<f4", 65], // 260
    ["<f4", 130], // 520
    ["<f8", 31], // 248
    ["<f8", 33], // 264
    ["|u1", 255],
    ["|u1", 257],
    ["<i2", 1], // 2
    ["<i2", 129], // 258
    ["<c8", 32], // 256
  ];
  const shape = [37, 300];
  const name = (dtype: string, cols: number) => `${dtype.replace(/[<|]/, "")}-${cols}`;
  const values = (n: number) => Array.from({ length: n }, (_, i) => (i * 7919) % 251);

  it("reads what zarr-python wrote, and zarr-python reads what we wrote", async () => {
    const py = join(dir, "py");
    runPython(
      python!,
      `import zarr, numpy as np
for dtype, cols in ${JSON.stringify(cases)}:
    n = ${shape[0] * shape[1]}
    v = (np.arange(n) * 7919 % 251).astype(dtype).reshape(${JSON.stringify(shape)})
    z = zarr.open(${JSON.stringify(py)} + "/" + dtype.strip("<|") + "-" + str(cols), mode="w", shape=v.shape, chunks=(5, cols), dtype=dtype, compressor=None)
    z[:] = v`,
    );
    const failures: string[] = [];
    const n = shape[0] * shape[1];
    for (const [dtype, cols] of cases) {
      const a = await openArray(new FileSystemStore(py), name(dtype, cols));
      const all = jsonValues(await a.get());
      const want = values(n);
      if (JSON.stringify(all) !== JSON.stringify(dtype === "<c8" ? want.map((x) => [x, 0]) : want))
        failures.push(`read ${dtype} ${cols}`);
      // A region starting inside a chunk: rows land at offsets that are not chunk-aligned.
      const part = jsonValues(await a.get([slice(3, 30), slice(7, 290)]));
      const wantPart: unknown[] = [];
      for (let r = 3; r < 30; r++)
        for (let c = 7; c < 290; c++) {
          const x = want[r * shape[1] + c];
          wantPart.push(dtype === "<c8" ? [x, 0] : x);
        }
      if (JSON.stringify(part) !== JSON.stringify(wantPart))
        failures.push(`region ${dtype} ${cols}`);
      const w = await createArrayV2(new FileSystemStore(join(dir, "js")), name(dtype, cols), {
        shape,
        chunks: [5, cols],
        dtype,
        compressor: null,
        fillValue: 0,
      });
      await w.set(null, await a.get());
    }
    expect(failures).toEqual([]);
    const bad = runPython(
      python!,
      `import zarr, numpy as np
bad = []
for dtype, cols in ${JSON.stringify(cases)}:
    key = dtype.strip("<|") + "-" + str(cols)
    a = zarr.open(${JSON.stringify(join(dir, "py"))} + "/" + key, mode="r")[:]
    b = zarr.open(${JSON.stringify(join(dir, "js"))} + "/" + key, mode="r")[:]
    if a.dtype != b.dtype or a.tobytes() != b.tobytes():
        bad.append(key)
print(",".join(bad))`,
    );
    expect(bad.toString().trim()).toBe("");
  });
});

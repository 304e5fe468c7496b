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
import { type JsonObject, openArray, openGroup } from "@zarr/core";
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

/**
 * End to end with zarr-python 2.13 and numcodecs 0.11's ZFPY compressor
 * (v2 spec, "compressor"): v2 arrays zarr-python wrote read here through
 * @zarr/core + @zarr/v2-compat + this package's registration, value bits
 * equal to zarr-python's own read; and v2 arrays written here read by
 * zarr-python to the same bits, each chunk file being numcodecs' own
 * encoding of that chunk (up to the stream's final zero padding).
 */
import "@zarr/codec-zfp/register";
import "@zarr/v2-compat/register";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { MemoryStore, openArray } from "@zarr/core";
import { findPython, pythonSkipReason, readOnlyDirStore, runPython } from "@zarr/test-utils";
import { createArrayV2 } from "@zarr/v2-compat";
import { afterAll, describe, expect, it } from "vitest";
import { makeData } from "./cases.js";

const MODULES = ["zarr", "numcodecs.zfpy", "numpy"];
const python = findPython(MODULES);
if (!python) console.warn(pythonSkipReason(MODULES));

const CASES = [
  {
    name: "f4_acc",
    dtype: "<f4",
    shape: [13, 10],
    chunks: [5, 4],
    compressor: { mode: 4, tolerance: 0.01 },
  },
  {
    name: "f8_rate",
    dtype: "<f8",
    shape: [9, 6, 7],
    chunks: [4, 4, 3],
    compressor: { mode: 2, rate: 12 },
  },
  {
    name: "f4_prec",
    dtype: "<f4",
    shape: [50],
    chunks: [17],
    compressor: { mode: 3, precision: 14 },
  },
  {
    name: "f8_rev",
    dtype: "<f8",
    shape: [6, 5, 4, 3],
    chunks: [3, 3, 3, 3],
    compressor: { mode: 4, tolerance: -1 },
  },
  {
    name: "i4_rev",
    dtype: "<i4",
    shape: [11, 3],
    chunks: [4, 3],
    compressor: { mode: 4, tolerance: -1 },
  },
  {
    name: "i8_prec",
    dtype: "<i8",
    shape: [21],
    chunks: [8],
    compressor: { mode: 3, precision: 40 },
  },
] as const;

const TYPE = { "<f4": "float32", "<f8": "float64", "<i4": "int32", "<i8": "int64" } as const;

const WRITE = `
import json, sys, numpy as np, zarr
from numcodecs.zfpy import ZFPY
args = json.loads(sys.stdin.read()); root, cases = args["root"], args["cases"]
for c in cases:
    n = int(np.prod(c["shape"]))
    data = np.frombuffer(bytes.fromhex(c["hex"]), dtype=c["dtype"]).reshape(c["shape"])
    z = zarr.open(root + "/" + c["name"], mode="w", shape=c["shape"], chunks=c["chunks"], dtype=c["dtype"], compressor=ZFPY(**c["compressor"]))
    z[...] = data
    sys.stdout.write(c["name"] + " " + z[...].tobytes().hex() + "\\n")
`;

const READ = `
import json, os, sys, numpy as np, zarr
args = json.loads(sys.stdin.read())
root = args["root"]
for c in args["cases"]:
    name = c["name"]
    original = np.frombuffer(bytes.fromhex(c["hex"]), dtype=c["dtype"]).reshape(c["shape"])
    z = zarr.open(root + "/" + name, mode="r")
    same = True
    keys = sorted(k for k in os.listdir(root + "/" + name) if not k.startswith("."))
    for key in keys:
        idx = tuple(int(i) for i in key.split("."))
        sel = tuple(slice(i * c, (i + 1) * c) for i, c in zip(idx, z.chunks))
        chunk = np.full(z.chunks, z.fill_value, dtype=z.dtype)
        part = original[sel]
        chunk[tuple(slice(0, s) for s in part.shape)] = part
        raw = open(root + "/" + name + "/" + key, "rb").read()
        theirs = bytes(z.compressor.encode(chunk))
        same = same and raw[:len(theirs)] == theirs and raw[len(theirs):] == bytes(len(raw) - len(theirs)) and len(raw) - len(theirs) < 8
    same = same and len(keys) == int(np.prod(z.cdata_shape))
    sys.stdout.write(name + " " + str(same) + " " + json.dumps(z.compressor.get_config()["mode"]) + " " + z[...].tobytes().hex() + "\\n")
`;

const json = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

function bytesOf(data: ArrayBufferView): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("hex");
}

describe.skipIf(!python)("zarr-python 2.13 + numcodecs ZFPY, v2 arrays both ways", () => {
  const dir = mkdtempSync(join(tmpdir(), "zfp-v2-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const inputs = CASES.map((c, i) => {
    const n = c.shape.reduce((a: number, b: number) => a * b, 1);
    return {
      ...c,
      hex: Buffer.from(makeData(TYPE[c.dtype], n, i % 2 ? "smooth" : "special", i + 1)).toString(
        "hex",
      ),
    };
  });

  it("reads zarr-python's ZFPY arrays to zarr-python's values, bit for bit", async () => {
    const out = runPython(
      python!,
      WRITE,
      json({ root: join(dir, "py"), cases: inputs }),
    ).toString();
    const expected = new Map(
      out
        .trim()
        .split("\n")
        .map((l) => l.split(" ") as [string, string]),
    );
    const store = readOnlyDirStore(join(dir, "py"));
    for (const c of CASES) {
      const a = await openArray(store, c.name);
      const got = await a.get();
      expect(got.shape).toEqual(c.shape);
      expect(bytesOf(got.data as ArrayBufferView), c.name).toBe(expected.get(c.name));
    }
  });

  it("zarr-python reads our ZFPY arrays to our values; each chunk is numcodecs' encoding of it", async () => {
    const ours = new Map<string, string>();
    const store = new MemoryStore();
    for (const c of inputs) {
      const a = await createArrayV2(store, c.name, {
        shape: [...c.shape],
        chunks: [...c.chunks],
        dtype: c.dtype,
        compressor: { id: "zfpy", ...c.compressor },
      });
      const typed = {
        float32: Float32Array,
        float64: Float64Array,
        int32: Int32Array,
        int64: BigInt64Array,
      }[TYPE[c.dtype]];
      const data = new typed(new Uint8Array(Buffer.from(c.hex, "hex")).buffer);
      await a.set(null, { data, shape: [...c.shape], stride: strides(c.shape) } as never);
      const back = await (await openArray(store, c.name)).get();
      ours.set(c.name, bytesOf(back.data as ArrayBufferView));
    }
    for await (const key of store.list()) {
      const path = join(dir, "js", ...key.split("/"));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, (await store.get(key))!);
    }
    const out = runPython(python!, READ, json({ root: join(dir, "js"), cases: inputs })).toString();
    for (const line of out.trim().split("\n")) {
      const [name, same, mode, hex] = line.split(" ");
      const c = CASES.find((k) => k.name === name)!;
      expect(same, `${name}: chunk files equal numcodecs' encoding`).toBe("True");
      expect(Number(mode)).toBe(c.compressor.mode);
      expect(hex, name).toBe(ours.get(name!));
    }
    expect(out.trim().split("\n")).toHaveLength(CASES.length);
  });
});

function strides(shape: readonly number[]): number[] {
  const s: number[] = [];
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i]!;
  }
  return s;
}

describe.skipIf(!python)("zarr-python 2.13: filters that flatten the chunk before ZFPY", () => {
  const dir = mkdtempSync(join(tmpdir(), "zfp-v2-filters-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("delta and fixedscaleoffset before zfpy (1-d zfp headers in 2-d chunks) read to zarr-python's values", async () => {
    // numcodecs' Delta and FixedScaleOffset reshape the chunk to 1-d, so zfpy
    // writes a 1-d header; zarr-python reshapes what it decodes.
    const out = runPython(
      python!,
      `
import sys, numpy as np, zarr
from numcodecs import Delta, FixedScaleOffset
from numcodecs.zfpy import ZFPY
root = sys.argv[1] if len(sys.argv) > 1 else ${JSON.stringify(dir)}
d = zarr.open(root + "/delta", mode="w", shape=(7, 5), chunks=(3, 3), dtype="<i4",
              filters=[Delta(dtype="<i4")], compressor=ZFPY(mode=4, tolerance=-1))
d[...] = (np.arange(35, dtype="<i4") * 7 - 40).reshape(7, 5)
f = zarr.open(root + "/fso", mode="w", shape=(6, 4), chunks=(4, 3), dtype="<f8",
              filters=[FixedScaleOffset(offset=0, scale=100, dtype="<f8", astype="<i4")],
              compressor=ZFPY(mode=4, tolerance=-1))
f[...] = np.linspace(-3, 3, 24).reshape(6, 4)
print(d[...].tobytes().hex(), f[...].tobytes().hex())
`,
    ).toString();
    const [delta, fso] = out.trim().split(" ");
    const store = readOnlyDirStore(dir);
    const d = await (await openArray(store, "delta")).get();
    expect(d.shape).toEqual([7, 5]);
    expect(bytesOf(d.data as ArrayBufferView)).toBe(delta);
    const f = await (await openArray(store, "fso")).get();
    expect(f.shape).toEqual([6, 4]);
    expect(bytesOf(f.data as ArrayBufferView)).toBe(fso);
  });
});

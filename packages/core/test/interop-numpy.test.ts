// Arrays written here are read by an independent reader: a NumPy script that
// knows only the v3 spec (regular grid, default chunk keys, transpose + bytes
// codecs, fill value) decodes our chunk files and must see the same values.
import { mkdtempSync, rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createArray, type JsonValue, MemoryStore } from "@zarr/core";
import { resolveDataType } from "@zarr/core/internal";
import { findPython, pythonSkipReason, runPython } from "@zarr/test-utils";
import { afterAll, describe, expect, it } from "vitest";

const python = findPython(["numpy"]);
if (!python) console.warn(pythonSkipReason(["numpy"]));

const READER = `
import json, os, sys, itertools
import numpy as np
root = sys.argv[1] if len(sys.argv) > 1 else None
cases = json.load(sys.stdin)
CODES = {"bool": "b1", "int8": "i1", "int16": "i2", "int32": "i4", "int64": "i8",
         "uint8": "u1", "uint16": "u2", "uint32": "u4", "uint64": "u8", "float16": "f2",
         "float32": "f4", "float64": "f8", "complex64": "c8", "complex128": "c16"}
out = {}
for name in cases:
    base = os.path.join(cases[name])
    meta = json.load(open(os.path.join(base, "zarr.json")))
    shape = meta["shape"]; chunks = meta["chunk_grid"]["configuration"]["chunk_shape"]
    order = None; endian = "little"
    for c in meta["codecs"]:
        if c["name"] == "transpose": order = c["configuration"]["order"]
        if c["name"] == "bytes": endian = c.get("configuration", {}).get("endian", "little")
    dt = np.dtype(CODES[meta["data_type"]]).newbyteorder("<" if endian == "little" else ">")
    fv = meta["fill_value"]
    if isinstance(fv, list): fv = complex(fv[0], fv[1])
    elif fv == "NaN": fv = np.nan
    full = np.full(shape, fv, dtype=dt.newbyteorder("="))
    grid = [ -(-s // c) for s, c in zip(shape, chunks)]
    for idx in itertools.product(*[range(g) for g in grid]):
        p = os.path.join(base, "c", *[str(i) for i in idx])
        if not os.path.exists(p): continue
        enc = np.frombuffer(open(p, "rb").read(), dtype=dt)
        if order is not None:
            enc = enc.reshape([chunks[o] for o in order])
            chunk = enc.transpose(np.argsort(order))
        else:
            chunk = enc.reshape(chunks)
        sl = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(idx, chunks, shape))
        full[sl] = chunk[tuple(slice(0, x.stop - x.start) for x in sl)]
    out[name] = full.astype(dt.newbyteorder("<")).tobytes().hex()
json.dump(out, sys.stdout)
`;

const CASES: {
  name: string;
  dataType: string;
  shape: number[];
  chunks: number[];
  codecs: JsonValue[];
  fill?: unknown;
}[] = [
  {
    name: "i2_be",
    dataType: "int16",
    shape: [7, 5],
    chunks: [3, 2],
    codecs: [{ name: "bytes", configuration: { endian: "big" } }],
  },
  {
    name: "f4_le_T",
    dataType: "float32",
    shape: [4, 3, 5],
    chunks: [2, 3, 2],
    fill: "NaN",
    codecs: [
      { name: "transpose", configuration: { order: [2, 0, 1] } },
      { name: "bytes", configuration: { endian: "little" } },
    ],
  },
  {
    name: "c16_be",
    dataType: "complex128",
    shape: [6],
    chunks: [4],
    fill: [1, -2],
    codecs: [{ name: "bytes", configuration: { endian: "big" } }],
  },
  {
    name: "u8_le",
    dataType: "uint64",
    shape: [5, 2],
    chunks: [2, 2],
    codecs: [{ name: "bytes", configuration: { endian: "little" } }],
  },
  { name: "b1", dataType: "bool", shape: [9], chunks: [4], codecs: [{ name: "bytes" }] },
  {
    name: "f2_be_T",
    dataType: "float16",
    shape: [3, 4],
    chunks: [2, 3],
    codecs: [
      { name: "transpose", configuration: { order: [1, 0] } },
      { name: "bytes", configuration: { endian: "big" } },
    ],
  },
  {
    name: "i8_le",
    dataType: "int64",
    shape: [4],
    chunks: [3],
    codecs: [{ name: "bytes", configuration: { endian: "little" } }],
  },
];

describe.skipIf(!python)("an independent NumPy reader decodes what we write", () => {
  const dir = mkdtempSync(join(tmpdir(), "zarr-numpy-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("every case matches value for value", async () => {
    const ours: Record<string, string> = {};
    const paths: Record<string, string> = {};
    for (const c of CASES) {
      const store = new MemoryStore();
      const a = await createArray(store, c.name, {
        shape: c.shape,
        dataType: c.dataType,
        chunkShape: c.chunks,
        codecs: c.codecs,
        fillValue: c.fill,
      });
      const dt = resolveDataType(c.dataType, "test");
      const n = c.shape.reduce((x, y) => x * y, 1);
      const data = dt.allocate(n);
      for (let i = 0; i < n * dt.width; i++) {
        const v = ((i * 37) % 23) - 11;
        if (data instanceof BigInt64Array) data[i] = BigInt(v) * 2n ** 40n;
        else if (data instanceof BigUint64Array) data[i] = BigInt(v + 11) * 2n ** 60n + 1n;
        else if (dt.kind === "bool") (data as Uint8Array)[i] = v & 1;
        else (data as Int16Array)[i] = v === 0 ? 0 : v / (dt.kind === "int" ? 1 : 4);
      }
      // Leave one chunk unwritten so the fill value path is compared too.
      await a.set(null, data);
      await store.erase(a.chunkKey(c.shape.map(() => 0)));
      const back = await a.get();
      ours[c.name] = Buffer.from(dt.toBytes!(back.data, true)).toString("hex");
      for (const [key, value] of store.map) {
        const file = join(dir, ...key.split("/"));
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, value);
      }
      paths[c.name] = join(dir, c.name);
    }
    const theirs = JSON.parse(
      runPython(python!, READER, Buffer.from(JSON.stringify(paths))).toString(),
    );
    for (const c of CASES)
      expect({ name: c.name, hex: theirs[c.name] }).toEqual({ name: c.name, hex: ours[c.name] });
  });
});

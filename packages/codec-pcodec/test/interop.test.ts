import { findPython, PY_PACK, pack, pythonSkipReason, runPython, unpack } from "@zarr/test-utils";
import { describe, expect, it } from "vitest";
import { PcodecCodec } from "../src/codec.js";
import { firstDifference } from "./helpers.js";

// Interop with the reference, when a python3 with numcodecs >= 0.12 and pcodec
// is installed (it is not on the machine this package was written on: see the
// README's verification status; golden.test.ts checks real pcodec output).
const MODULES = ["numpy", "pcodec", "numcodecs.pcodec"];
const python = findPython(MODULES);
if (!python) console.warn(pythonSkipReason(MODULES));

const TYPES: [string, string][] = [
  ["float64", "<f8"],
  ["float32", "<f4"],
  ["int64", "<i8"],
  ["int32", "<i4"],
  ["uint16", "<u2"],
  ["float16", "<f2"],
];

function sample(dataType: string, n: number): Uint8Array {
  const width = { float64: 8, int64: 8, float32: 4, int32: 4, uint16: 2, float16: 2 }[dataType]!;
  const out = new Uint8Array(n * width);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < n; i++) {
    const v = Math.sin(i / 30) * 1000;
    if (dataType === "float64") dv.setFloat64(8 * i, v, true);
    else if (dataType === "float32") dv.setFloat32(4 * i, v, true);
    else if (dataType === "int64") dv.setBigInt64(8 * i, BigInt(Math.round(v)) * 1000003n, true);
    else if (dataType === "int32") dv.setInt32(4 * i, Math.round(v), true);
    else if (dataType === "uint16") dv.setUint16(2 * i, Math.round(v) & 0xffff, true);
    else dv.setUint16(2 * i, 0x3c00 + (Math.round(v) & 0x3ff), true);
  }
  return out;
}

describe.skipIf(!python)("interop with numcodecs.PCodec (pcodec)", () => {
  it("numcodecs decodes our streams and we decode numcodecs' streams, for every type", () => {
    const raws = TYPES.map(([t]) => sample(t, 5000));
    const ours = TYPES.map(([t], i) => new PcodecCodec({ dataType: t }).encode(raws[i]));
    const script = `${PY_PACK}
import numpy as np
from numcodecs.pcodec import PCodec
items = unpack(sys.stdin.buffer.read())
dtypes = ${JSON.stringify(TYPES.map(([, d]) => d))}
n = len(dtypes)
raws, ours = items[:n], items[n:]
out = []
for dt, raw, enc in zip(dtypes, raws, ours):
    arr = np.frombuffer(raw, dtype=dt)
    out.append(bytes(PCodec().encode(arr)))
    out.append(np.asarray(PCodec().decode(enc)).astype(dt).tobytes())
sys.stdout.buffer.write(pack(out))
`;
    const results = unpack(runPython(python!, script, pack([...raws, ...ours])));
    TYPES.forEach(([t], i) => {
      const theirs = results[2 * i];
      const decodedByThem = results[2 * i + 1];
      expect(firstDifference(decodedByThem, raws[i]), `numcodecs decoding our ${t}`).toBe(-1);
      const back = new PcodecCodec({ dataType: t }).decode(theirs, raws[i].length);
      expect(firstDifference(back, raws[i]), `our decoding of numcodecs' ${t}`).toBe(-1);
    });
  });
});

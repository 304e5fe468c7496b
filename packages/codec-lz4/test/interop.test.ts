// numcodecs LZ4 (numcodecs 0.11, liblz4) and zarr-python 2.13 interop, both
// directions: chunks of 0, 1, 3, 4, 5551..5553 and 100,000 bytes encoded by
// numcodecs decode here and ours decode there; arrays zarr-python wrote with
// LZ4 as compressor read element by element through @zarr/v2-compat (and the
// other way round); the zarrita v2 fixture compressed with lz4.
import "@zarr/v2-compat/register";
import "../src/register.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openArray } from "@zarr/core";
import type { BytesToBytesCodec, CodecContext } from "@zarr/core/codec";
import { FileSystemStore } from "@zarr/store-fs";
import {
  findPython,
  fixturesSkipReason,
  haveFixtures,
  loadExpected,
  pythonSkipReason,
  readOnlyDirStore,
  runPython,
  zarritaFixtures,
} from "@zarr/test-utils";
import { createArrayV2 } from "@zarr/v2-compat";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lz4Codec } from "../src/index.js";

const MODULES = ["zarr", "numcodecs", "numpy"];
const python = findPython(MODULES);
if (!python) console.warn(pythonSkipReason(MODULES));
const SIZES = [0, 1, 3, 4, 5551, 5552, 5553, 100_000];
const codec = lz4Codec.fromConfig({ acceleration: 1 }, {
  path: "interop",
  format: 2,
} as unknown as CodecContext) as BytesToBytesCodec;
const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");
const unb64 = (s: string) => new Uint8Array(Buffer.from(s, "base64"));

/** Half compressible (runs, repeats), half random: both LZ4 paths. */
function sample(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed | 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = i < n / 2 ? (i >> 5) & 0xff : x & 0xff;
  }
  return out;
}

describe.skipIf(!python)("numcodecs LZ4 (0.11) chunks, both directions", () => {
  it("decodes what numcodecs encodes and numcodecs decodes what we encode", async () => {
    const raw = SIZES.map((n, i) => sample(n, 77 + i));
    const ours = await Promise.all(raw.map(async (r) => b64(await codec.encode(r))));
    const script = `
import base64, json, sys, numcodecs
req = json.load(sys.stdin)
c = numcodecs.LZ4(acceleration=1)
enc = [base64.b64encode(bytes(c.encode(base64.b64decode(r)))).decode() for r in req["raw"]]
def dec(r, o):
    try:
        return "ok" if bytes(c.decode(base64.b64decode(o))) == base64.b64decode(r) else "differs"
    except RuntimeError as e:
        return str(e)
dec = [dec(r, o) for r, o in zip(req["raw"], req["ours"])]
print(json.dumps({"enc": enc, "dec": dec}))
`;
    const out = JSON.parse(
      runPython(
        python!,
        script,
        Buffer.from(JSON.stringify({ raw: raw.map(b64), ours })),
      ).toString(),
    ) as { enc: string[]; dec: string[] };
    // numcodecs 0.11 cannot decode an empty chunk, its own included (liblz4's
    // LZ4_decompress_safe into 0 bytes fails); ours is byte for byte the same.
    expect(out.dec).toEqual(
      SIZES.map((n) => (n === 0 ? "LZ4 decompression error: invalid input data" : "ok")),
    );
    expect(ours[0]).toBe(out.enc[0]);
    for (const [i, r] of raw.entries()) {
      expect(await codec.decode(unb64(out.enc[i]), r.length), `${r.length} bytes`).toEqual(r);
    }
  });
});

describe.skipIf(!python)("arrays: zarr-python 2.13 with LZ4 as compressor", () => {
  const dir = mkdtempSync(join(tmpdir(), "codec-lz4-"));
  const cases: Record<string, { dtype: string; n: number; chunk: number; expected: number[] }> = {};
  beforeAll(() => {
    const script = `
import json, sys, numpy as np, zarr, numcodecs
root = sys.argv[1]
spec = {}
for i, (name, dtype, n, chunk, acc) in enumerate([("i4", "<i4", 5000, 1024, 1), ("f8", "<f8", 3000, 1000, 1), ("u1_fast", "|u1", 200000, 65536, 100)]):
    a = zarr.open_array(f"{root}/{name}", mode="w", shape=(n,), chunks=(chunk,), dtype=dtype, compressor=numcodecs.LZ4(acceleration=acc))
    rng = np.random.default_rng(i)
    v = np.concatenate([np.arange(n // 2) // 3, rng.integers(0, 100, n - n // 2)]).astype(dtype)
    a[:] = v
    spec[name] = {"dtype": dtype, "n": n, "chunk": chunk, "expected": [float(x) if dtype[1] == "f" else int(x) for x in v]}
print(json.dumps(spec))
`.replace("sys.argv[1]", JSON.stringify(join(dir, "py")));
    Object.assign(cases, JSON.parse(runPython(python!, script).toString()));
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads every array element by element through @zarr/v2-compat", async () => {
    const store = new FileSystemStore(join(dir, "py"));
    expect(Object.keys(cases)).toHaveLength(3);
    for (const [name, c] of Object.entries(cases)) {
      const a = await openArray(store, name);
      const got = Array.from((await a.get()).data as ArrayLike<number>);
      expect(got.length, name).toBe(c.n);
      const bad = got.findIndex((v, i) => v !== c.expected[i]);
      expect(bad, `${name}: first differing element`).toBe(-1);
    }
  });

  it("zarr-python reads the arrays we write with LZ4", async () => {
    const store = new FileSystemStore(join(dir, "js"));
    for (const [name, c] of Object.entries(cases)) {
      const a = await createArrayV2(store, name, {
        shape: [c.n],
        chunks: [c.chunk],
        dtype: c.dtype,
        compressor: { id: "lz4", acceleration: 1 },
      });
      const data =
        c.dtype === "<i4"
          ? Int32Array.from(c.expected)
          : c.dtype === "<f8"
            ? Float64Array.from(c.expected)
            : Uint8Array.from(c.expected);
      await a.set(null, { data, shape: [c.n] });
    }
    const script = `
import json, sys, zarr
spec = json.load(sys.stdin)
bad = {}
for name, c in spec.items():
    a = zarr.open_array(f"${join(dir, "js")}/{name}", mode="r")
    got = [float(x) if c["dtype"][1] == "f" else int(x) for x in a[:]]
    if got != c["expected"] or a.compressor.codec_id != "lz4": bad[name] = "differs"
print(json.dumps(bad))
`;
    expect(
      JSON.parse(runPython(python!, script, Buffer.from(JSON.stringify(cases))).toString()),
    ).toEqual({});
  });
});

describe.skipIf(!haveFixtures())("zarrita v2 fixture compressed with lz4", () => {
  if (!haveFixtures()) console.warn(fixturesSkipReason);
  it("1d.contiguous.lz4.i2 reads equal to expected-v2.json", async () => {
    const expected = loadExpected(2)["1d.contiguous.lz4.i2"];
    const store = readOnlyDirStore(join(zarritaFixtures, "v2/data.zarr"));
    const a = await openArray(store, "1d.contiguous.lz4.i2");
    const got = await a.get();
    expect(got.shape).toEqual(expected.shape);
    expect(Array.from(got.data as Int16Array)).toEqual(expected.data);
  });
});

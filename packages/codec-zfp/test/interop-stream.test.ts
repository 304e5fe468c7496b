/**
 * Bit-exactness against libzfp 1.0.0 through zfpy (numcodecs.zfpy.ZFPY and
 * zfpy.compress_numpy / decompress_numpy): for every mode x type x
 * dimensionality x shape (partial blocks included) x data (special values
 * included), zfpy's bytes decode here to exactly zfpy's decoded bits, and
 * our encoding is zfpy's bytes.
 */
import {
  findPython,
  PY_PACK,
  pack,
  pythonSkipReason,
  runPython,
  sameBytes,
  unpack,
} from "@zarr/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { parseZfpyConfig, zfpyParams } from "../src/config.js";
import type { ZfpParams } from "../src/params.js";
import { minimumMaxbits, type ZfpData, zfpCompress, zfpDecompress } from "../src/stream.js";
import { BYTES, KINDS, makeData, NUMPY, SHAPES, TYPES, ZFPY_CONFIGS } from "./cases.js";

const MODULES = ["numpy", "zfpy", "numcodecs.zfpy"];
const python = findPython(MODULES);
if (!python) console.warn(pythonSkipReason(MODULES));

const SCRIPT = `${PY_PACK}
import json, numpy as np, zfpy
from numcodecs.zfpy import ZFPY
items = unpack(sys.stdin.buffer.read())
cases = json.loads(bytes(items[0]))
out = []
for case, data in zip(cases, items[1:]):
    arr = np.frombuffer(bytes(data), dtype=case["dtype"]).reshape(case["shape"])
    try:
        c = ZFPY(**case["config"]).encode(arr)
        d = zfpy.decompress_numpy(c)
        out.append(bytes(c)); out.append(d.tobytes())
    except Exception as e:
        out.append(b"ERR " + repr(e).encode()); out.append(b"")
sys.stdout.buffer.write(pack(out))
`;

interface Case {
  type: (typeof TYPES)[number];
  shape: readonly number[];
  config: (typeof ZFPY_CONFIGS)[number];
  kind: string;
  data: Uint8Array;
}

function typed(type: Case["type"], bytes: Uint8Array): ZfpData {
  const copy = bytes.slice().buffer;
  switch (type) {
    case "float32":
      return new Float32Array(copy);
    case "float64":
      return new Float64Array(copy);
    case "int32":
      return new Int32Array(copy);
    case "int64":
      return new BigInt64Array(copy);
  }
}

function raw(data: ZfpData): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

const cases: Case[] = [];
let seed = 1;
for (const type of TYPES)
  for (const shape of SHAPES)
    for (const config of ZFPY_CONFIGS)
      for (const kind of KINDS) {
        const n = shape.reduce((a, b) => a * b, 1);
        cases.push({ type, shape, config, kind, data: makeData(type, n, kind, seed++) });
      }

/** Configurations libzfp cannot encode without overrunning its buffer (zfpy crashes): we refuse them. */
function overruns(c: Case): boolean {
  const p = paramsOf(c);
  return p.maxbits < minimumMaxbits(c.type, p) || p.maxbits === 0;
}

function paramsOf(c: Case): ZfpParams {
  const p = zfpyParams(parseZfpyConfig(c.config as never, "zfpy", "test", false), c.shape.length);
  if (!p || p === "rate") throw new Error("no params");
  return p;
}

describe.skipIf(!python)("bit-exact with libzfp 1.0.0 (zfpy)", () => {
  let theirs: Uint8Array[] = [];
  beforeAll(() => {
    const sent = cases.filter((c) => !overruns(c));
    const spec = sent.map((c) => ({ dtype: NUMPY[c.type], shape: c.shape, config: c.config }));
    const answers = unpack(
      runPython(
        python!,
        SCRIPT,
        pack([new TextEncoder().encode(JSON.stringify(spec)), ...sent.map((c) => c.data)]),
      ),
    );
    let j = 0;
    theirs = [];
    for (const c of cases) {
      if (overruns(c)) theirs.push(new Uint8Array(0), new Uint8Array(0));
      else theirs.push(answers[2 * j]!, answers[2 * j++ + 1]!);
    }
  }, 120_000);

  for (const type of TYPES) {
    it(`${type}: decodes zfpy's streams to zfpy's bits and encodes zfpy's bytes (${SHAPES.length} shapes x ${ZFPY_CONFIGS.length} configs x ${KINDS.length} data)`, () => {
      let checked = 0;
      const failures: string[] = [];
      cases.forEach((c, i) => {
        if (c.type !== type) return;
        const stream = theirs[2 * i]!;
        const decoded = theirs[2 * i + 1]!;
        const label = `${type} [${c.shape}] ${JSON.stringify(c.config)} ${c.kind}`;
        if (overruns(c)) {
          expect(() => zfpCompress(typed(type, c.data), c.shape, paramsOf(c))).toThrow(
            /bits per block|cannot describe/,
          );
          checked++;
          return;
        }
        if (new TextDecoder().decode(stream.subarray(0, 4)) === "ERR ") {
          failures.push(`${label}: zfpy failed: ${new TextDecoder().decode(stream)}`);
          return;
        }
        try {
          const ours = zfpDecompress(stream, { type, shape: c.shape });
          if (!sameBytes(raw(ours), decoded)) failures.push(`${label}: decode differs`);
        } catch (e) {
          failures.push(`${label}: ${(e as Error).message}`);
        }
        const encoded = zfpCompress(typed(type, c.data), c.shape, paramsOf(c), { wordBits: 8 });
        if (!sameBytes(encoded, stream))
          failures.push(`${label}: encode differs (${encoded.length} vs ${stream.length} bytes)`);
        // libzfp's default 64-bit words only pad the end further.
        const wide = zfpCompress(typed(type, c.data), c.shape, paramsOf(c), { wordBits: 64 });
        const padded = new Uint8Array(Math.ceil(stream.length / 8) * 8);
        padded.set(stream);
        if (!sameBytes(wide, padded)) failures.push(`${label}: 64-bit-word encode differs`);
        checked++;
      });
      expect(failures.slice(0, 20)).toEqual([]);
      expect(checked).toBe(SHAPES.length * ZFPY_CONFIGS.length * KINDS.length);
      expect(BYTES[type]).toBeGreaterThan(0);
    });
  }
});

/**
 * Expert-mode parameters (zfp documentation, "Compression modes": expert
 * mode; "Header format": the 64-bit mode) against libzfp's own `zfp`
 * command (Debian's `zfp` package, libzfp 1.0.0, 8-bit stream words): it
 * writes full headers for any minbits/maxbits/maxprec/minexp, which zfpy
 * cannot. Both directions, bit for bit.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sameBytes } from "@zarr/test-utils";
import { afterAll, describe, expect, it } from "vitest";
import { expertParams, type ZfpType } from "../src/params.js";
import {
  minimumMaxbits,
  type ZfpData,
  zfpCompress,
  zfpDecompress,
  zfpReadHeader,
} from "../src/stream.js";
import { makeData } from "./cases.js";

const usage = spawnSync("zfp", [], { encoding: "utf8" });
const cli = `${usage.stdout ?? ""}${usage.stderr ?? ""}`.includes("zfp version 1.0") ? "zfp" : null;
if (!cli) console.warn("skipping: no libzfp 1.0 `zfp` command (Debian package zfp)");

const PARAMS: [number, number, number, number][] = [
  [1, 16658, 64, -1074], // the defaults: expert, long header
  [192, 192, 64, -1074], // fixed rate (short header)
  [1, 16658, 22, -1074], // fixed precision
  [1, 16658, 64, -12], // fixed accuracy
  [1, 16658, 64, 900], // fixed accuracy beyond the short form
  [1, 16658, 64, -1075], // reversible
  [1, 16658, 40, -1200], // reversible-range minexp with a precision cap: expert
  [100, 300, 30, -20], // expert: everything bounded
  [600, 900, 64, -1074], // minbits padding
  [3000, 3000, 64, -1074], // fixed rate beyond the short form
];
const SHAPES = [[11], [5, 9], [6, 3, 7], [3, 5, 4, 2]];
const TYPES: ZfpType[] = ["float32", "float64", "int32", "int64"];
const FLAG = { float32: "f32", float64: "f64", int32: "i32", int64: "i64" };

function typed(type: ZfpType, bytes: Uint8Array): ZfpData {
  const b = bytes.slice().buffer;
  if (type === "float32") return new Float32Array(b);
  if (type === "float64") return new Float64Array(b);
  if (type === "int32") return new Int32Array(b);
  return new BigInt64Array(b);
}

describe.skipIf(!cli)("expert mode against libzfp's zfp command", () => {
  const dir = mkdtempSync(join(tmpdir(), "zfp-cli-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(`${PARAMS.length} parameter settings x ${TYPES.length} types x ${SHAPES.length} shapes: same streams, same decoded bits`, () => {
    const failures: string[] = [];
    let compared = 0;
    let i = 0;
    for (const type of TYPES)
      for (const shape of SHAPES)
        for (const [minbits, maxbits, maxprec, minexp] of PARAMS) {
          const params = expertParams(minbits, maxbits, maxprec, minexp)!;
          if (params.maxbits < minimumMaxbits(type, params)) continue;
          const n = shape.reduce((a, b) => a * b, 1);
          const data = makeData(type, n, i % 2 ? "special" : "smooth", ++i);
          const raw = join(dir, "in.raw");
          const z = join(dir, "out.zfp");
          const back = join(dir, "back.raw");
          writeFileSync(raw, data);
          const dims = [...shape].reverse().map(String);
          execFileSync(cli!, [
            "-q",
            "-h",
            "-t",
            FLAG[type],
            `-${shape.length}`,
            ...dims,
            "-c",
            `${minbits}`,
            `${maxbits}`,
            `${maxprec}`,
            `${minexp}`,
            "-i",
            raw,
            "-z",
            z,
          ]);
          execFileSync(cli!, ["-q", "-h", "-z", z, "-o", back]);
          const theirs = new Uint8Array(readFileSync(z));
          const label = `${type} [${shape}] ${minbits} ${maxbits} ${maxprec} ${minexp}`;
          const ours = zfpCompress(typed(type, data), shape, params, { wordBits: 8 });
          if (!sameBytes(ours, theirs))
            failures.push(`${label}: encode differs (${ours.length} vs ${theirs.length})`);
          const decoded = zfpDecompress(theirs, { type, shape });
          const bits = new Uint8Array(decoded.buffer, decoded.byteOffset, decoded.byteLength);
          if (!sameBytes(bits, new Uint8Array(readFileSync(back))))
            failures.push(`${label}: decode differs`);
          expect(zfpReadHeader(theirs).type).toBe(type);
          compared++;
        }
    expect(failures).toEqual([]);
    expect(compared).toBeGreaterThan(140);
  });
});

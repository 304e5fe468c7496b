import { describe, expect, it } from "vitest";
import { BitReader } from "../src/bit-reader.js";
import { encodeStandalone } from "../src/encoder.js";
import { readChunkMeta } from "../src/metadata.js";
import { numberTypeNamed } from "../src/number-types.js";
import { decodeStandalone, readHeader } from "../src/standalone.js";
import { firstDifference } from "./helpers.js";

const AUTO = { level: 8, deltaOrder: "auto" as const, maxChunkN: 262144 };

/** Deterministic pseudo-random integers in [0, m) (xorshift). */
function randoms(n: number, m: number, seed = 12345): number[] {
  let x = seed;
  return Array.from({ length: n }, () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % m;
  });
}

/** Encodes with and without mode search; checks both decode exactly; returns the first chunk's mode and the sizes. */
function encodeBoth(raw: Uint8Array, typeName: string) {
  const type = numberTypeNamed(typeName);
  const n = raw.length / (type.bits / 8);
  const auto = encodeStandalone(raw, type, AUTO);
  const classic = encodeStandalone(raw, type, { ...AUTO, modes: "classic" });
  expect(firstDifference(decodeStandalone(auto, type, n), raw)).toBe(-1);
  expect(firstDifference(decodeStandalone(classic, type, n), raw)).toBe(-1);
  const r = new BitReader(auto);
  const header = readHeader(r);
  r.pos += 32;
  const meta = readChunkMeta(r, header.format, type);
  return {
    mode: meta.mode,
    format: header.format.major,
    auto: auto.length,
    classic: classic.length,
  };
}

describe("encoder mode choice (all decoded by the verified decoder)", () => {
  it("FloatQuant for float64 data that was float32 (k = 29), in format 2", () => {
    const values = Float64Array.from({ length: 5000 }, (_, i) =>
      Math.fround(Math.sin(i / 7) * 100),
    );
    const r = encodeBoth(new Uint8Array(values.buffer), "f64");
    expect(r.mode).toEqual({ kind: "float_quant", k: 29 });
    expect(r.format).toBe(2);
    expect(r.auto).toBeLessThan(r.classic * 0.75);
  });

  it("IntMult for int64 nanosecond timestamps at whole seconds", () => {
    const t0 = 1_700_000_000_000_000_000n;
    const jitter = randoms(5000, 3600);
    const values = BigInt64Array.from(jitter, (j, i) => t0 + BigInt(i * 3600 + j) * 1_000_000_000n);
    const r = encodeBoth(new Uint8Array(values.buffer), "i64");
    expect(r.mode.kind).toBe("int_mult");
    expect(r.auto).toBeLessThan(r.classic);
  });

  it("IntMult for uint32 multiples of 1000", () => {
    const values = Uint32Array.from(randoms(5000, 4001), (r) => r * 1000 + 5);
    const r = encodeBoth(new Uint8Array(values.buffer), "u32");
    expect(r.mode).toMatchObject({ kind: "int_mult", baseLo: 1000 });
    expect(r.auto).toBeLessThan(r.classic * 0.8);
  });

  for (const [typeName, make] of [
    ["f64", (v: number[]) => new Uint8Array(Float64Array.from(v).buffer)],
    ["f32", (v: number[]) => new Uint8Array(Float32Array.from(v).buffer)],
  ] as const) {
    it(`FloatMult for ${typeName} decimals (prices in cents), exact to the bit`, () => {
      const values = Array.from(
        { length: 5000 },
        (_, i) => Math.round(((i * 7919) % 100003) + 50) / 100,
      );
      values[17] = -0;
      values[18] = 1e-300 * (typeName === "f64" ? 1 : 0);
      const r = encodeBoth(make(values), typeName);
      expect(r.mode.kind).toBe("float_mult");
      expect(r.auto).toBeLessThan(r.classic);
    });
  }

  it("no FloatMult when a float is NaN or infinite; the data still round trips", () => {
    const values = Float64Array.from({ length: 3000 }, (_, i) => i / 10);
    values[5] = Number.NaN;
    values[6] = Number.NEGATIVE_INFINITY;
    const r = encodeBoth(new Uint8Array(values.buffer), "f64");
    expect(r.mode.kind).not.toBe("float_mult");
  });

  it("modes found on the first 4096 numbers are checked on the whole chunk", () => {
    // multiples of 8 for the sample, then an odd number: IntMult(8) must not be used blindly
    const values = Int32Array.from({ length: 10000 }, (_, i) => (i < 9000 ? i * 8 : i * 8 + 3));
    const r = encodeBoth(new Uint8Array(values.buffer), "i32");
    expect(r.mode).not.toEqual({ kind: "int_mult", baseLo: 8, baseHi: 0 });
  });
});

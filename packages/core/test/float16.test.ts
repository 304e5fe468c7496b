import {
  float16BitsToFloat32Bits,
  float16BitsToNumber,
  float32BitsToFloat16Bits,
  float64ToFloat16Bits,
  roundToFloat16,
} from "@zarr/core/codec";
import { findPython, pythonSkipReason, runPython } from "@zarr/test-utils";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const python = findPython(["numpy"]);
if (!python) console.warn(pythonSkipReason(["numpy"]));

function f32Bits(x: number): number {
  return new Uint32Array(Float32Array.of(x).buffer)[0];
}

describe("float16 conversions (IEEE 754 binary16, round to nearest even)", () => {
  it.each([
    [0, 0x0000],
    [-0, 0x8000],
    [1, 0x3c00],
    [-2, 0xc000],
    [65504, 0x7bff], // largest finite
    [65519.99, 0x7bff], // rounds down below the halfway point to Infinity
    [65520, 0x7c00], // halfway between 65504 and 2^16: ties to even = Infinity
    [1e6, 0x7c00],
    [-1e6, 0xfc00],
    [2 ** -14, 0x0400], // smallest normal
    [2 ** -24, 0x0001], // smallest subnormal
    [2 ** -25, 0x0000], // halfway to the smallest subnormal: ties to even (0)
    [2 ** -25 * 1.0000001, 0x0001],
    [3 * 2 ** -25, 0x0002], // halfway between 1 and 2 subnormal units: ties to even (2)
    [2 ** -26, 0x0000],
    [-(2 ** -26), 0x8000],
    [1 + 2 ** -11, 0x3c00], // tie: to even
    [1 + 3 * 2 ** -11, 0x3c02], // tie: to even (up)
    [1 + 2 ** -11 + 2 ** -40, 0x3c01], // just above the tie (double-rounding trap via float32)
    [Number.POSITIVE_INFINITY, 0x7c00],
    [Number.NEGATIVE_INFINITY, 0xfc00],
  ])("float64 %d -> 0x%s", (x, bits) => {
    expect(float64ToFloat16Bits(x)).toBe(bits);
  });

  it("float64 NaN -> a NaN", () => {
    const h = float64ToFloat16Bits(Number.NaN);
    expect(h & 0x7c00).toBe(0x7c00);
    expect(h & 0x3ff).not.toBe(0);
  });

  it("keeps NaN payloads: float32 -> float16 -> float32 for every float16 NaN", () => {
    for (let h = 0; h < 0x10000; h++) {
      expect(float32BitsToFloat16Bits(float16BitsToFloat32Bits(h))).toBe(h);
    }
  });

  it("float32 -> float16 with nonzero low payload bits only stays a NaN", () => {
    expect(float32BitsToFloat16Bits(0x7f800001)).toBe(0x7c01);
    expect(float32BitsToFloat16Bits(0xff800001)).toBe(0xfc01);
  });

  it("float64 rounding agrees with float32 rounding on float32 values", () => {
    fc.assert(
      fc.property(fc.float({ noNaN: true }), (x) => {
        expect(float64ToFloat16Bits(x)).toBe(float32BitsToFloat16Bits(f32Bits(x)));
      }),
      { seed: 42, numRuns: 5000 },
    );
  });

  it("roundToFloat16 is idempotent", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), (x) => {
        const r = roundToFloat16(x);
        expect(Object.is(roundToFloat16(r), r)).toBe(true);
      }),
      { seed: 42, numRuns: 2000 },
    );
  });
});

describe.skipIf(!python)("float16 against numpy", () => {
  it("decodes all 65,536 binary16 patterns like numpy (float16 -> float32 bits, -> float64)", () => {
    const out = runPython(
      python!,
      `import sys, numpy as np
h = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
sys.stdout.buffer.write(h.astype(np.float32).view(np.uint32).tobytes())
sys.stdout.buffer.write(h.astype(np.float64).tobytes())`,
    );
    const bits32 = new Uint32Array(out.buffer.slice(out.byteOffset, out.byteOffset + 65536 * 4));
    const f64 = new Float64Array(
      out.buffer.slice(out.byteOffset + 65536 * 4, out.byteOffset + 65536 * 12),
    );
    let mismatches = 0;
    for (let h = 0; h < 65536; h++) {
      if (float16BitsToFloat32Bits(h) !== bits32[h]) mismatches++;
      const v = float16BitsToNumber(h);
      if (!Object.is(v, f64[h]) && !(Number.isNaN(v) && Number.isNaN(f64[h]))) mismatches++;
    }
    expect(mismatches).toBe(0);
  });

  it("encodes float32 values (edge cases + 300,000 seeded random) to numpy's binary16 bits", () => {
    const patterns: number[] = [];
    // Every float32 exponent from the underflow zone to overflow, with mantissas at
    // and around the rounding boundaries of binary16.
    for (let exp = 0x60; exp <= 0x90; exp++) {
      for (const mant of [
        0, 1, 0xfff, 0x1000, 0x1001, 0x2fff, 0x3000, 0x3001, 0x7fe000, 0x7fefff, 0x7ff000, 0x7ff001,
        0x7fffff, 0x400000, 0x401000, 0x7fffff,
      ]) {
        for (const sign of [0, 0x80000000]) patterns.push((sign | (exp << 23) | mant) >>> 0);
      }
    }
    for (const special of [
      0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffbfffff, 0x7fa00000,
    ]) {
      patterns.push(special);
    }
    // Seeded xorshift over all 2^32 patterns.
    let s = 0x12345678;
    for (let i = 0; i < 300_000; i++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      patterns.push(s >>> 0);
    }
    const input = new Uint32Array(patterns);
    const out = runPython(
      python!,
      `import sys, warnings, numpy as np
warnings.simplefilter("ignore")
f = np.frombuffer(sys.stdin.buffer.read(), dtype=np.uint32).view(np.float32)
sys.stdout.buffer.write(f.astype(np.float16).view(np.uint16).tobytes())`,
      new Uint8Array(input.buffer),
    );
    const expected = new Uint16Array(out.buffer.slice(out.byteOffset, out.byteOffset + out.length));
    expect(expected.length).toBe(input.length);
    const bad: string[] = [];
    for (let i = 0; i < input.length; i++) {
      const got = float32BitsToFloat16Bits(input[i]);
      if (got !== expected[i] && bad.length < 10) {
        bad.push(
          `0x${input[i].toString(16)}: got 0x${got.toString(16)}, numpy 0x${expected[i].toString(16)}`,
        );
      }
    }
    expect(bad).toEqual([]);
  });

  it("rounds float64 values directly to binary16 like numpy", () => {
    const values: number[] = [];
    fc.assert(
      fc.property(fc.double({ noNaN: true, min: -70000, max: 70000 }), (x) => {
        values.push(x);
      }),
      { seed: 7, numRuns: 20000 },
    );
    // Values next to binary16 halfway points, where rounding through float32 would go wrong.
    for (let h = 0; h < 0x7c00; h += 37) {
      const a = float16BitsToNumber(h);
      const b = float16BitsToNumber(h + 1);
      const mid = (a + b) / 2;
      values.push(mid, mid + Math.abs(mid) * 2 ** -40, mid - Math.abs(mid) * 2 ** -40);
    }
    const input = new Float64Array(values);
    const out = runPython(
      python!,
      `import sys, warnings, numpy as np
warnings.simplefilter("ignore")
f = np.frombuffer(sys.stdin.buffer.read(), dtype=np.float64)
sys.stdout.buffer.write(f.astype(np.float16).view(np.uint16).tobytes())`,
      new Uint8Array(input.buffer),
    );
    const expected = new Uint16Array(out.buffer.slice(out.byteOffset, out.byteOffset + out.length));
    let mismatches = 0;
    for (let i = 0; i < input.length; i++) {
      if (float64ToFloat16Bits(input[i]) !== expected[i]) mismatches++;
    }
    expect(mismatches).toBe(0);
  });
});

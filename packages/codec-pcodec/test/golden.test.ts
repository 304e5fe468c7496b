import { join } from "node:path";
import { float16BitsToNumber, float64ToFloat16Bits } from "@zarr/core/codec";
import { describe, expect, it } from "vitest";
import { BitReader } from "../src/bit-reader.js";
import { readChunkMeta } from "../src/metadata.js";
import { numberTypeNamed } from "../src/number-types.js";
import { decodePage } from "../src/page.js";
import { decodeStandalone, readHeader } from "../src/standalone.js";
import { FIXTURES, firstDifference, pcoTypeOfDescr, readFixture, readNpy } from "./helpers.js";

// numcodecs' own fixtures (fixture/pcodec in zarr-developers/numcodecs): each
// codec.NN/encoded.MM.dat is real pcodec output for array.MM.npy, written by
// pcodec 0.1 (codec.00-05: format 1, standalone 2), 0.3 (codec.06-09: format 3)
// and 1.x (codec.10: format 4.1, standalone 3).
describe("numcodecs pcodec fixtures (real pco output)", () => {
  for (let c = 0; c <= 10; c++) {
    for (let a = 0; a <= 9; a++) {
      const codec = `codec.${String(c).padStart(2, "0")}`;
      const name = `encoded.${String(a).padStart(2, "0")}.dat`;
      it(`${codec}/${name} decodes to array.${String(a).padStart(2, "0")}.npy`, () => {
        const npy = readNpy(join(FIXTURES, "numcodecs", `array.${String(a).padStart(2, "0")}.npy`));
        const type = numberTypeNamed(pcoTypeOfDescr(npy.descr));
        const encoded = readFixture("numcodecs", codec, name);
        const count = npy.data.length / (type.bits / 8);
        const out = decodeStandalone(encoded, type, count);
        expect(firstDifference(out, npy.data)).toBe(-1);
      });
    }
  }
});

// pcodec's own compatibility assets (pco/assets in pcodec/pcodec), one per
// format addition; the expected numbers are generated here exactly as
// pco/src/tests/compatibility.rs generates them.
const fr = Math.fround;

function pseudorandomF16Bits(): number[] {
  let num = fr(0.1);
  const out: number[] = [];
  for (let i = 0; i < 2000; i++) {
    num = fr(fr(fr(num * fr(77.7)) + fr(0.1)) % 2);
    out.push(float64ToFloat16Bits(num < 1 ? fr(-1 - num) : num));
  }
  return out;
}

function f32Bits(values: number[]): Uint8Array {
  return new Uint8Array(Float32Array.from(values).buffer);
}

function range(a: number, b: number): number[] {
  return Array.from({ length: b - a }, (_, i) => a + i);
}

const ASSETS: [string, string, () => Uint8Array][] = [
  [
    "v0_0_0_classic",
    "i32",
    () => new Uint8Array(Int32Array.from([...range(0, 1000), ...range(2000, 3000)]).buffer),
  ],
  [
    "v0_0_0_delta_float_mult",
    "f32",
    () => {
      const nums = range(0, 2000).map(fr);
      nums[1337] = fr(nums[1337] + fr(1.001));
      return f32Bits(nums);
    },
  ],
  [
    "v0_1_0_delta_int_mult",
    "i32",
    () => {
      const nums = range(0, 2000).map((i) => i * 1000);
      nums[1337] -= 1;
      return new Uint8Array(Int32Array.from(nums).buffer);
    },
  ],
  ["v0_1_1_standalone_versioned", "f32", () => new Uint8Array(0)],
  ["v0_3_0_f16", "f16", () => new Uint8Array(Uint16Array.from(pseudorandomF16Bits()).buffer)],
  [
    "v0_3_0_float_quant",
    "f32",
    () => {
      const bits = new Uint32Array(
        pseudorandomF16Bits().map((h) => {
          const x = float16BitsToNumber(h);
          const b = new Uint32Array(Float32Array.of(x).buffer)[0];
          return Math.abs(x) < 1.1 ? b + 1 : b;
        }),
      );
      return new Uint8Array(bits.buffer);
    },
  ],
  [
    "v0_4_0_lookback_delta",
    "u32",
    () => {
      const base = [
        1121827092, 729032807, 3968137854, 2875434067, 3775328080, 431649926, 1048116090,
        1906978350, 14752788, 1180462487,
      ];
      return new Uint8Array(Uint32Array.from(range(0, 1000).map((i) => base[i % 10])).buffer);
    },
  ],
  ["v0_4_5_uniform_type", "u32", () => new Uint8Array(Uint32Array.of(1, 2, 3, 4, 5).buffer)],
  ["v0_4_8_minor_version", "u32", () => new Uint8Array(Uint32Array.of(1, 2, 3, 4, 5).buffer)],
  [
    "v1_0_0_dict",
    "u64",
    () => {
      const base = [8924659283n, 234897984367n, 9827358920n];
      return new Uint8Array(BigUint64Array.from(range(0, 3000).map((i) => base[i % 3])).buffer);
    },
  ],
  [
    "v1_0_0_conv1",
    "i32",
    () => {
      let xm1 = 0;
      let xm2 = 0;
      const nums: number[] = [];
      for (let i = 0; i < 2000; i++) {
        const x = fr(fr(fr(xm1 * fr(1.99)) - xm2) + fr(((i * 47) % 77) - 38));
        nums.push(Math.trunc(fr(x + 10000)));
        xm2 = xm1;
        xm1 = x;
      }
      return new Uint8Array(Int32Array.from(nums).buffer);
    },
  ],
  ["v1_0_0_u8", "u8", () => Uint8Array.from([...range(0, 65), ...range(192, 256)])],
  [
    "v1_0_0_i8",
    "i8",
    () => new Uint8Array(Int8Array.from([...range(-128, -63), ...range(64, 128)]).buffer),
  ],
];

describe("pcodec compatibility assets (real pco output of every format version)", () => {
  for (const [name, typeName, expected] of ASSETS) {
    it(`${name}.pco decodes to the numbers compatibility.rs wrote`, () => {
      const type = numberTypeNamed(typeName);
      const want = expected();
      const out = decodeStandalone(
        readFixture("pco-assets", `${name}.pco`),
        type,
        want.length / (type.bits / 8),
      );
      expect(firstDifference(out, want)).toBe(-1);
    });
  }

  it("the assets span standalone versions 0..3 and format versions 0..4.1", () => {
    const seen = new Set<string>();
    for (const [name] of ASSETS) {
      const h = readHeader(new BitReader(readFixture("pco-assets", `${name}.pco`)));
      seen.add(`${h.standaloneVersion}/${h.format.major}.${h.format.minor}`);
    }
    expect([...seen].sort()).toEqual(expect.arrayContaining(["0/0.0", "3/4.1"]));
    expect(seen.size).toBeGreaterThanOrEqual(5);
  });
});

describe("what the real fixtures exercise", () => {
  it("every mode and delta encoding of the spec appears in real pco output", () => {
    const seen = new Set<string>();
    const visit = (bytes: Uint8Array, typeName: string, label: string) => {
      const type = numberTypeNamed(typeName);
      const r = new BitReader(bytes);
      const header = readHeader(r);
      for (;;) {
        const byte = r.readAlignedBytes(1, "type")[0];
        if (byte === 0) break;
        const nb = r.readAlignedBytes(3, "n");
        const n = 1 + (nb[0] | (nb[1] << 8) | (nb[2] << 16));
        const meta = readChunkMeta(r, header.format, type);
        const order = meta.delta.kind === "consecutive" ? meta.delta.order : "";
        seen.add(`${typeName} ${meta.mode.kind} ${meta.delta.kind}${order} (${label})`);
        decodePage(r, meta, n);
      }
    };
    for (let c = 0; c <= 10; c++) {
      for (let a = 0; a <= 9; a++) {
        const codec = `codec.${String(c).padStart(2, "0")}`;
        const npy = readNpy(join(FIXTURES, "numcodecs", `array.${String(a).padStart(2, "0")}.npy`));
        visit(
          readFixture("numcodecs", codec, `encoded.${String(a).padStart(2, "0")}.dat`),
          pcoTypeOfDescr(npy.descr),
          "numcodecs",
        );
      }
    }
    for (const [name, typeName] of ASSETS)
      visit(readFixture("pco-assets", `${name}.pco`), typeName, name);
    const all = [...seen].join("\n");
    for (const mode of ["classic", "int_mult", "float_mult", "float_quant", "dict"])
      expect(all).toContain(` ${mode} `);
    for (const delta of ["none", "consecutive1", "consecutive2", "lookback", "conv1"])
      expect(all).toContain(` ${delta} `);
  });
});

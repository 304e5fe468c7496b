import { float16BitsToNumber, float64ToFloat16Bits } from "@zarr/core/codec";
import { describe, expect, it } from "vitest";
import { spreadStateSymbols } from "../src/ans.js";
import { BitWriter } from "../src/bit-writer.js";
import { PcoError } from "../src/errors.js";
import { numberTypeNamed } from "../src/number-types.js";
import { decodeStandalone } from "../src/standalone.js";

// Streams built bit by bit from the format spec (pcodec docs/format.md), to
// check each formula on its own.

interface Bin {
  weight: number;
  lower: bigint;
  offsetBits: number;
}

/** Writes `v` (up to 64 bits) little-endian-bit-packed. */
function put(w: BitWriter, v: bigint | number, bits: number): void {
  const b = BigInt(v);
  w.write64(Number(b & 0xffffffffn), Number((b >> 32n) & 0xffffffffn), bits);
}

function latentVar(w: BitWriter, ansSizeLog: number, bins: Bin[], bits: number): void {
  put(w, ansSizeLog, 4);
  put(w, bins.length, 15);
  for (const b of bins) {
    put(w, b.weight - 1, ansSizeLog);
    put(w, b.lower, bits);
    put(w, b.offsetBits, 32 - Math.clz32(bits));
  }
}

/** A standalone v3 stream (format 4.1) with one chunk of `n` numbers of `typeName`. */
function stream(
  typeName: string,
  n: number,
  meta: (w: BitWriter) => void,
  page: (w: BitWriter) => void,
) {
  const type = numberTypeNamed(typeName);
  const w = new BitWriter();
  w.writeBytes([112, 99, 111, 33, 3, 0]); // "pco!", standalone 3, no uniform type
  put(w, 0, 6); // n_hint_log2 - 1 = 0
  put(w, 0, 1); // n_hint = 0 (unknown)
  w.finishByte();
  w.writeBytes([4, 1, type.byte]);
  put(w, n - 1, 24);
  meta(w);
  w.finishByte();
  page(w);
  w.finishByte();
  w.writeBytes([0]);
  return { bytes: w.bytes(), type };
}

function decodeWords(
  typeName: string,
  n: number,
  meta: (w: BitWriter) => void,
  page: (w: BitWriter) => void,
) {
  const { bytes, type } = stream(typeName, n, meta, page);
  return decodeStandalone(bytes, type, n);
}

describe("format spec definitions", () => {
  it("tANS spread_state_tokens: weights [1, 1, 3, 11] (pco's own spec vector)", () => {
    expect(Array.from(spreadStateSymbols(4, [1, 1, 3, 11]))).toEqual([
      0, 3, 2, 3, 2, 3, 3, 3, 3, 1, 3, 2, 3, 3, 3, 3,
    ]);
    expect(() => spreadStateSymbols(4, [1, 1, 3, 10])).toThrow(PcoError);
  });

  it("the minimal standalone file [pco!, 0, 0] holds no numbers", () => {
    expect(
      decodeStandalone(Uint8Array.of(112, 99, 111, 33, 0, 0), numberTypeNamed("i64"), 0),
    ).toHaveLength(0);
  });

  it("Consecutive: moments [1, 2] and deltas [0, 10, 0] decode to [1, 3, 5, 17, 29]", () => {
    const out = decodeWords(
      "u32",
      5,
      (w) => {
        put(w, 0, 4); // Classic
        put(w, 1, 4); // Consecutive
        put(w, 2, 3); // order 2
        put(w, 0, 1); // secondary not delta encoded
        latentVar(w, 0, [{ weight: 1, lower: 0x80000000n, offsetBits: 4 }], 32);
      },
      (w) => {
        put(w, 1, 32); // moments
        put(w, 2, 32);
        w.finishByte(); // 4 tANS states of 0 bits
        for (const d of [0, 10, 0]) put(w, d, 4); // offsets of the centered deltas
      },
    );
    expect(Array.from(new Uint32Array(out.buffer))).toEqual([1, 3, 5, 17, 29]);
  });

  it("Classic with two tANS bins: i16 from_latent_ordered wraps around MIN", () => {
    // bins: A = [0x8000, +0] weight 1, B = [0x8010, +2 bits] weight 1; table size 2.
    // Spread of [1, 1]: state 0 -> A, state 1 -> B; each state reads 1 bit.
    const out = decodeWords(
      "i16",
      3,
      (w) => {
        put(w, 0, 4);
        put(w, 0, 4); // no delta
        latentVar(
          w,
          1,
          [
            { weight: 1, lower: 0x8000n, offsetBits: 0 },
            { weight: 1, lower: 0x8010n, offsetBits: 2 },
          ],
          16,
        );
      },
      (w) => {
        for (const s of [1, 0, 1, 0]) put(w, s, 1); // initial states of the 4 decoders
        w.finishByte();
        // symbols: i=0 state 1 (B), i=1 state 0 (A), i=2 state 1 (B); each reads 1 bit (ignored)
        put(w, 0, 3);
        put(w, 3, 2); // offset of i=0
        put(w, 1, 2); // offset of i=2
      },
    );
    expect(Array.from(new Int16Array(out.buffer))).toEqual([19, 0, 17]);
  });

  it("IntMult: from_latent_ordered(l0 * mult + l1)", () => {
    const out = decodeWords(
      "u32",
      2,
      (w) => {
        put(w, 1, 4); // IntMult
        put(w, 1000, 32); // base
        put(w, 0, 4);
        latentVar(w, 0, [{ weight: 1, lower: 3n, offsetBits: 3 }], 32); // primary: 3 + {0, 4}
        latentVar(w, 0, [{ weight: 1, lower: 1n, offsetBits: 10 }], 32); // secondary: 1 + {0, 998}
      },
      (w) => {
        w.finishByte();
        put(w, 0, 3);
        put(w, 4, 3);
        put(w, 0, 10);
        put(w, 998, 10);
      },
    );
    expect(Array.from(new Uint32Array(out.buffer))).toEqual([3001, 7999]);
  });

  it("FloatMult: int_float_from_latent(l0) * mult + (l1 + MID) ULPs", () => {
    const base = 0.1;
    const baseLatent = new BigUint64Array(Float64Array.of(base).buffer)[0] ^ (1n << 63n);
    const MID = 1n << 63n;
    // numbers i * 0.1 for i = -2..2, with ULP adjustments [0, +1, 0, -1, 0]
    const mults = [-2, -1, 0, 1, 2];
    const adj = [0n, 1n, 0n, -1n, 0n];
    const out = decodeWords(
      "f64",
      5,
      (w) => {
        put(w, 2, 4);
        put(w, baseLatent, 64);
        put(w, 0, 4);
        latentVar(w, 0, [{ weight: 1, lower: MID - 3n, offsetBits: 3 }], 64);
        latentVar(w, 0, [{ weight: 1, lower: MID - 1n, offsetBits: 2 }], 64);
      },
      (w) => {
        w.finishByte();
        // int_float latents: MID + i for i >= 0, MID - 1 - |i| for i < 0 (MID - 1 is -0.0)
        for (const i of mults)
          put(w, (i >= 0 ? MID + BigInt(i) : MID - 1n - BigInt(-i)) - (MID - 3n), 3);
        for (const a of adj) put(w, a + 1n, 2);
      },
    );
    const bits = new BigUint64Array(out.buffer);
    mults.forEach((i, k) => {
      const want = new BigUint64Array(Float64Array.of(i === 0 ? 0 : i * base).buffer)[0];
      // ULPs are added to the latent (ordered) form: for negatives that moves the other way.
      const latent = want & MID ? ~want & (2n ** 64n - 1n) : want ^ MID;
      const adjusted = (latent + adj[k]) & (2n ** 64n - 1n);
      const back = adjusted & MID ? adjusted ^ MID : ~adjusted & (2n ** 64n - 1n);
      expect(bits[k]).toBe(back);
    });
  });

  it("FloatQuant: from_latent_ordered((l0 << k) + (l0 << k >= MID ? l1 : 2^k - 1 - l1))", () => {
    const k = 13;
    const values = [1.5, -1.5, 3.25];
    const latent = (x: number) => {
      const b = new Uint32Array(Float32Array.of(x).buffer)[0];
      return b & 0x80000000 ? ~b >>> 0 : (b ^ 0x80000000) >>> 0;
    };
    const prim = values.map((v) => latent(v) >>> k);
    const lowest = values.map((v) => latent(v) & (2 ** k - 1));
    const sec = values.map((v, i) => (v >= 0 ? lowest[i] : 2 ** k - 1 - lowest[i]));
    expect(sec).toEqual([0, 0, 0]); // exactly quantized
    const lower = Math.min(...prim);
    const out = decodeWords(
      "f32",
      3,
      (w) => {
        put(w, 3, 4);
        put(w, k, 8);
        put(w, 0, 4);
        latentVar(w, 0, [{ weight: 1, lower: BigInt(lower), offsetBits: 20 }], 32);
        latentVar(w, 0, [{ weight: 1, lower: 0n, offsetBits: 0 }], 32);
      },
      (w) => {
        w.finishByte();
        for (const p of prim) put(w, p - lower, 20);
      },
    );
    expect(Array.from(new Float32Array(out.buffer))).toEqual(values);
  });

  it("Dict: from_latent_ordered(dict[l0]); an index past the dictionary is corrupt", () => {
    const build = (idx: number[]) =>
      decodeWords(
        "u16",
        idx.length,
        (w) => {
          put(w, 4, 4);
          put(w, 3, 25);
          w.finishByte();
          for (const v of [5, 9, 65535]) put(w, v, 16);
          put(w, 0, 4);
          latentVar(w, 0, [{ weight: 1, lower: 0n, offsetBits: 2 }], 32);
        },
        (w) => {
          w.finishByte();
          for (const i of idx) put(w, i, 2);
        },
      );
    expect(Array.from(new Uint16Array(build([2, 0, 1, 1]).buffer))).toEqual([65535, 5, 9, 9]);
    expect(() => build([3])).toThrow(/dictionary index 3/);
  });

  it("Lookback: l[i] += l[i - lookback[i]]; a lookback past the window is corrupt", () => {
    const build = (lookbacks: number[], deltas: number[]) =>
      decodeWords(
        "u32",
        1 + deltas.length,
        (w) => {
          put(w, 0, 4);
          put(w, 2, 4); // Lookback
          put(w, 1, 5); // window_n_log - 1: window 4
          put(w, 0, 4); // state_n_log 0: one state latent
          put(w, 0, 1);
          latentVar(w, 0, [{ weight: 1, lower: 1n, offsetBits: 3 }], 32); // lookbacks 1 + offset
          latentVar(w, 0, [{ weight: 1, lower: 0x80000000n, offsetBits: 8 }], 32); // centered deltas
        },
        (w) => {
          w.finishByte(); // delta latents: no state, 0-bit tANS states
          put(w, 100, 32); // primary state
          w.finishByte();
          for (const lb of lookbacks) put(w, lb - 1, 3);
          for (const d of deltas) put(w, d, 8);
        },
      );
    expect(Array.from(new Uint32Array(build([1, 1, 2, 4], [5, 0, 1, 7]).buffer))).toEqual([
      100, 105, 105, 106, 107,
    ]);
    expect(() => build([5], [0])).toThrow(/outside the window/);
  });

  it("Conv1: l[i] += (bias + sum(w[j] * l[i - order + j])) >> quantization", () => {
    // order 2, weights [-1, 2] (linear extrapolation), quantization 0, bias 0
    const out = decodeWords(
      "i32",
      5,
      (w) => {
        put(w, 0, 4);
        put(w, 3, 4); // Conv1
        put(w, 0, 5); // quantization
        put(w, 1n << 63n, 64); // bias 0 (ordered)
        put(w, 1, 5); // order - 1
        put(w, (-1 + 2 ** 31) >>> 0, 32);
        put(w, 2 + 2 ** 31, 32);
        latentVar(w, 0, [{ weight: 1, lower: 0x80000000n, offsetBits: 2 }], 32); // residuals 0..3
      },
      (w) => {
        put(w, 0x80000000 + 10, 32); // state: latents of 10, 20
        put(w, 0x80000000 + 20, 32);
        w.finishByte();
        for (const r of [0, 1, 2]) put(w, r, 2);
      },
    );
    // predictions on latents: 2*20-10 = 30 (+0), 2*30-20 = 40 (+1) -> 41, 2*41-30 = 52 (+2) -> 54
    expect(Array.from(new Int32Array(out.buffer))).toEqual([10, 20, 30, 41, 54]);
  });
});

describe("format spec definitions on the widths real fixtures do not cover", () => {
  const M64 = 2n ** 64n - 1n;
  const u64s = (out: Uint8Array) => Array.from(new BigUint64Array(out.buffer));

  it("IntMult on i64: l0 * mult + l1 wraps modulo 2^64 before from_latent_ordered", () => {
    const base = (1n << 40n) + 3n;
    const l0 = [(1n << 30n) + 5n, (1n << 33n) + 1n];
    const l1 = [7n, base - 1n];
    const out = decodeWords(
      "i64",
      2,
      (w) => {
        put(w, 1, 4);
        put(w, base, 64);
        put(w, 0, 4);
        latentVar(w, 0, [{ weight: 1, lower: 0n, offsetBits: 64 }], 64);
        latentVar(w, 0, [{ weight: 1, lower: 0n, offsetBits: 64 }], 64);
      },
      (w) => {
        w.finishByte();
        for (const v of l0) put(w, v, 64);
        for (const v of l1) put(w, v, 64);
      },
    );
    const want = l0.map((a, i) => ((a * base + l1[i]) & M64) ^ (1n << 63n));
    expect(u64s(out)).toEqual(want);
  });

  it("FloatQuant on f64 with k = 40 (past the low word)", () => {
    const k = 40n;
    const values = [1.5, -2.75, 1e300];
    const latent = (x: number) => {
      const b = new BigUint64Array(Float64Array.of(x).buffer)[0];
      return b & (1n << 63n) ? ~b & M64 : b ^ (1n << 63n);
    };
    // secondary: an adjustment of +3 (positive) / -3 (negative) units of the last place
    const prim = values.map((v) => latent(v) >> k);
    const sec = [3n, 3n, 0n];
    const out = decodeWords(
      "f64",
      3,
      (w) => {
        put(w, 3, 4);
        put(w, k, 8);
        put(w, 0, 4);
        latentVar(w, 0, [{ weight: 1, lower: 0n, offsetBits: 24 }], 64);
        latentVar(w, 0, [{ weight: 1, lower: 0n, offsetBits: 2 }], 64);
      },
      (w) => {
        w.finishByte();
        for (const p of prim) put(w, p, 24);
        for (const s of sec) put(w, s, 2);
      },
    );
    const got = new Float64Array(out.buffer);
    const ulp = (x: number, n: number) => {
      const b = new BigUint64Array(Float64Array.of(x).buffer);
      b[0] += BigInt(n);
      return new Float64Array(b.buffer)[0];
    };
    // positive: low latent bits = m; negative: 2^k - 1 - m, so m counts units of the last
    // place away from the quantum in both cases (in magnitude)
    expect(got[0]).toBe(ulp(1.5, 3));
    expect(got[1]).toBe(ulp(-2.75, 3));
    const quantum = new BigUint64Array(Float64Array.of(1e300).buffer);
    quantum[0] &= ~((1n << k) - 1n);
    expect(got[2]).toBe(new Float64Array(quantum.buffer)[0]);
  });

  it("FloatMult on f16: the product is rounded to half precision once", () => {
    const baseBits = float64ToFloat16Bits(0.1);
    const base = float16BitsToNumber(baseBits);
    const baseLatent = (baseBits ^ 0x8000) >>> 0; // positive: toggle the sign bit
    const mults = [-3, 0, 1, 7, 2047];
    const MID = 0x8000;
    const out = decodeWords(
      "f16",
      mults.length,
      (w) => {
        put(w, 2, 4);
        put(w, baseLatent, 16);
        put(w, 0, 4);
        latentVar(w, 0, [{ weight: 1, lower: 0n, offsetBits: 16 }], 16);
        latentVar(w, 0, [{ weight: 1, lower: BigInt(MID), offsetBits: 0 }], 16);
      },
      (w) => {
        w.finishByte();
        for (const i of mults) put(w, i >= 0 ? MID + i : MID - 1 - -i, 16);
      },
    );
    expect(Array.from(new Uint16Array(out.buffer))).toEqual(
      mults.map((i) => float64ToFloat16Bits(i * base)),
    );
  });
});

describe("delta-encoded secondary latents and framing details", () => {
  it("Lookback with secondary_uses_delta: both latent variables use the same lookbacks", () => {
    // IntMult base 10 on u32: number = 10 * primary + secondary, both lookback-decoded.
    const out = decodeWords(
      "u32",
      4,
      (w) => {
        put(w, 1, 4);
        put(w, 10, 32);
        put(w, 2, 4); // Lookback
        put(w, 1, 5); // window 4
        put(w, 0, 4); // state 1
        put(w, 1, 1); // secondary uses delta
        latentVar(w, 0, [{ weight: 1, lower: 1n, offsetBits: 2 }], 32); // lookbacks
        latentVar(w, 0, [{ weight: 1, lower: 0x80000000n, offsetBits: 4 }], 32); // primary deltas
        latentVar(w, 0, [{ weight: 1, lower: 0x80000000n, offsetBits: 4 }], 32); // secondary deltas
      },
      (w) => {
        w.finishByte(); // lookback latents: no state, 0-bit tANS states
        put(w, 7, 32); // primary state
        put(w, 3, 32); // secondary state
        w.finishByte();
        for (const lb of [1, 2, 1]) put(w, lb - 1, 2);
        for (const d of [1, 0, 2]) put(w, d, 4); // primary: 7, 8, 7 + 0, 7 + 2
        for (const d of [2, 1, 0]) put(w, d, 4); // secondary: 3, 5, 3 + 1, 4 + 0
      },
    );
    expect(Array.from(new Uint32Array(out.buffer))).toEqual([73, 85, 74, 94]);
  });

  it("bytes after the termination byte are ignored, as pco does; a missing termination is truncation", () => {
    const { bytes, type } = stream(
      "u16",
      1,
      (w) => {
        put(w, 0, 4);
        put(w, 0, 4);
        latentVar(w, 0, [{ weight: 1, lower: 513n, offsetBits: 0 }], 16);
      },
      (w) => w.finishByte(),
    );
    expect(Array.from(new Uint16Array(decodeStandalone(bytes, type, 1).buffer))).toEqual([513]);
    const padded = Uint8Array.from([...bytes, 9, 9, 9]);
    expect(Array.from(new Uint16Array(decodeStandalone(padded, type, 1).buffer))).toEqual([513]);
    expect(() => decodeStandalone(bytes.subarray(0, bytes.length - 1), type, 1)).toThrow(PcoError);
  });
});

import { CodecError } from "@zarr/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PcodecCodec } from "../src/codec.js";
import { NUMBER_TYPES } from "../src/number-types.js";
import { readFixture } from "./helpers.js";

// The decoder on random or mutated input returns exactly the expected number
// of bytes or throws CodecError: never another error, never a hang, and never
// more memory than the expected output plus per-chunk tables.
const RUNS = 3000;
const TYPES = NUMBER_TYPES.filter((t) => t.bits > 8);
const codecs = new Map(
  TYPES.map((t) => [
    t.name,
    new PcodecCodec({
      dataType: {
        u16: "uint16",
        u32: "uint32",
        u64: "uint64",
        i16: "int16",
        i32: "int32",
        i64: "int64",
        f16: "float16",
        f32: "float32",
        f64: "float64",
      }[t.name]!,
    }),
  ]),
);

function check(codec: PcodecCodec, input: Uint8Array, size: number): void {
  try {
    const out = codec.decode(input, size);
    expect(out.length).toBe(size);
  } catch (e) {
    if (!(e instanceof CodecError)) throw e;
  }
}

// Real pco streams of every mode and delta encoding, to mutate.
const SEEDS: [string, string, number][] = [
  ["numcodecs/codec.00/encoded.04.dat", "f32", 4000], // FloatMult, consecutive
  ["numcodecs/codec.07/encoded.06.dat", "f64", 8000], // lookback
  ["numcodecs/codec.06/encoded.08.dat", "u64", 8000],
  ["numcodecs/codec.10/encoded.09.dat", "i64", 8000],
  ["numcodecs/codec.02/encoded.02.dat", "i32", 4000],
];
const ASSET_SEEDS: [string, string, number][] = [
  ["pco-assets/v1_0_0_dict.pco", "u64", 24000],
  ["pco-assets/v1_0_0_conv1.pco", "i32", 8000],
  ["pco-assets/v0_3_0_f16.pco", "f16", 4000],
  ["pco-assets/v0_3_0_float_quant.pco", "f32", 8000],
  ["pco-assets/v0_1_0_delta_int_mult.pco", "i32", 8000],
  ["pco-assets/v0_4_0_lookback_delta.pco", "u32", 4000],
];

describe("fuzz pcodec decoder", () => {
  it("mutated and truncated real streams decode to the expected size or fail with CodecError", () => {
    const seeds = [...SEEDS, ...ASSET_SEEDS].map(
      ([f, t, size]) => [readFixture(...f.split("/")), t, size] as const,
    );
    fc.assert(
      fc.property(
        fc.nat(seeds.length - 1),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.nat(),
        fc.boolean(),
        (which, flips, cut, truncate) => {
          const [bytes, type, size] = seeds[which];
          const enc = bytes.slice();
          for (const [pos, xor] of flips) enc[pos % enc.length] ^= xor;
          check(codecs.get(type)!, truncate ? enc.subarray(0, cut % enc.length) : enc, size);
        },
      ),
      { seed: 7, numRuns: RUNS },
    );
  });

  it("random bytes behind a valid header fail with CodecError or decode exactly", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 400 }),
        fc.constantFrom(...TYPES.map((t) => t.name)),
        fc.nat(300),
        fc.constantFrom([3, 0, 0x09, 0xfa, 4, 1], [2, 0x09, 0xfa, 1], [3, 0, 0x00, 3]),
        (tail, type, n, header) => {
          const t = TYPES.find((x) => x.name === type)!;
          const input = Uint8Array.from([112, 99, 111, 33, ...header, t.byte, ...tail]);
          check(codecs.get(type)!, input, n * (t.bits / 8));
        },
      ),
      { seed: 11, numRuns: RUNS },
    );
  });

  it("a chunk declaring 2^24 numbers against a small expected size fails before allocating", () => {
    const input = Uint8Array.from([112, 99, 111, 33, 3, 0, 0, 4, 1, 5, 0xff, 0xff, 0xff, 0, 0, 0]);
    const before = process.memoryUsage().arrayBuffers;
    expect(() => codecs.get("f32")!.decode(input, 400)).toThrow(/more than the expected 100/);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1 << 20);
  });

  it("round trips of arbitrary numbers of every type are exact", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TYPES.map((t) => t.name)),
        fc.uint8Array({ maxLength: 4000 }),
        fc.integer({ min: 0, max: 12 }),
        async (type, raw, level) => {
          const t = TYPES.find((x) => x.name === type)!;
          const data = raw.subarray(0, raw.length - (raw.length % (t.bits / 8)));
          const codec = new PcodecCodec({ dataType: codecs.get(type)!.dataType, level });
          const back = codec.decode(codec.encode(data), data.length);
          expect(Buffer.from(back).equals(Buffer.from(data))).toBe(true);
        },
      ),
      { seed: 13, numRuns: 500 },
    );
  });
});

describe("work bounds", () => {
  it("many tiny chunks with 2^14-state tANS tables fail fast instead of costing 2^14 work each", () => {
    // One chunk: u32, n = 1, Classic, no delta (format 1: 3 bits), 2 bins of weight 2^13 each (size log 14).
    const chunk: number[] = [1, 0, 0, 0];
    const bits: [number, number][] = [
      [0, 4],
      [0, 3],
      [14, 4],
      [2, 15],
      [8191, 14],
      [0, 32],
      [0, 6],
      [8191, 14],
      [1, 32],
      [0, 6],
    ];
    let acc = 0n;
    let len = 0n;
    for (const [v, n] of bits) {
      acc |= BigInt(v) << len;
      len += BigInt(n);
    }
    const metaBytes = Math.ceil(Number(len) / 8);
    for (let i = 0; i < metaBytes; i++) chunk.push(Number((acc >> BigInt(8 * i)) & 0xffn));
    // page: 4 states of 14 bits (7 bytes), then one tANS symbol of 1 bit and no offset bits (1 byte)
    chunk.push(0, 0, 0, 0, 0, 0, 0, 0);
    const streamOf = (count: number) => {
      const stream = [112, 99, 111, 33, 2, 0, 1];
      for (let i = 0; i < count; i++) stream.push(...chunk);
      stream.push(0);
      return Uint8Array.from(stream);
    };
    const codec = codecs.get("u32")!;
    // valid: a few such chunks decode (to 0, the lower bound of the bin at state 0)
    expect(Array.from(codec.decode(streamOf(10), 40))).toEqual(new Array(40).fill(0));
    const count = 100_000;
    const start = performance.now();
    expect(() => codec.decode(streamOf(count), count * 4)).toThrow(/tANS tables are far larger/);
    expect(performance.now() - start).toBeLessThan(5000);
  });
});

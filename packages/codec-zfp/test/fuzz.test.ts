/**
 * Fuzz: the zfp decoders given mutated, truncated or random streams either
 * return exactly the chunk's size or throw a CodecError — never another
 * error, a hang or memory beyond the chunk (all parameters the header can
 * hold bound each block's work).
 */
import { createZfpFactories } from "@zarr/codec-zfp";
import { CodecError, type JsonObject } from "@zarr/core";
import { type ArrayToBytesCodec, type BytesToBytesCodec, codecTestContext } from "@zarr/core/codec";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeData } from "./cases.js";

const RUNS = 3000;
const factories = createZfpFactories({ wordBits: 8 });
const TYPES = ["float32", "float64", "int32", "int64"] as const;
const SHAPES = [[13], [5, 6], [3, 4, 5], [2, 3, 5, 4]];
const ZFPY: JsonObject[] = [
  { mode: 4, tolerance: -1 },
  { mode: 4, tolerance: 0.01 },
  { mode: 2, rate: 12 },
  { mode: 3, precision: 9 },
];
const ZFP: JsonObject[] = [
  { mode: "reversible" },
  { mode: "fixed_rate", rate: 3 },
  { mode: "fixed_precision", precision: 20 },
  { mode: "expert", minbits: 0, maxbits: 300, maxprec: 40, minexp: -30 },
];

async function zfpyCodec(type: string, shape: number[], config: JsonObject) {
  return (await factories.zfpy.fromConfig(
    config,
    codecTestContext(shape, type, { format: 2 }),
  )) as BytesToBytesCodec;
}

async function expectSizeOrCodecError(run: () => Promise<number>, size: number) {
  try {
    expect(await run()).toBe(size);
  } catch (e) {
    if (!(e instanceof CodecError)) throw e;
  }
}

const mutation = fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), {
  minLength: 1,
  maxLength: 4,
});

describe("fuzz zfp decoders", () => {
  it("zfpy: mutated and truncated streams decode to the chunk size or fail with CodecError", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TYPES),
        fc.constantFrom(...SHAPES),
        fc.constantFrom(...ZFPY),
        mutation,
        fc.nat(),
        fc.boolean(),
        async (type, shape, config, flips, cut, truncate) => {
          const n = shape.reduce((a, b) => a * b, 1);
          const codec = await zfpyCodec(type, shape, config);
          const data = makeData(type, n, "special", n);
          const enc = (await codec.encode(data)).slice();
          for (const [pos, xor] of flips) enc[pos % enc.length]! ^= xor;
          const input = truncate ? enc.subarray(0, cut % enc.length) : enc;
          await expectSizeOrCodecError(
            async () => (await codec.decode(input, data.length)).length,
            data.length,
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("zfpy: random bytes behind a valid header (any mode the header can hold) decode or fail with CodecError", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TYPES),
        fc.constantFrom(...SHAPES),
        fc.uint8Array({ minLength: 0, maxLength: 3000 }),
        fc.integer({ min: 0, max: 4095 }),
        fc.uint8Array({ minLength: 7, maxLength: 7 }),
        async (type, shape, tail, mode, long) => {
          const n = shape.reduce((a, b) => a * b, 1);
          const codec = await zfpyCodec(type, shape, {});
          // Our header for this chunk, with its 12-bit mode field replaced by `mode`
          // (4095: a random 64-bit expert mode follows).
          const header = (
            await codec.encode(new Uint8Array(n * (type.endsWith("32") ? 4 : 8)))
          ).slice(0, 20);
          // Bits 84..95 hold the short mode: bytes 10 (high nibble) and 11.
          header[10] = (header[10]! & 0x0f) | ((mode & 0xf) << 4);
          header[11] = mode >>> 4;
          const input = new Uint8Array(12 + (mode === 4095 ? 7 : 0) + tail.length);
          input.set(header.subarray(0, 12));
          if (mode === 4095) input.set(long, 12);
          input.set(tail, input.length - tail.length);
          const size = n * (type.endsWith("32") ? 4 : 8);
          await expectSizeOrCodecError(async () => (await codec.decode(input, size)).length, size);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("zfp (headerless): random and mutated streams decode to the chunk or fail with CodecError", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TYPES),
        fc.constantFrom(...SHAPES),
        fc.constantFrom(...ZFP),
        fc.oneof(fc.uint8Array({ maxLength: 4000 }), fc.constant(undefined)),
        mutation,
        async (type, shape, config, random, flips) => {
          const ctx = codecTestContext(shape, type);
          const codec = (await factories.zfp.fromConfig(config, ctx)) as ArrayToBytesCodec;
          const n = shape.reduce((a, b) => a * b, 1);
          let input = random;
          if (!input) {
            const data = ctx.spec.dataType.fromBytes!(makeData(type, n, "smooth", 3), n, true);
            input = (
              await codec.encode({ data, shape, stride: [], dataType: ctx.spec.dataType }, ctx.spec)
            ).slice();
            for (const [pos, xor] of flips) input[pos % input.length]! ^= xor;
          }
          await expectSizeOrCodecError(
            async () => (await codec.decode(input, ctx.spec)).data.length,
            n,
          );
        },
      ),
      { numRuns: RUNS },
    );
  });
});

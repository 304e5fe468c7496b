// Seeded fuzzing of the lz4 decoder: valid chunks with bytes flipped, set or
// cut, and random bytes behind a size header. The decoder returns exactly the
// expected size (the size header is checked against it) or throws a
// CodecError; never another error, never more than the bound.
import { CodecError } from "@zarr/core";
import type { BytesToBytesCodec, CodecContext } from "@zarr/core/codec";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lz4Codec } from "../src/index.js";

const RUNS = 10_000;
const codec = lz4Codec.fromConfig({}, {
  path: "f",
  format: 2,
} as unknown as CodecContext) as BytesToBytesCodec;

const payload = fc.oneof(
  fc.uint8Array({ maxLength: 400 }),
  fc.array(fc.constantFrom(0, 1, 2, 255), { maxLength: 800 }).map((a) => Uint8Array.from(a)),
  fc.string({ maxLength: 100 }).map((s) => new TextEncoder().encode(s.repeat(5))),
);

function check(input: Uint8Array, size: number | undefined, bound: number): void {
  try {
    const out = codec.decode(input, size, { maxDecodedSize: bound }) as Uint8Array;
    if (size !== undefined) expect(out.length).toBe(size);
    expect(out.length).toBeLessThanOrEqual(bound);
  } catch (e) {
    if (!(e instanceof CodecError)) throw e;
    expect(e.message.startsWith("f: ") || e.message.includes("lz4")).toBe(true);
  }
}

describe("lz4 decoder fuzzing (fast-check, seed 42)", () => {
  it(`${RUNS} mutated and truncated chunks`, () => {
    fc.assert(
      fc.property(
        payload,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.option(fc.nat()),
        fc.boolean(),
        (data, sets, cut, exact) => {
          let enc = (codec.encode(data) as Uint8Array).slice();
          for (const [at, value] of sets) enc[at % enc.length] = value;
          if (cut !== null) enc = enc.subarray(0, cut % (enc.length + 1));
          check(enc, exact ? data.length : undefined, Math.max(data.length, 1) * 4);
        },
      ),
      { seed: 42, numRuns: RUNS },
    );
  });

  it(`${RUNS} random blocks behind a size header`, () => {
    fc.assert(
      fc.property(fc.nat(1 << 16), fc.uint8Array({ maxLength: 600 }), (size, block) => {
        const input = new Uint8Array(4 + block.length);
        new DataView(input.buffer).setUint32(0, size, true);
        input.set(block, 4);
        check(input, undefined, 1 << 16);
        check(input, size, 1 << 16);
      }),
      { seed: 42, numRuns: RUNS },
    );
  });
});

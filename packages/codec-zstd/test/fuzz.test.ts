import { ZstdCodec } from "@zarr/codec-zstd";
import { CodecError } from "@zarr/core";
import { sameBytes } from "@zarr/test-utils";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { type FrameInfo, scanFrames } from "../src/frame.js";
import { cat, rawFrame, skippableFrame, stripContentSize } from "./helpers.js";

// The decoder must return the original bytes (for checksummed frames) or at
// most `max` bytes (otherwise), or throw a CodecError: never another error or a hang.
const RUNS = 10_000;
const codec = new ZstdCodec({ level: 3, checksum: true });

async function check(input: Uint8Array, original: Uint8Array | undefined, max: number | undefined) {
  try {
    const out = await codec.decode(input, max);
    if (max !== undefined) expect(out.length).toBeLessThanOrEqual(max);
    if (original) expect(sameBytes(out, original)).toBe(true);
  } catch (e) {
    if (!(e instanceof CodecError)) throw e;
  }
}

function frameCount(input: Uint8Array): FrameInfo[] | undefined {
  try {
    return scanFrames(input);
  } catch {
    return undefined;
  }
}

const payload = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc.array(fc.constantFrom(0, 1, 2, 255), { maxLength: 600 }).map((a) => new Uint8Array(a)),
  fc.string({ maxLength: 200 }).map((s) => new TextEncoder().encode(s.repeat(3))),
);
const mutation = fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), {
  minLength: 1,
  maxLength: 3,
});

describe("fuzz zstd decoder", () => {
  beforeAll(() => codec.encode(new Uint8Array(1)));

  it("mutated and truncated checksummed streams decode to the original or fail with CodecError", async () => {
    await fc.assert(
      fc.asyncProperty(
        payload,
        mutation,
        fc.nat(),
        fc.boolean(),
        fc.constantFrom("plain", "no-size", "two-frames"),
        async (data, flips, cut, truncate, shape) => {
          let enc = await codec.encode(data);
          if (shape === "no-size") enc = stripContentSize(enc);
          if (shape === "two-frames") enc = cat(skippableFrame(new Uint8Array([1])), enc, enc);
          const expected = shape === "two-frames" ? cat(data, data) : data;
          enc = enc.slice();
          for (const [pos, xor] of flips) enc[pos % enc.length]! ^= xor;
          const input = truncate ? enc.subarray(0, cut % enc.length) : enc;
          // While every frame still carries its checksum and none was lost or
          // merged, any decoded output must be the original; otherwise (checksum
          // flag or skippable size mutated) only the bound and the error type hold.
          const frames = frameCount(input);
          const covered =
            frames?.every((f) => f.hasChecksum) &&
            frames.length === (shape === "two-frames" ? 2 : 1);
          await check(input, covered ? expected : undefined, expected.length);
        },
      ),
      { seed: 42, numRuns: RUNS / 2 },
    );
  });

  it("random bytes behind a zstd magic fail with CodecError or stay under the bound", async () => {
    const magic = [0x28, 0xb5, 0x2f, 0xfd];
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), fc.boolean(), async (tail, withMagic) => {
        await check(withMagic ? new Uint8Array([...magic, ...tail]) : tail, undefined, 4096);
      }),
      { seed: 42, numRuns: RUNS / 2 },
    );
  });

  it("unmutated streams of every shape decode exactly", async () => {
    await fc.assert(
      fc.asyncProperty(payload, async (data) => {
        const enc = await codec.encode(data);
        for (const input of [enc, stripContentSize(enc), rawFrame(data, 64)]) {
          expect(sameBytes(await codec.decode(input, data.length), data)).toBe(true);
        }
      }),
      { seed: 42, numRuns: 500 },
    );
  });
});

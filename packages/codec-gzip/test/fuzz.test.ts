import { DeflateCodec, type DeflateEngine, type DeflateFormat } from "@zarr/codec-gzip";
import { CodecError } from "@zarr/core";
import { sameBytes } from "@zarr/test-utils";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { engine as browserEngine } from "../src/engine/browser.js";
import { engine as nodeEngine } from "../src/engine/node.js";

// Each decoder must return the original bytes (gzip's CRC-32 and zlib's
// Adler-32 catch mutations) or throw a CodecError; never another error, a
// larger output than allowed, or a hang.
const RUNS = 10_000;

async function check(codec: DeflateCodec, input: Uint8Array, original?: Uint8Array, max?: number) {
  try {
    const out = await codec.decode(input, max);
    if (max !== undefined) expect(out.length).toBeLessThanOrEqual(max);
    if (original) expect(sameBytes(out, original)).toBe(true);
  } catch (e) {
    if (!(e instanceof CodecError)) throw e;
  }
}

const payload = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc.array(fc.constantFrom(0, 1, 2, 255), { maxLength: 400 }).map((a) => new Uint8Array(a)),
);
const mutation = fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), {
  minLength: 1,
  maxLength: 3,
});

describe.each([nodeEngine, browserEngine] as DeflateEngine[])("fuzz engine $name", (engine) => {
  for (const format of ["gzip", "zlib"] as DeflateFormat[]) {
    const codec = new DeflateCodec(format, { level: 1, engine });

    it(`${format}: mutated and truncated valid streams decode to the original or fail with CodecError`, async () => {
      await fc.assert(
        fc.asyncProperty(
          payload,
          mutation,
          fc.nat(),
          fc.boolean(),
          async (data, flips, cut, truncate) => {
            const enc = (await codec.encode(data)).slice();
            for (const [pos, xor] of flips) enc[pos % enc.length]! ^= xor;
            const input = truncate ? enc.subarray(0, cut % enc.length) : enc;
            await check(codec, input, data, data.length);
          },
        ),
        { seed: 42, numRuns: RUNS / 2 },
      );
    });

    it(`${format}: random bytes fail with CodecError or stay under the bound`, async () => {
      const header = format === "gzip" ? [0x1f, 0x8b, 8, 0] : [0x78, 0x9c];
      await fc.assert(
        fc.asyncProperty(
          fc.uint8Array({ maxLength: 200 }),
          fc.boolean(),
          async (tail, withHeader) => {
            const input = withHeader ? new Uint8Array([...header, ...tail]) : tail;
            await check(codec, input, undefined, 1000);
          },
        ),
        { seed: 42, numRuns: RUNS / 2 },
      );
    });
  }
});

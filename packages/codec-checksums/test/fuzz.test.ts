// The decoders on random, mutated and truncated input: either exactly the
// payload that was encoded, or a CodecError; never other data, another error
// or an allocation (decode returns a view of its input).
import { ChecksumCodec, type ChecksumId } from "@zarr/codec-checksums";
import { CodecError } from "@zarr/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const IDS: ChecksumId[] = ["adler32", "crc32", "crc32c", "fletcher32", "jenkins_lookup3"];
const RUNS = 3000;

function codecs(): ChecksumCodec[] {
  return [
    ...IDS.map((id) => new ChecksumCodec(id)),
    new ChecksumCodec("crc32", { location: "end" }),
    new ChecksumCodec("crc32c", { location: "start" }),
    new ChecksumCodec("jenkins_lookup3", { initval: 77, prefix: Uint8Array.of(1, 2, 3) }),
  ];
}

describe("fuzz checksum decoders", () => {
  for (const codec of codecs()) {
    const label = `${codec.id} (${codec.location}${codec.prefix ? ", prefix" : ""})`;

    it(`${label}: mutated or truncated encodings decode to the original or throw CodecError`, () => {
      fc.assert(
        fc.property(
          fc.uint8Array({ maxLength: 2000 }),
          fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { maxLength: 3 }),
          fc.option(fc.nat()),
          fc.option(fc.nat({ max: 2100 })),
          (data, flips, cut, expectedSize) => {
            let enc = codec.encode(data);
            for (const [pos, xor] of flips) enc[pos % enc.length] ^= xor;
            if (cut !== null) enc = enc.subarray(0, cut % (enc.length + 1));
            try {
              const out = codec.decode(enc, expectedSize ?? undefined);
              expect(out.buffer).toBe(enc.buffer);
              if (expectedSize !== null) expect(out.length).toBe(expectedSize);
              expect(out.length).toBe(enc.length - 4);
              // Anything accepted is a consistent encoding of what it returns.
              expect(codec.encode(out)).toEqual(enc);
              if (flips.length === 0 && cut === null) expect(out).toEqual(data);
            } catch (e) {
              if (!(e instanceof CodecError)) throw e;
            }
          },
        ),
        { numRuns: RUNS },
      );
    });

    it(`${label}: random bytes are accepted only when their checksum matches`, () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
          let accepted: Uint8Array | undefined;
          try {
            accepted = codec.decode(bytes);
          } catch (e) {
            if (!(e instanceof CodecError)) throw e;
          }
          if (accepted) expect(codec.encode(accepted)).toEqual(bytes);
        }),
        { numRuns: RUNS },
      );
    });
  }
});

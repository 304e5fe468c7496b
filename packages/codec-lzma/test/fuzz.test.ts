// Seeded fuzzing of the lzma decoders (10,000 cases each format): random
// bytes behind a valid header, and valid streams with bytes flipped, set,
// inserted, deleted or cut. A decoder returns the original data (formats with
// checksums) or bytes within the limit (.lzma/raw, which carry none), or throws
// a CodecError; never another error, never more than the limit, never slowly.
import { CodecError } from "@zarr/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lzmaCompress } from "../src/lzma-encode.js";
import { lzmaDecompress, type RawChain } from "../src/lzma-formats.js";
import { CHECK_CRC32, CHECK_CRC64 } from "../src/xz.js";

const RUNS = 10_000;
const RANDOM_LIMIT = 1 << 16;

/** Small inputs with structure (runs, repeats) and without. */
const INPUTS: Uint8Array[] = [
  new Uint8Array(0),
  Uint8Array.of(5),
  new TextEncoder().encode("abracadabra ".repeat(40)),
  Uint8Array.from({ length: 700 }, (_, i) => (i % 90 < 30 ? 0 : (i * 31) & 0xff)),
  Uint8Array.from({ length: 1500 }, (_, i) => (Math.imul(i, 2654435761) >>> 24) & 0xff),
  Uint8Array.from({ length: 1200 }, (_, i) => Math.floor(i / 5) & 0xff),
];

interface Target {
  encode(d: Uint8Array): Uint8Array;
  decode(b: Uint8Array, limit: number): Uint8Array;
  /** Whether the format carries a checksum of the data. */
  checked: boolean;
}

const lzma = (format: number, check: number, chain?: RawChain): Target => ({
  encode: (d) => lzmaCompress(d, { format, check, preset: 6, chain }, "f"),
  decode: (b, limit) => lzmaDecompress(b, format, chain, limit, "f"),
  checked: format === 1,
});

const TARGETS: Record<string, Target> = {
  "xz (crc64)": lzma(1, CHECK_CRC64),
  "xz (crc32, delta)": lzma(1, CHECK_CRC32, {
    deltas: [3],
    last: { id: "lzma2", dictSize: 1 << 16 },
  }),
  ".lzma": lzma(2, -1),
  "raw lzma2": lzma(3, -1, { deltas: [], last: { id: "lzma2", dictSize: 1 << 16 } }),
  "raw lzma1": lzma(3, -1, {
    deltas: [],
    last: { id: "lzma1", props: { lc: 3, lp: 0, pb: 2 }, dictSize: 1 << 16 },
  }),
};

type Edit = { op: "flip" | "set" | "insert" | "delete" | "cut"; at: number; value: number };

function mutate(stream: Uint8Array, edits: Edit[]): Uint8Array {
  let b = Array.from(stream);
  for (const { op, at, value } of edits) {
    const i = b.length === 0 ? 0 : at % b.length;
    if (op === "flip") b[i] ^= 1 << (value & 7);
    else if (op === "set") b[i] = value;
    else if (op === "insert") b.splice(i, 0, value);
    else if (op === "delete") b.splice(i, 1);
    else b = b.slice(0, i);
  }
  return Uint8Array.from(b);
}

const edit = fc.record({
  op: fc.constantFrom<Edit["op"]>("flip", "set", "insert", "delete", "cut"),
  at: fc.nat(),
  value: fc.integer({ min: 0, max: 255 }),
});

describe("decoder fuzzing (fast-check, seed 42)", () => {
  for (const [name, target] of Object.entries(TARGETS)) {
    it(`${name}: ${RUNS} random and mutated streams`, () => {
      const streams = INPUTS.map((d) => target.encode(d));
      const header = streams[2].subarray(0, 16);
      let slowest = 0;
      const mutated = fc.record({
        kind: fc.constant("mutated" as const),
        index: fc.nat(INPUTS.length - 1),
        edits: fc.array(edit, { minLength: 1, maxLength: 4 }),
      });
      const random = fc.record({
        kind: fc.constant("random" as const),
        keep: fc.nat(16),
        tail: fc.uint8Array({ maxLength: 600 }),
      });
      fc.assert(
        fc.property(
          fc.oneof({ weight: 3, arbitrary: mutated }, { weight: 1, arbitrary: random }),
          (c) => {
            let input: Uint8Array;
            let limit: number;
            let original: Uint8Array | undefined;
            if (c.kind === "mutated") {
              original = INPUTS[c.index];
              input = mutate(streams[c.index], c.edits);
              limit = original.length;
            } else {
              input = new Uint8Array(c.keep + c.tail.length);
              input.set(header.subarray(0, c.keep));
              input.set(c.tail, c.keep);
              limit = RANDOM_LIMIT;
            }
            const t0 = performance.now();
            try {
              const out = target.decode(input, limit);
              expect(out.length).toBeLessThanOrEqual(limit);
              if (original && target.checked) expect(Buffer.compare(out, original)).toBe(0);
            } catch (e) {
              if (!(e instanceof CodecError)) throw e;
              expect(e.message.startsWith("f: ")).toBe(true);
            }
            slowest = Math.max(slowest, performance.now() - t0);
          },
        ),
        { seed: 42, numRuns: RUNS },
      );
      expect(slowest).toBeLessThan(250);
    }, 60_000);
  }
});

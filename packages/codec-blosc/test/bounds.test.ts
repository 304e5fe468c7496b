// Decoded-size bounds (`options.maxDecodedSize`, an exact `decodedSize`) and
// the worst-case encoded size (`maxEncodedSize`). Bombs in a child process
// under the watchdog: tools/attacks/test/codec-bombs.test.ts.
import { CodecError } from "@zarr/core";
import { randomBytes } from "@zarr/test-utils";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { loadOptionalEngines, makeCodec, structured } from "./helpers.js";

const MiB = 1 << 20;
let engines = new Set<string>();
beforeAll(async () => {
  engines = await loadOptionalEngines();
});

/** A Blosc 1 chunk of `n` bytes of `byte` in lz4 blocks of 1 MiB, each one long match. */
async function lz4Run(n: number, byte: number): Promise<Uint8Array> {
  const codec = makeCodec({ cname: "lz4", clevel: 5, shuffle: "noshuffle", blocksize: MiB });
  return await codec.encode(new Uint8Array(n).fill(byte));
}

describe("blosc decode with maxDecodedSize", () => {
  it("a chunk whose header declares more than the bound fails with a CodecError before decoding", async () => {
    const bomb = await lz4Run(64 * MiB, 1);
    expect(bomb.length).toBeLessThan(MiB);
    const codec = makeCodec({ cname: "lz4" });
    expect(() => codec.decode(bomb, undefined, { maxDecodedSize: MiB })).toThrow(
      /header nbytes 67108864 exceeds the expected decoded size 1048576/,
    );
  });

  it("a chunk of exactly the bound decodes, for every cname; a byte less of bound fails", async () => {
    for (const cname of ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"]) {
      if ((cname === "zlib" || cname === "zstd") && !engines.has(cname)) continue;
      const codec = makeCodec({ cname, clevel: 5, shuffle: "shuffle" }, 4);
      for (const n of [0, 1, 200, 300_000]) {
        const data = structured(n, n);
        const enc = await codec.encode(data);
        const out = await codec.decode(enc, undefined, { maxDecodedSize: n });
        expect(Buffer.compare(out, data), `${cname} ${n}`).toBe(0);
        if (n > 0) {
          expect(() => codec.decode(enc, undefined, { maxDecodedSize: n - 1 })).toThrow(CodecError);
        }
      }
    }
  });

  it("an exact decodedSize other than the header's nbytes is a CodecError", async () => {
    const codec = makeCodec({ cname: "lz4" });
    const enc = (await codec.encode(structured(1000))) as Uint8Array;
    expect(() => codec.decode(enc, 1001)).toThrow(
      /header nbytes 1000 differs from the expected decoded size 1001/,
    );
    expect(() => codec.decode(enc, 999)).toThrow(CodecError);
    expect((await codec.decode(enc, 1000)).length).toBe(1000);
  });
});

describe("maxEncodedSize", () => {
  const sizes = [0, 1, 2, 15, 16, 127, 128, 129, 1000, 4096, 65_536, 65_537, 300_001];
  const kinds = {
    random: (n: number) => randomBytes(n, n + 3),
    zeros: (n: number) => new Uint8Array(n),
    structured: (n: number) => structured(n, n),
  };

  it("bounds every chunk we write (every cname, shuffle, typesize) for random, incompressible and compressible inputs; c-blosc's n + 16 holds too", async () => {
    for (const cname of ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"]) {
      if ((cname === "zlib" || cname === "zstd") && !engines.has(cname)) continue;
      for (const shuffle of ["noshuffle", "shuffle", "bitshuffle"]) {
        for (const typesize of [1, 8]) {
          const codec = makeCodec({ cname, clevel: 9, shuffle, typesize });
          for (const n of sizes) {
            for (const [kind, make] of Object.entries(kinds)) {
              const enc = await codec.encode(make(n));
              const what = `${cname} ${shuffle} ${typesize} ${kind} ${n}`;
              expect(enc.length, what).toBeLessThanOrEqual(n + 16);
              expect(enc.length, what).toBeLessThanOrEqual(codec.maxEncodedSize(n));
            }
          }
        }
      }
    }
  });

  it("bounds random inputs of any size (property)", async () => {
    const codec = makeCodec({ cname: "lz4", clevel: 1, shuffle: "bitshuffle", typesize: 2 });
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 70_000 }), async (data) => {
        expect((await codec.encode(data)).length).toBeLessThanOrEqual(
          codec.maxEncodedSize(data.length),
        );
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  it("is n + n/16 + 1040", () => {
    const codec = makeCodec({ cname: "lz4" });
    expect(codec.maxEncodedSize(0)).toBe(1040);
    expect(codec.maxEncodedSize(MiB)).toBe(MiB + MiB / 16 + 1040);
  });
});

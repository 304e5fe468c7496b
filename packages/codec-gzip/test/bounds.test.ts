// Decoded-size bounds (`options.maxDecodedSize`, an exact `decodedSize`, the
// internal cap) and the worst-case encoded size (`maxEncodedSize`). Bombs in
// a child process under the watchdog: tools/attacks/test/codec-bombs.test.ts.

import { deflateSync, gzipSync } from "node:zlib";
import {
  DEFAULT_MAX_DECODED_SIZE,
  DeflateCodec,
  type DeflateEngine,
  type DeflateFormat,
} from "@zarr/codec-gzip";
import { CodecError } from "@zarr/core";
import { randomBytes, sameBytes, smoothField } from "@zarr/test-utils";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { engine as browserEngine } from "../src/engine/browser.js";
import { engine as nodeEngine } from "../src/engine/node.js";
import { engine as pakoEngine } from "../src/engine/pako.js";

const MiB = 1 << 20;
const FORMATS: DeflateFormat[] = ["gzip", "zlib"];
const zeros16 = {
  gzip: gzipSync(Buffer.alloc(16 * MiB)),
  zlib: deflateSync(Buffer.alloc(16 * MiB)),
};

describe.each([nodeEngine, browserEngine, pakoEngine])("bounds, engine $name", (engine) => {
  for (const format of FORMATS) {
    const codec = new DeflateCodec(format, { level: 6, engine });

    it(`${format}: maxDecodedSize stops a bomb with a CodecError`, async () => {
      const bomb = new Uint8Array(zeros16[format]);
      await expect(codec.decode(bomb, undefined, { maxDecodedSize: MiB })).rejects.toThrow(
        /exceeds the expected 1048576 bytes/,
      );
      await expect(codec.decode(bomb, undefined, { maxDecodedSize: MiB })).rejects.toThrow(
        CodecError,
      );
    });

    it(`${format}: data of exactly maxDecodedSize decodes; one byte more fails`, async () => {
      for (const data of [randomBytes(MiB, 7), smoothField(MiB / 4), new Uint8Array(MiB)]) {
        const enc = await codec.encode(data);
        const out = await codec.decode(enc, undefined, { maxDecodedSize: MiB });
        expect(sameBytes(out, data)).toBe(true);
        await expect(codec.decode(enc, undefined, { maxDecodedSize: MiB - 1 })).rejects.toThrow(
          CodecError,
        );
      }
      const empty = await codec.encode(new Uint8Array(0));
      expect((await codec.decode(empty, undefined, { maxDecodedSize: 0 })).length).toBe(0);
    });

    it(`${format}: a large bound is not allocated up front (10 bytes under a 256 MiB bound)`, async () => {
      const enc = await codec.encode(new Uint8Array(10).fill(3));
      const out = await codec.decode(enc, undefined, { maxDecodedSize: 256 * MiB });
      expect(out.length).toBe(10);
      // The result must not view (and keep alive) an output buffer of the bound's size.
      expect(out.buffer.byteLength).toBeLessThanOrEqual(MiB);
    });

    it(`${format}: an exact decodedSize that the data does not match is a CodecError`, async () => {
      const enc = await codec.encode(new Uint8Array(1000));
      await expect(codec.decode(enc, 1001)).rejects.toThrow(/decoded 1000 bytes, expected 1001/);
      await expect(codec.decode(enc, 999)).rejects.toThrow(CodecError);
      expect((await codec.decode(enc, 1000)).length).toBe(1000);
    });
  }
});

describe("which limit the engine gets", () => {
  it("exact decodedSize, else maxDecodedSize, else the 1 GiB default; `exact` only for decodedSize", async () => {
    const calls: [number | undefined, boolean | undefined][] = [];
    const spy: DeflateEngine = {
      name: "spy",
      compress: nodeEngine.compress,
      async decompress(data, format, maxSize, exact) {
        calls.push([maxSize, exact]);
        return nodeEngine.decompress(data, format, maxSize, exact);
      },
    };
    const codec = new DeflateCodec("gzip", { level: 1, engine: spy });
    const enc = await codec.encode(new Uint8Array(5));
    await codec.decode(enc, 5);
    await codec.decode(enc, undefined, { maxDecodedSize: 77 });
    await codec.decode(enc, 5, { maxDecodedSize: 77 });
    await codec.decode(enc);
    expect(calls).toEqual([
      [5, true],
      [77, false],
      [5, true],
      [DEFAULT_MAX_DECODED_SIZE, false],
    ]);
    expect(DEFAULT_MAX_DECODED_SIZE).toBe(2 ** 30);
  });
});

describe("maxEncodedSize", () => {
  const sizes = [0, 1, 2, 3, 64, 255, 256, 1000, 4096, 65535, 65536, 65537, 100_000, 300_000];
  const kinds = {
    random: (n: number, seed: number) => randomBytes(n, seed),
    zeros: (n: number) => new Uint8Array(n),
    smooth: (n: number) => smoothField((n + 3) >> 2).subarray(0, n),
    bytes: (n: number, seed: number) => randomBytes(n, seed).map((b) => b & 3),
  };

  it("bounds every encoding node:zlib and pako write, at every level, for random, incompressible and compressible inputs", async () => {
    for (const engine of [nodeEngine, pakoEngine]) {
      for (const format of FORMATS) {
        for (const level of [0, 1, 5, 9]) {
          const codec = new DeflateCodec(format, { level, engine });
          for (const n of sizes) {
            for (const [kind, make] of Object.entries(kinds)) {
              const enc = await codec.encode(make(n, n + level));
              expect(
                enc.length,
                `${engine.name} ${format} ${level} ${kind} ${n}`,
              ).toBeLessThanOrEqual(codec.maxEncodedSize(n));
            }
          }
        }
      }
    }
  });

  it("bounds random inputs of any size (property)", async () => {
    const codecs = FORMATS.flatMap((format) =>
      [0, 1, 9].map((level) => new DeflateCodec(format, { level, engine: nodeEngine })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 5000 }),
          fc.uint8Array({ minLength: 60_000, maxLength: 70_000 }),
        ),
        fc.nat(codecs.length - 1),
        async (data, i) => {
          const codec = codecs[i]!;
          expect((await codec.encode(data)).length).toBeLessThanOrEqual(
            codec.maxEncodedSize(data.length),
          );
        },
      ),
      { seed: 42, numRuns: 300 },
    );
  });

  it("leaves room for gzip header fields and further members: 2n + 256 KiB (gzip), 2n + 64 KiB (zlib)", () => {
    const gz = new DeflateCodec("gzip", { level: 1 });
    const zl = new DeflateCodec("zlib", { level: 1 });
    expect(gz.maxEncodedSize(0)).toBe(256 * 1024);
    expect(gz.maxEncodedSize(1000)).toBe(2000 + 256 * 1024);
    expect(zl.maxEncodedSize(1000)).toBe(2000 + 64 * 1024);
  });
});

// Decoded-size bounds (`options.maxDecodedSize`, an exact `decodedSize`, the
// internal cap) and the worst-case encoded size (`maxEncodedSize`) of the lzma
// codec (xz, .lzma, raw). Bombs in a child process under the watchdog:
// tools/attacks/test/codec-bombs.test.ts.
import { CodecError, type DataType, type JsonObject } from "@zarr/core";
import type { BytesToBytesCodec, ChunkSpec, CodecContext, CodecFactory } from "@zarr/core/codec";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_DECODED_SIZE, lzmaCodec } from "../src/index.js";

const MiB = 1 << 20;
const FILTER_LZMA1 = 2 ** 62;

function context(): CodecContext {
  const dataType = { name: "uint8", itemSize: 1 } as unknown as DataType;
  return {
    spec: { shape: [1], dataType, fillValue: 0 } as unknown as ChunkSpec,
    path: "c/0",
    format: 2,
    pipeline: () => Promise.reject(new Error("no nested pipelines here")),
  };
}

async function make(factory: CodecFactory, config: JsonObject): Promise<BytesToBytesCodec> {
  return (await factory.fromConfig(config, context())) as BytesToBytesCodec;
}

const CODECS: [string, CodecFactory, JsonObject][] = [
  ["xz", lzmaCodec, { format: 1, preset: 1 }],
  [
    "xz delta",
    lzmaCodec,
    {
      format: 1,
      filters: [
        { id: 3, dist: 4 },
        { id: 0x21, preset: 1 },
      ],
    },
  ],
  [".lzma", lzmaCodec, { format: 2, preset: 1 }],
  ["raw lzma1", lzmaCodec, { format: 3, filters: [{ id: FILTER_LZMA1, preset: 1 }] }],
  ["raw lzma2", lzmaCodec, { format: 3, filters: [{ id: 0x21, preset: 1 }] }],
];

/** Compressible structure with an incompressible stretch. */
function mixed(n: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = n + 1;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = i % 4096 < 1024 ? x >>> 24 : i % 7 === 0 ? (i >>> 8) & 0xff : 0;
  }
  return out;
}

function concat(a: Uint8Array, n: number): Uint8Array {
  const out = new Uint8Array(a.length * n);
  for (let i = 0; i < n; i++) out.set(a, i * a.length);
  return out;
}

describe("decode with maxDecodedSize", () => {
  it("data of exactly the bound decodes; a byte less of bound fails with a CodecError", async () => {
    for (const [name, factory, config] of CODECS) {
      const codec = await make(factory, config);
      for (const n of [0, 1, 1000, 300_000]) {
        const data = mixed(n);
        const enc = await codec.encode(data);
        const out = await codec.decode(enc, undefined, { maxDecodedSize: n });
        expect(Buffer.compare(out, data), `${name} ${n}`).toBe(0);
        if (n > 0) {
          await expect(
            (async () => codec.decode(enc, undefined, { maxDecodedSize: n - 1 }))(),
            `${name} ${n}`,
          ).rejects.toThrow(CodecError);
        }
      }
    }
  });

  it("an exact decodedSize the data does not match is a CodecError", async () => {
    for (const [name, factory, config] of CODECS) {
      const codec = await make(factory, config);
      const enc = await codec.encode(mixed(1000));
      for (const wrong of [999, 1001]) {
        await expect((async () => codec.decode(enc, wrong))(), `${name} ${wrong}`).rejects.toThrow(
          CodecError,
        );
      }
    }
  });

  it("bombs (concatenated xz streams, one .lzma stream) stop at the bound", async () => {
    const bombs: [string, BytesToBytesCodec, Uint8Array][] = [];
    const xz = await make(lzmaCodec, { format: 1, preset: 1 });
    bombs.push(["xz", xz, concat(await xz.encode(new Uint8Array(4 * MiB)), 4)]);
    const alone = await make(lzmaCodec, { format: 2, preset: 1 });
    bombs.push([".lzma", alone, await alone.encode(new Uint8Array(16 * MiB))]);
    for (const [name, codec, bomb] of bombs) {
      expect(bomb.length, name).toBeLessThan(MiB);
      await expect(
        (async () => codec.decode(bomb, undefined, { maxDecodedSize: MiB }))(),
        name,
      ).rejects.toThrow(/exceeds the expected 1048576 bytes|at most 1048576 expected/);
    }
    expect(DEFAULT_MAX_DECODED_SIZE).toBe(2 ** 30);
  });

  it(".lzma: a header declaring 250 MiB under a 256 MiB bound is not allocated", async () => {
    const codec = await make(lzmaCodec, { format: 2, preset: 1 });
    const enc = (await codec.encode(mixed(1000))).slice();
    // Bytes 5..12 of the .lzma header: the uncompressed size (liblzma writes "unknown").
    new DataView(enc.buffer).setUint32(5, 250 * MiB, true);
    new DataView(enc.buffer).setUint32(9, 0, true);
    const before = process.memoryUsage().arrayBuffers;
    await expect(
      (async () => codec.decode(enc, undefined, { maxDecodedSize: 256 * MiB }))(),
    ).rejects.toThrow(CodecError);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * MiB);
  });
});

describe("maxEncodedSize", () => {
  const sizes = [0, 1, 2, 3, 100, 1000, 65_535, 65_536, 65_537, 200_000];
  const kinds = {
    random: (n: number) => {
      const out = new Uint8Array(n);
      let x = n * 7 + 3;
      for (let i = 0; i < n; i++) {
        x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
        out[i] = x >>> 24;
      }
      return out;
    },
    zeros: (n: number) => new Uint8Array(n),
    mixed,
  };

  it("bounds every encoding we write (every lzma format) for random, incompressible and compressible inputs", async () => {
    const all: [string, CodecFactory, JsonObject][] = [
      ...CODECS,
      [".lzma 6", lzmaCodec, { format: 2, preset: 6 }],
      ["xz 6", lzmaCodec, { format: 1, preset: 6, check: 10 }],
    ];
    for (const [name, factory, config] of all) {
      const codec = await make(factory, config);
      for (const n of sizes) {
        for (const [kind, data] of Object.entries(kinds)) {
          const enc = await codec.encode(data(n));
          expect(enc.length, `${name} ${kind} ${n}`).toBeLessThanOrEqual(codec.maxEncodedSize!(n));
        }
      }
    }
  });

  it("bounds random inputs of any size (property)", async () => {
    const codecs = await Promise.all(CODECS.map(([, f, c]) => make(f, c)));
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 3000 }),
        fc.nat(codecs.length - 1),
        async (data, i) => {
          const codec = codecs[i]!;
          expect((await codec.encode(data)).length).toBeLessThanOrEqual(
            codec.maxEncodedSize!(data.length),
          );
        },
      ),
      { seed: 42, numRuns: 300 },
    );
  });
});

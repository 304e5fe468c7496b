// Decoded-size bounds (`options.maxDecodedSize`, an exact `decodedSize`) and
// the encoded size (`maxEncodedSize`) of numcodecs' `shuffle`.
import { CodecError, type DataType, type JsonObject } from "@zarr/core";
import type { BytesToBytesCodec, ChunkSpec, CodecContext, CodecFactory } from "@zarr/core/codec";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { shuffleCodec } from "../src/index.js";

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
  ["shuffle 1", shuffleCodec, { elementsize: 1 }],
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

  it("bounds every encoding we write (element size 1) for random, incompressible and compressible inputs", async () => {
    const all: [string, CodecFactory, JsonObject][] = [...CODECS];
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

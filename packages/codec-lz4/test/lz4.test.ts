// numcodecs LZ4 (numcodecs lz4.pyx): a 4-byte little-endian decoded size, then
// one LZ4 block (lz4 "Block Format Description"). Round trips, configuration,
// typed errors, and arrays through the registered names (v2 id and v3 name).
import "@zarr/v2-compat/register";
import "../src/register.js";
import { CodecError, createArray, MemoryStore, openArray } from "@zarr/core";
import type { BytesToBytesCodec, CodecContext, CodecFactory } from "@zarr/core/codec";
import { convertV2ToV3, createArrayV2 } from "@zarr/v2-compat";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lz4Codec, numcodecsLz4Codec } from "../src/index.js";

const context = { path: "p", format: 2 } as unknown as CodecContext;
const make = (factory: CodecFactory, config: object = {}) =>
  factory.fromConfig(config as never, context) as BytesToBytesCodec;

describe("lz4 codec", () => {
  it("round trips any bytes, and stores the size header numcodecs writes", async () => {
    const codec = make(lz4Codec, { acceleration: 1 });
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 5000 }), async (data) => {
        const enc = await codec.encode(data);
        expect(new DataView(enc.buffer).getUint32(0, true)).toBe(data.length);
        expect(await codec.decode(enc, data.length)).toEqual(data);
        expect(await codec.decode(enc)).toEqual(data);
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  it("acceleration below 1 encodes as 1 (liblz4), and toJSON keeps what was configured", async () => {
    const data = new TextEncoder().encode("abcabcabcabc".repeat(100));
    const one = await make(lz4Codec, { acceleration: 1 }).encode(data);
    expect(await make(lz4Codec, { acceleration: -5 }).encode(data)).toEqual(one);
    expect(make(lz4Codec, { acceleration: -5 }).toJSON()).toEqual({
      name: "lz4",
      configuration: { acceleration: -5 },
    });
    expect(make(numcodecsLz4Codec).toJSON()).toEqual({
      name: "numcodecs.lz4",
      configuration: { acceleration: 1 },
    });
  });

  it("rejects a bad acceleration naming the field", () => {
    expect(() => make(lz4Codec, { acceleration: 1.5 })).toThrowError(
      /p: lz4: acceleration: must be an integer/,
    );
    expect(() => make(lz4Codec, { acceleration: "fast" })).toThrowError(CodecError);
  });

  it("a size header beyond the chunk size is a CodecError, not an allocation", async () => {
    const codec = make(numcodecsLz4Codec);
    const evil = new Uint8Array([0xff, 0xff, 0xff, 0x7f, 0]);
    expect(() => codec.decode(evil, 16)).toThrow(CodecError);
    expect(() => codec.decode(Uint8Array.of(1, 0, 0))).toThrow(/too short for the size header/);
    // LZ4 blocks carry no checksum: a cut block or a wrong size is what is detectable.
    const enc = await codec.encode(new Uint8Array(100).fill(3));
    expect(() => codec.decode(enc.subarray(0, enc.length - 1), 100)).toThrow(CodecError);
    expect(() => codec.decode(enc, 99)).toThrow(/header claims 100 decoded bytes, expected 99/);
  });

  it("v2 arrays (createArrayV2, compressor lz4) and v3 arrays (numcodecs.lz4) round trip", async () => {
    const store = new MemoryStore();
    const values = Int32Array.from({ length: 1000 }, (_, i) => (i * i) % 977);
    const v2 = await createArrayV2(store, "v2", {
      shape: [1000],
      chunks: [300],
      dtype: "<i4",
      compressor: { id: "lz4", acceleration: 1 },
    });
    await v2.set(null, { data: values, shape: [1000] });
    expect((await (await openArray(store, "v2")).get()).data).toEqual(values);
    const v3 = await createArray(store, "v3", {
      shape: [1000],
      dataType: "int32",
      chunkShape: [300],
      codecs: [
        { name: "bytes", configuration: { endian: "little" } },
        { name: "numcodecs.lz4", configuration: { acceleration: 1 } },
      ],
    });
    await v3.set(null, { data: values, shape: [1000] });
    expect((await (await openArray(store, "v3")).get()).data).toEqual(values);
    // convertV2ToV3 keeps the chunks and names numcodecs.lz4.
    await convertV2ToV3(store, "v2");
    expect(new TextDecoder().decode(await store.get("v2/zarr.json"))).toContain('"numcodecs.lz4"');
  });
});

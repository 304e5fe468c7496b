import {
  createZfpFactories,
  numcodecsZfpyCodec,
  reversibleParams,
  ZfpCodec,
  zfpCodec,
  zfpCompress,
  zfpReadHeader,
  zfpyCodec,
} from "@zarr/codec-zfp";
import "@zarr/codec-zfp/register";
import { CodecError, createArray, type JsonObject, MemoryStore, openArray } from "@zarr/core";
import {
  type ArrayToBytesCodec,
  type BytesToBytesCodec,
  type ChunkSpec,
  codecTestContext,
} from "@zarr/core/codec";
import { describe, expect, it } from "vitest";
import { makeData } from "./cases.js";

const v2 = (shape: number[], dtype: string) => codecTestContext(shape, dtype, { format: 2 });
const v3 = (shape: number[], dtype: string) => codecTestContext(shape, dtype);
const specOf = (shape: number[], dtype: string): ChunkSpec => v3(shape, dtype).spec;

async function zfpy(
  config: JsonObject,
  shape: number[],
  dtype: string,
): Promise<BytesToBytesCodec> {
  return (await zfpyCodec.fromConfig(config, v2(shape, dtype))) as BytesToBytesCodec;
}

async function a2b(factory: typeof zfpCodec, config: JsonObject, shape: number[], dtype: string) {
  return (await factory.fromConfig(config, v3(shape, dtype))) as ArrayToBytesCodec;
}

/** Runs `f` so that a synchronous throw becomes a rejection. */
const later = <T>(f: () => T | Promise<T>): Promise<T> => Promise.resolve().then(f);

function typedOf(dtype: string, bytes: Uint8Array) {
  const b = bytes.slice().buffer;
  return {
    float32: () => new Float32Array(b),
    float64: () => new Float64Array(b),
    int32: () => new Int32Array(b),
    int64: () => new BigInt64Array(b),
  }[dtype]!();
}

describe("zfpy (v2 compressor, numcodecs configuration)", () => {
  it("round-trips every type losslessly in numcodecs' default configuration (mode 4, tolerance -1: reversible)", async () => {
    for (const dtype of ["float32", "float64", "int32", "int64"] as const) {
      const shape = [5, 6, 7];
      const data = makeData(dtype, 210, "special", 3);
      const codec = await zfpy({ mode: 4, tolerance: -1, rate: -1, precision: -1 }, shape, dtype);
      const encoded = await codec.encode(data);
      expect(zfpReadHeader(encoded)).toMatchObject({ type: dtype, sizes: [7, 6, 5] });
      expect(Buffer.from(await codec.decode(encoded, data.length)).equals(Buffer.from(data))).toBe(
        true,
      );
    }
  });

  it("writes numcodecs' configuration keys and reads compression_kwargs leniently in v2", async () => {
    const codec = await zfpy(
      { mode: 2, rate: 8, compression_kwargs: { rate: 8 }, tolerance: -1, precision: -1 },
      [16],
      "float64",
    );
    expect(codec.toJSON()).toEqual({
      name: "zfpy",
      configuration: { mode: 2, tolerance: -1, rate: 8, precision: -1 },
    });
    const defaults = await zfpy({}, [16], "float64");
    expect(defaults.toJSON()).toEqual({
      name: "zfpy",
      configuration: { mode: 4, tolerance: -1, rate: -1, precision: -1 },
    });
  });

  it("refuses data types and dimensionalities zfpy cannot hold (CodecError)", async () => {
    await expect(zfpy({}, [8], "uint8")).rejects.toThrow(CodecError);
    await expect(zfpy({}, [2, 2, 2, 2, 2], "float32")).rejects.toThrow(/1 to 4 dimensions/);
    await expect(zfpy({ mode: "fixed_rate" }, [8], "float32")).rejects.toThrow(/mode/);
    await expect(
      later(() => numcodecsZfpyCodec.fromConfig({ mode: 4, level: 3 }, v3([4], "float32"))),
    ).rejects.toThrow(/unknown configuration field "level"/);
  });

  it("refuses to encode with a mode numcodecs cannot encode with, but decodes its chunks", async () => {
    const codec = await zfpy({ mode: 1 }, [8], "float32");
    await expect(later(() => codec.encode(new Uint8Array(32)))).rejects.toThrow(
      /mode 1 cannot encode/,
    );
    const stream = zfpCompress(new Float32Array(8).fill(1.5), [8], reversibleParams());
    expect(new Float32Array((await codec.decode(stream, 32)).buffer)).toEqual(
      new Float32Array(8).fill(1.5),
    );
  });

  it("refuses a rate whose blocks cannot hold a float's exponent (libzfp overruns its buffer there)", async () => {
    const codec = await zfpy({ mode: 2, rate: 1 }, [16], "float32");
    await expect(later(() => codec.encode(new Uint8Array(64)))).rejects.toThrow(CodecError);
  });

  it("decode: a header of another shape, type or codec version, a truncated or garbage stream is a CodecError", async () => {
    const codec = await zfpy({}, [4, 5], "float32");
    const good = await codec.encode(makeData("float32", 20, "smooth", 1));
    const other = zfpCompress(new Float32Array(25), [5, 5], reversibleParams());
    const otherType = zfpCompress(new Int32Array(20), [4, 5], reversibleParams());
    const version = good.slice();
    version[3] = 4;
    for (const [bytes, why] of [
      [other, /shape is \[5,5\], expected \[4,5\]/],
      [otherType, /holds int32 values, expected float32/],
      [version, /codec version 4/],
      [good.subarray(0, good.length - 8), /ends before its last block/],
      [good.subarray(0, 10), /cannot hold a zfp header/],
      [new Uint8Array(64).fill(0xaa), /magic/],
    ] as const) {
      await expect(later(() => codec.decode(bytes, 80))).rejects.toThrow(why);
      await expect(later(() => codec.decode(bytes, 80))).rejects.toThrow(CodecError);
    }
    // Another shape of the same size is the same C-order values (numcodecs'
    // delta and fixedscaleoffset flatten chunks before zfpy).
    const values = Float32Array.from({ length: 20 }, (_, i) => i * 0.5 - 3);
    for (const shape of [[20], [5, 4], [2, 2, 5]]) {
      const flat = zfpCompress(values, shape, reversibleParams());
      expect(new Float32Array((await codec.decode(flat, 80)).slice().buffer)).toEqual(values);
    }
    await expect(later(() => codec.decode(good, 81))).rejects.toThrow(/not the expected 81/);
    await expect(
      later(() => codec.decode(good, undefined, { maxDecodedSize: 79 })),
    ).rejects.toThrow(/exceeds the bound/);
  });

  it("writes libzfp's default 64-bit stream words unless told 8 (Debian's build)", async () => {
    const data = new Uint8Array(Float32Array.of(0, 1, 2, 3, 4, 5, 6).buffer); // 19 bytes with 8-bit words
    const wide = await (await zfpy({}, [7], "float32")).encode(data);
    const narrow = await (
      (await createZfpFactories({ wordBits: 8 }).zfpy.fromConfig(
        {},
        v2([7], "float32"),
      )) as BytesToBytesCodec
    ).encode(data);
    expect(wide.length % 8).toBe(0);
    expect(narrow.length).toBeLessThan(wide.length);
    expect(Buffer.from(wide.subarray(0, narrow.length)).equals(Buffer.from(narrow))).toBe(true);
    expect(wide.subarray(narrow.length).every((b) => b === 0)).toBe(true);
  });
});

describe("numcodecs.zfpy (zarr-python 3, array -> bytes)", () => {
  it("encodes the chunk array with a full header and decodes it", async () => {
    const codec = await a2b(numcodecsZfpyCodec, { mode: 3, precision: 16 }, [9, 9], "float64");
    const data = typedOf("float64", makeData("float64", 81, "smooth", 5));
    const spec = specOf([9, 9], "float64");
    const bytes = await codec.encode(
      { data, shape: [9, 9], stride: [9, 1], dataType: spec.dataType },
      spec,
    );
    expect(zfpReadHeader(bytes).params.maxprec).toBe(16);
    const out = await codec.decode(bytes, spec);
    expect(out.shape).toEqual([9, 9]);
    const max = Math.max(
      ...Array.from(data as Float64Array, (v, i) => Math.abs(v - (out.data as Float64Array)[i]!)),
    );
    expect(max).toBeGreaterThan(0); // lossy
    expect(max).toBeLessThan(0.1);
    expect(() => codec.validate(specOf([3], "uint16"))).toThrow(CodecError);
  });
});

describe("zfp (zarrs, zarr-extensions: headerless)", () => {
  it("parses and writes the zarr-extensions configurations", async () => {
    for (const config of [
      { mode: "reversible" } as JsonObject,
      { mode: "fixed_rate", rate: 10.5 },
      { mode: "fixed_precision", precision: 19 },
      { mode: "fixed_accuracy", tolerance: 0.05 },
      { mode: "expert", minbits: 1, maxbits: 13, maxprec: 19, minexp: -2 },
    ]) {
      const codec = await a2b(zfpCodec, config, [4, 4], "float32");
      expect(codec.toJSON()).toEqual({ name: "zfp", configuration: config });
    }
    for (const [config, why] of [
      [{ mode: "fast" }, /configuration.mode must be/],
      [{ mode: "fixed_rate" }, /rate must be a number/],
      [
        { mode: "fixed_rate", rate: 4, write_header: true },
        /unknown configuration field "write_header"/,
      ],
      [{ mode: "fixed_precision", precision: 2.5 }, /non-negative integer/],
      [{ mode: "fixed_accuracy", tolerance: -1 }, /tolerance must be a number >= 0, got -1/],
      [{ mode: "expert", minbits: 9, maxbits: 8, maxprec: 10, minexp: 0 }, /minbits <= maxbits/],
    ] as const) {
      await expect(
        later(() => zfpCodec.fromConfig(config as unknown as JsonObject, v3([4], "float32"))),
      ).rejects.toThrow(why);
    }
  });

  it("writes no header: a fixed-rate stream is exactly 64 x rate bits per block (zarrs counts 3-d blocks whatever the shape)", async () => {
    const codec = await a2b(zfpCodec, { mode: "fixed_rate", rate: 1 }, [8, 8], "float64");
    const spec = specOf([8, 8], "float64");
    const data = typedOf("float64", makeData("float64", 64, "smooth", 9));
    const bytes = await codec.encode(
      { data, shape: [8, 8], stride: [8, 1], dataType: spec.dataType },
      spec,
    );
    expect(bytes.length).toBe((4 * 64) / 8); // 4 blocks of 64 bits
    expect((await codec.decode(bytes, spec)).data).toHaveLength(64);
  });

  it("round-trips the promoted integer types losslessly in reversible mode, and clamps as zarrs on lossy decode", async () => {
    const cases: [string, ArrayLike<number | bigint>][] = [
      ["int8", Int8Array.of(-128, -1, 0, 1, 127, 5, 9)],
      ["uint8", Uint8Array.of(0, 1, 128, 255, 7, 3, 200)],
      ["int16", Int16Array.of(-32768, -1, 0, 32767, 12, 99, 1000)],
      ["uint16", Uint16Array.of(0, 65535, 32768, 1, 2, 3, 40000)],
      ["uint32", Uint32Array.of(0, 2147483647, 1, 5, 6, 7, 8)],
      ["uint64", BigUint64Array.of(0n, 9223372036854775807n, 1n, 2n, 3n, 4n, 5n)],
    ];
    for (const [dtype, values] of cases) {
      const codec = await a2b(zfpCodec, { mode: "reversible" }, [7], dtype);
      const spec = specOf([7], dtype);
      const bytes = await codec.encode(
        { data: values as never, shape: [7], stride: [1], dataType: spec.dataType },
        spec,
      );
      expect(Array.from((await codec.decode(bytes, spec)).data as ArrayLike<number>)).toEqual(
        Array.from(values),
      );
    }
    const codec = await a2b(zfpCodec, { mode: "reversible" }, [2], "uint32");
    const spec = specOf([2], "uint32");
    await expect(
      later(() =>
        codec.encode(
          { data: Uint32Array.of(1, 2 ** 31), shape: [2], stride: [1], dataType: spec.dataType },
          spec,
        ),
      ),
    ).rejects.toThrow(/exceeds the int32 range/);
  });

  it("refuses fixed_accuracy for integers, unsupported types and more than 4 dimensions; reads 0-d chunks as one value", async () => {
    expect(() =>
      new ZfpCodec("zfp", "t", { mode: "fixed_accuracy", tolerance: 1 }).validate(
        specOf([4], "int32"),
      ),
    ).toThrow(/floating-point/);
    expect(() =>
      new ZfpCodec("zfp", "t", { mode: "reversible" }).validate(specOf([4], "float16")),
    ).toThrow(CodecError);
    expect(() =>
      new ZfpCodec("zfp", "t", { mode: "reversible" }).validate(specOf([1, 1, 1, 1, 2], "float32")),
    ).toThrow(/up to 4 dimensions/);
    const codec = new ZfpCodec("zfp", "t", { mode: "reversible" });
    const spec = specOf([], "float32");
    const bytes = await codec.encode(
      { data: Float32Array.of(2.5), shape: [], stride: [], dataType: spec.dataType },
      spec,
    );
    expect(Array.from((await codec.decode(bytes, spec)).data as Float32Array)).toEqual([2.5]);
  });

  it("a truncated stream is a CodecError", async () => {
    const codec = new ZfpCodec("zfp", "t", { mode: "fixed_precision", precision: 20 });
    const spec = specOf([16, 16], "float32");
    const data = typedOf("float32", makeData("float32", 256, "smooth", 4));
    const bytes = await codec.encode(
      { data, shape: [16, 16], stride: [16, 1], dataType: spec.dataType },
      spec,
    );
    await expect(
      later(() => codec.decode(bytes.subarray(0, bytes.length - 16), spec)),
    ).rejects.toThrow(CodecError);
  });
});

describe("through @zarr/core arrays", () => {
  it("v3 arrays with zfp and numcodecs.zfpy write and read back (partial edge chunks, inside shards)", async () => {
    const sharded = (codec: JsonObject): JsonObject[] => [
      {
        name: "sharding_indexed",
        configuration: {
          chunk_shape: [2, 4],
          codecs: [codec],
          index_codecs: [
            { name: "bytes", configuration: { endian: "little" } },
            { name: "crc32c" },
          ],
        },
      },
    ];
    for (const codecs of [
      sharded({ name: "zfp", configuration: { mode: "reversible" } }),
      sharded({ name: "numcodecs.zfpy", configuration: { mode: 5 } }),
      [{ name: "zfp", configuration: { mode: "reversible" } }],
      [{ name: "numcodecs.zfpy", configuration: { mode: 4, tolerance: -1 } }],
    ]) {
      const store = new MemoryStore();
      const a = await createArray(store, "a", {
        shape: [10, 7],
        chunkShape: [4, 4],
        dataType: "float64",
        codecs,
      });
      const values = Float64Array.from({ length: 70 }, (_, i) => Math.sin(i) * 1e3);
      await a.set(null, { data: values, shape: [10, 7], stride: [7, 1] } as never);
      const back = await (await openArray(store, "a")).get();
      expect(Array.from(back.data as Float64Array)).toEqual(Array.from(values));
    }
  });
});

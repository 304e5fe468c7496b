import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CodecError } from "@zarr/core";
import { CodecPipeline, codecRegistry, codecTestContext } from "@zarr/core/codec";
import { describe, expect, it } from "vitest";
import {
  NumcodecsPcodecCodec,
  numcodecsPcodecCodec,
  PcodecCodec,
  pcodecCodec,
} from "../src/index.js";
import "../src/register.js";
import { FIXTURES, firstDifference, readFixture, readNpy } from "./helpers.js";

const DEFAULTS = {
  level: 8,
  mode_spec: "auto",
  delta_spec: "auto",
  paging_spec: "equal_pages_up_to",
  delta_encoding_order: null,
  equal_pages_up_to: 262144,
};

describe("configuration (numcodecs/pcodec.py)", () => {
  it("fills numcodecs' defaults and writes every key", async () => {
    const codec = await pcodecCodec.fromConfig(
      {},
      codecTestContext([10], "float64", { format: 2 }),
    );
    expect(codec.toJSON()).toEqual({ name: "pcodec", configuration: DEFAULTS });
  });

  it("reads every configuration of numcodecs' fixtures", async () => {
    for (let c = 0; c <= 10; c++) {
      const path = join(
        FIXTURES,
        "numcodecs",
        `codec.${String(c).padStart(2, "0")}`,
        "config.json",
      );
      const config = JSON.parse(readFileSync(path, "utf8"));
      const codec = (await pcodecCodec.fromConfig(
        config,
        codecTestContext([10], "int64", { format: 2 }),
      )) as PcodecCodec;
      const { id: _id, ...rest } = config;
      expect(codec.config).toMatchObject(rest);
    }
  });

  it("rejects what numcodecs rejects, naming the field", async () => {
    const ctx = codecTestContext([10], "float32", { format: 2 });
    for (const [config, why] of [
      [{ level: 13 }, /level must be an integer 0..12/],
      [{ mode_spec: "bogus" }, /mode_spec must be one of auto, classic/],
      [{ delta_spec: "bogus" }, /delta_spec must be one of/],
      [{ paging_spec: "bogus" }, /paging_spec must be one of equal_pages_up_to/],
      [{ delta_encoding_order: 2, delta_spec: "none" }, /delta_encoding_order can only be set/],
      [{ delta_encoding_order: 8 }, /delta_encoding_order must be an integer 0..7/],
      [{ equal_pages_up_to: 0 }, /equal_pages_up_to must be an integer/],
    ] as const) {
      await expect(async () => pcodecCodec.fromConfig(config, ctx)).rejects.toThrow(why);
      await expect(async () => pcodecCodec.fromConfig(config, ctx)).rejects.toBeInstanceOf(
        CodecError,
      );
    }
  });

  it("accepts numcodecs' data types only", async () => {
    for (const dt of ["uint16", "int32", "float16", "uint64"]) {
      await pcodecCodec.fromConfig({}, codecTestContext([4], dt, { format: 2 }));
    }
    for (const dt of ["uint8", "bool", "complex64"]) {
      await expect(async () =>
        pcodecCodec.fromConfig({}, codecTestContext([4], dt, { format: 2 })),
      ).rejects.toThrow(/pcodec supports uint16/);
    }
  });

  it("registers pcodec (v2) and numcodecs.pcodec (v3), lazily", async () => {
    expect(codecRegistry.getSync("pcodec")).toBeUndefined(); // a loader, not the factory
    expect(await codecRegistry.get("pcodec")).toBe(pcodecCodec);
    expect(await codecRegistry.get("numcodecs.pcodec")).toBe(numcodecsPcodecCodec);
  });
});

describe("codec behaviour", () => {
  it("decodes numcodecs' fixture through the v3 array -> bytes codec in a pipeline", async () => {
    const npy = readNpy(join(FIXTURES, "numcodecs", "array.06.npy"));
    const pipeline = await CodecPipeline.create(
      [{ name: "numcodecs.pcodec", configuration: { level: 8 } }],
      codecTestContext(npy.shape, "float64").spec,
      "a/zarr.json",
    );
    const arr = await pipeline.decode(readFixture("numcodecs", "codec.10", "encoded.06.dat"));
    expect(firstDifference(new Uint8Array((arr!.data as Float64Array).buffer), npy.data)).toBe(-1);
    const again = await pipeline.encode(arr!);
    const back = await pipeline.decode(again);
    expect(Array.from(back!.data as Float64Array)).toEqual(Array.from(arr!.data as Float64Array));
  });

  it("keeps NaN payloads, -0, infinities and extreme integers bit for bit", () => {
    const f64 = new Float64Array([
      Number.NaN,
      -0,
      0,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      Number.MIN_VALUE,
      -Number.MAX_VALUE,
    ]);
    const words = new Uint32Array(f64.buffer);
    words[1] = 0xfff80001; // a negative NaN with a payload
    const codec = new PcodecCodec({ dataType: "float64" });
    const raw = new Uint8Array(f64.buffer);
    expect(firstDifference(codec.decode(codec.encode(raw), raw.length), raw)).toBe(-1);
    const i64 = new BigInt64Array([-(2n ** 63n), 2n ** 63n - 1n, 0n, -1n, 1n]);
    const c64 = new PcodecCodec({ dataType: "int64", delta_encoding_order: 2 });
    const r64 = new Uint8Array(i64.buffer);
    expect(firstDifference(c64.decode(c64.encode(r64), r64.length), r64)).toBe(-1);
    const f16 = Uint16Array.of(0x7e01, 0x8000, 0xfc00, 0x7bff, 0x0001);
    const c16 = new PcodecCodec({ dataType: "float16" });
    const r16 = new Uint8Array(f16.buffer);
    expect(firstDifference(c16.decode(c16.encode(r16), r16.length), r16)).toBe(-1);
  });

  it("empty and one-element chunks", () => {
    const codec = new PcodecCodec({ dataType: "int32" });
    expect(codec.decode(codec.encode(new Uint8Array(0)), 0)).toHaveLength(0);
    const one = new Uint8Array(Int32Array.of(-7).buffer);
    expect(Array.from(new Int32Array(codec.decode(codec.encode(one), 4).buffer))).toEqual([-7]);
  });

  it("a wrong expected size, another number type or a non-pco input is a CodecError naming the codec", () => {
    const codec = new PcodecCodec({ dataType: "uint32", path: "x/.zarray" });
    const enc = codec.encode(new Uint8Array(Uint32Array.of(1, 2, 3).buffer));
    expect(() => codec.decode(enc, 8)).toThrow(
      /pcodec codec at "x\/.zarray": .*more than the expected 2/,
    );
    expect(() => codec.decode(enc, 16)).toThrow(/holds 3 numbers, expected 4/);
    expect(() => new PcodecCodec({ dataType: "int32" }).decode(enc, 12)).toThrow(
      /u32 numbers, expected i32/,
    );
    expect(() => codec.decode(Uint8Array.of(1, 2, 3, 4, 5), 12)).toThrow(CodecError);
    expect(() => codec.decode(enc.subarray(0, enc.length - 1), 12)).toThrow(CodecError);
  });

  it("without an exact size, decodes up to maxDecodedSize", () => {
    const codec = new PcodecCodec({ dataType: "uint16", equal_pages_up_to: 100 });
    const raw = new Uint8Array(Uint16Array.from({ length: 1000 }, (_, i) => i * 3).buffer);
    const enc = codec.encode(raw);
    expect(firstDifference(codec.decode(enc, undefined, { maxDecodedSize: 2000 }), raw)).toBe(-1);
    expect(() => codec.decode(enc, undefined, { maxDecodedSize: 1998 })).toThrow(
      /more than the allowed 999/,
    );
  });

  it("honours equal_pages_up_to and delta_encoding_order when encoding", () => {
    const raw = new Uint8Array(
      BigInt64Array.from({ length: 1000 }, (_, i) => BigInt(i * i)).buffer,
    );
    const paged = new PcodecCodec({
      dataType: "int64",
      equal_pages_up_to: 300,
      delta_encoding_order: 2,
    });
    const enc = paged.encode(raw);
    // four chunks of 250: count the chunk preambles (type byte 4, n - 1 = 249)
    let chunks = 0;
    for (let i = 0; i + 3 < enc.length; i++)
      if (enc[i] === 4 && enc[i + 1] === 249 && enc[i + 2] === 0 && enc[i + 3] === 0) chunks++;
    expect(chunks).toBe(4);
    expect(firstDifference(paged.decode(enc, raw.length), raw)).toBe(-1);
    const plain = new PcodecCodec({ dataType: "int64", delta_spec: "no_op" }).encode(raw);
    expect(enc.length).toBeLessThan(plain.length);
  });

  it("the v3 codec validates its data type", () => {
    const codec = new NumcodecsPcodecCodec({ dataType: "float32" });
    expect(() => codec.validate(codecTestContext([2], "bool").spec)).toThrow(CodecError);
  });
});

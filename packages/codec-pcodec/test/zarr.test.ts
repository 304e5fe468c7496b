/**
 * Through @zarr/core arrays: v2 arrays whose compressor is numcodecs'
 * `pcodec` (chunks taken from numcodecs' fixtures, so real pcodec output),
 * v2 arrays written here, and v3 arrays with `numcodecs.pcodec`.
 */
import "../src/register.js";
import "@zarr/v2-compat/register";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createArray, MemoryStore, openArray } from "@zarr/core";
import { createArrayV2 } from "@zarr/v2-compat";
import { describe, expect, it } from "vitest";
import { numberTypeNamed } from "../src/number-types.js";
import { decodeStandalone } from "../src/standalone.js";
import { FIXTURES, readFixture, readNpy } from "./helpers.js";

const json = (x: unknown) => new TextEncoder().encode(JSON.stringify(x));

describe("v2 arrays with the pcodec compressor", () => {
  it("reads numcodecs' chunks: 1-d float64 (FloatMult) and 2-d order F float64", async () => {
    const config = JSON.parse(
      readFileSync(join(FIXTURES, "numcodecs", "codec.10", "config.json"), "utf8"),
    );
    const store = new MemoryStore();
    const zarray = (shape: number[], order: string) => ({
      zarr_format: 2,
      shape,
      chunks: shape,
      dtype: "<f8",
      compressor: config,
      fill_value: 0,
      order,
      filters: null,
    });
    await store.set("lin/.zarray", json(zarray([1000], "C")));
    await store.set("lin/0", readFixture("numcodecs", "codec.10", "encoded.05.dat"));
    await store.set("f/.zarray", json(zarray([100, 10], "F")));
    await store.set("f/0.0", readFixture("numcodecs", "codec.10", "encoded.07.dat"));

    const lin = await (await openArray(store, "lin")).get();
    const want = new Float64Array(readNpy(join(FIXTURES, "numcodecs", "array.05.npy")).data.buffer);
    expect(Array.from(lin.data as Float64Array)).toEqual(Array.from(want));

    const f = await (await openArray(store, "f")).get();
    const fortran = new Float64Array(
      readNpy(join(FIXTURES, "numcodecs", "array.07.npy")).data.buffer,
    );
    const c = Float64Array.from(
      { length: 1000 },
      (_, k) => fortran[(k % 10) * 100 + Math.floor(k / 10)],
    );
    expect(f.shape).toEqual([100, 10]);
    expect(Array.from(f.data as Float64Array)).toEqual(Array.from(c));
  });

  it("writes v2 arrays whose chunks are pcodec standalone streams (edge chunks included)", async () => {
    const store = new MemoryStore();
    const a = await createArrayV2(store, "i", {
      shape: [250],
      chunks: [100],
      dtype: "<i4",
      compressor: {
        id: "pcodec",
        level: 8,
        delta_spec: "try_consecutive",
        delta_encoding_order: 1,
      },
    });
    const values = Int32Array.from({ length: 250 }, (_, i) => i * 7 - 300);
    await a.set(null, { data: values, shape: [250], stride: [1] } as never);
    const meta = JSON.parse(new TextDecoder().decode((await store.get("i/.zarray"))!));
    expect(meta.compressor).toMatchObject({ id: "pcodec", level: 8, delta_encoding_order: 1 });
    const chunk = (await store.get("i/2"))!;
    const decoded = new Int32Array(decodeStandalone(chunk, numberTypeNamed("i32"), 100).buffer);
    expect(Array.from(decoded.subarray(0, 50))).toEqual(Array.from(values.subarray(200)));
    const back = await (await openArray(store, "i")).get();
    expect(Array.from(back.data as Int32Array)).toEqual(Array.from(values));
  });
});

/** `n` values of `dataType` in its in-memory array type. */
function makeData(dataType: string, n: number): ArrayLike<number | bigint> {
  const ints = Array.from({ length: n }, (_, i) => i * 3);
  switch (dataType) {
    case "int64":
      return BigInt64Array.from(ints, (x) => BigInt(x * x));
    case "uint64":
      return BigUint64Array.from(ints, (x) => BigInt(x * x));
    case "uint16":
      return Uint16Array.from(ints);
    case "int16":
      return Int16Array.from(ints, (x) => -x);
    case "uint32":
      return Uint32Array.from(ints);
    case "int32":
      return Int32Array.from(ints, (x) => -x);
    case "float16":
      return Float32Array.from(ints, (x) => x / 4);
    case "float32":
      return Float32Array.from(ints, (x) => x / 7);
    default:
      return Float64Array.from(ints, (x) => x / 7);
  }
}

describe("v3 arrays with numcodecs.pcodec", () => {
  it("write and read back every numcodecs data type", async () => {
    for (const dataType of [
      "uint16",
      "int16",
      "uint32",
      "int32",
      "float32",
      "uint64",
      "int64",
      "float64",
      "float16",
    ]) {
      const store = new MemoryStore();
      const a = await createArray(store, "a", {
        shape: [30, 7],
        chunkShape: [16, 4],
        dataType,
        codecs: [{ name: "numcodecs.pcodec", configuration: { level: 5 } }],
      });
      const n = 210;
      const data = makeData(dataType, n);
      await a.set(null, { data, shape: [30, 7], stride: [7, 1] } as never);
      const back = await (await openArray(store, "a")).get();
      expect(Array.from(back.data as ArrayLike<number>), dataType).toEqual(
        Array.from(data as ArrayLike<number>),
      );
      const meta = JSON.parse(new TextDecoder().decode((await store.get("a/zarr.json"))!));
      expect(meta.codecs[0].name).toBe("numcodecs.pcodec");
    }
  });
});

// Defects the write-direction interop suite (tools/interop, issue 16) found in
// what v2-compat writes: the sign of a -0.0 fill value (Python's json reads the
// token -0 as the integer 0), v3 bit-pattern fill values in v2 metadata, and
// numcodecs delta's NaN results on floats.
import "../src/register.js";
import { type JsonObject, type JsonValue, MemoryStore, openArray } from "@zarr/core";
import { complex64, float32 } from "@zarr/core/internal";
import { describe, expect, it } from "vitest";
import { createArrayV2, v2FillValueJson, writeV2Json } from "../src/index.js";

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const f32bits = (a: Float32Array) => [...new Uint32Array(a.buffer, a.byteOffset, a.length)];

describe("v2 JSON keeps -0.0", () => {
  it("writes the number -0 as -0.0 (a float for every JSON parser), leaving strings and other numbers", () => {
    expect(text(writeV2Json({ fill_value: -0, a: [-0, 0, -0.5, 10], s: "-0" }))).toBe(
      '{\n    "a": [\n        -0.0,\n        0,\n        -0.5,\n        10\n    ],\n    "fill_value": -0.0,\n    "s": "-0"\n}',
    );
  });

  it("a <f4 array with fill -0.0 writes -0.0 and reads it back with the sign bit", async () => {
    const store = new MemoryStore();
    await createArrayV2(store, "a", { shape: [2], chunks: [2], dtype: "<f4", fillValue: -0 });
    expect(text((await store.get("a/.zarray"))!)).toContain('"fill_value": -0.0,');
    const got = await (await openArray(store, "a")).get();
    expect(f32bits(got.data as Float32Array)).toEqual([0x8000_0000, 0x8000_0000]);
  });
});

describe("v2 fill values from v3 bit patterns", () => {
  it('a float NaN payload is "NaN"; a complex part in hex is "NaN" or its number', () => {
    expect(v2FillValueJson(float32, float32.parseFillValue("0x7fc00001", "f"))).toBe("NaN");
    expect(v2FillValueJson(complex64, complex64.parseFillValue(["0xffc00000", 1.5], "f"))).toEqual([
      "NaN",
      1.5,
    ]);
    expect(
      v2FillValueJson(complex64, complex64.parseFillValue(["0x3f800000", "0xff800000"], "f")),
    ).toEqual([1, "-Infinity"]);
  });
});

describe("delta on floats keeps numpy's NaN", () => {
  it("after a NaN every decoded element is that NaN (quieted), bit for bit as numcodecs' cumsum", async () => {
    const store = new MemoryStore();
    const a = await createArrayV2(store, "d", {
      shape: [6],
      chunks: [6],
      dtype: "<f4",
      filters: [{ id: "delta", dtype: "<f4" }],
    });
    const data = new Float32Array(6);
    new Uint32Array(data.buffer).set([
      0x3f800000, // 1
      0x7fc00001, // NaN, payload 1
      0x40000000, // 2
      0xffc00000, // -NaN
      0x7fc12345, // NaN, another payload
      0x40400000, // 3
    ]);
    await a.set(null, { data, shape: [6] });
    const got = await (await openArray(store, "d")).get();
    // numpy: diff keeps x[i]'s NaN when x[i] is NaN, else x[i-1]'s; cumsum keeps the
    // running sum's NaN once it has one. So from element 1 on, the first NaN.
    expect(f32bits(got.data as Float32Array)).toEqual([
      0x3f800000, 0x7fc00001, 0x7fc00001, 0x7fc00001, 0x7fc00001, 0x7fc00001,
    ]);
  });
});

describe("non-finite attribute values, as zarr-python writes them", () => {
  it("a hierarchy whose .zattrs and .zmetadata hold bare NaN/Infinity tokens opens, and they are written back the same way", async () => {
    const { openGroup } = await import("@zarr/core");
    const { resolveStore } = await import("@zarr/core/store");
    const { consolidate, createGroupV2 } = await import("../src/index.js");
    const store = new MemoryStore();
    const s = resolveStore(store);
    const enc = (t: string) => new TextEncoder().encode(t);
    // What zarr-python 2.13 writes for g.attrs["m"] = nan; a.attrs["x"] = inf (json.dumps).
    await s.set(".zgroup", enc('{\n    "zarr_format": 2\n}'));
    await s.set(".zattrs", enc('{\n    "m": NaN\n}'));
    await s.set(
      "a/.zarray",
      enc(
        '{"chunks":[2],"compressor":null,"dtype":"<f8","fill_value":"NaN","filters":null,"order":"C","shape":[2],"zarr_format":2}',
      ),
    );
    await s.set("a/.zattrs", enc('{"x": Infinity, "y": [-Infinity, 1.5]}'));
    await consolidate(store);
    expect(text((await s.get(".zmetadata"))!)).toMatch(/"x": Infinity/);
    const g = await openGroup(store);
    expect(g.attrs.m).toBeNaN();
    expect((await g.get("a")).attrs).toEqual({
      x: Number.POSITIVE_INFINITY,
      y: [Number.NEGATIVE_INFINITY, 1.5],
    });
    await createGroupV2(store, "b", { attributes: { z: Number.NaN } });
    expect(text((await s.get("b/.zattrs"))!)).toBe('{\n    "z": NaN\n}');
  });
});

describe("what zarr-python would read otherwise", () => {
  it("refuses a filter whose dtype has another byte order than its input (numcodecs reinterprets the bytes)", async () => {
    const store = new MemoryStore();
    const cases: [string, JsonObject[]][] = [
      [">i4", [{ id: "delta", dtype: "<i4" }]],
      [">f8", [{ id: "fixedscaleoffset", dtype: "<f8", scale: 10, offset: 0 }]],
      [">f8", [{ id: "astype", encode_dtype: "<f4", decode_dtype: "<f8" }]],
      // The second filter's input is the first one's big-endian output.
      [
        "<i4",
        [
          { id: "delta", dtype: "<i4", astype: ">i2" },
          { id: "delta", dtype: "<i2" },
        ],
      ],
    ];
    for (const [dtype, filters] of cases) {
      await expect(
        createArrayV2(store, "a", { shape: [4], chunks: [2], dtype, filters, overwrite: true }),
      ).rejects.toThrow(/byte order|endian/);
    }
    // Same byte order, or one-byte types: fine.
    await createArrayV2(store, "b", {
      shape: [4],
      chunks: [2],
      dtype: ">i4",
      filters: [{ id: "delta", dtype: ">i4" }],
    });
    await createArrayV2(store, "c", {
      shape: [4],
      chunks: [2],
      dtype: "<i4",
      filters: [{ id: "delta", dtype: "<i4", astype: ">i2" }],
    });
  });

  it("refuses a datetime dtype without a unit", async () => {
    await expect(
      createArrayV2(new MemoryStore(), "d", {
        shape: [3],
        chunks: [2],
        dtype: "<M8",
        fillValue: 0,
      }),
    ).rejects.toThrow(/no time unit/);
  });
});

describe("complex fill values zarr-python 2 computes as re + 1j * im", () => {
  it("arrays whose fill it would read otherwise (infinite or zero imaginary part) store every chunk", async () => {
    const store = new MemoryStore();
    const cases: [string, JsonValue, boolean][] = [
      ["inf", [1, "-Infinity"], true],
      ["negzero", [2, -0], true],
      ["nan-im", [1, "NaN"], true],
      ["plain", [2, 1], false],
      ["nan-re", ["NaN", 1], false],
    ];
    for (const [name, fill, keeps] of cases) {
      const a = await createArrayV2(store, name, {
        shape: [2],
        chunks: [2],
        dtype: "<c16",
        fillValue: fill,
      });
      const [re, im] = (fill as JsonValue[]).map(Number);
      await a.set(null, Float64Array.of(re, im, re, im));
      expect([name, (await store.get(`${name}/0`)) !== undefined]).toEqual([name, keeps]);
      const back = await (await openArray(store, name)).get();
      expect(Object.is((back.data as Float64Array)[1], im)).toBe(true);
    }
  });
});

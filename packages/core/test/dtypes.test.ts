import {
  type DataArray,
  type DataType,
  type JsonValue,
  MetadataError,
  NotRegisteredError,
  registerDataType,
  ValueError,
} from "@zarr/core";
import { dataTypeRegistry, getBuiltinDataType, resolveDataType } from "@zarr/core/internal";
import { findPython, pythonSkipReason, runPython } from "@zarr/test-utils";
import { afterEach, describe, expect, it } from "vitest";

const python = findPython(["numpy"]);
if (!python) console.warn(pythonSkipReason(["numpy"]));

const dt = (name: string): DataType => resolveDataType(name, "test: data_type");
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

const FIXED = [
  "bool",
  "int8",
  "int16",
  "int32",
  "int64",
  "uint8",
  "uint16",
  "uint32",
  "uint64",
  "float16",
  "float32",
  "float64",
  "complex64",
  "complex128",
];

describe("resolveDataType", () => {
  it.each(FIXED)("%s: itemSize, width and representation", (name) => {
    const t = dt(name);
    expect(t.name).toBe(name);
    expect(t.toJSON()).toBe(name);
    const data = t.allocate(3);
    expect(ArrayBuffer.isView(data)).toBe(true);
    expect((data as Uint8Array).length).toBe(3 * t.width);
    expect(t.slotBytes * t.width).toBe((data as Uint8Array).byteLength / 3);
  });

  it("sizes", () => {
    expect(dt("float16")).toMatchObject({ itemSize: 2, width: 1, slotBytes: 4 });
    expect(dt("complex64")).toMatchObject({ itemSize: 8, width: 2, slotBytes: 4 });
    expect(dt("complex128")).toMatchObject({ itemSize: 16, width: 2, slotBytes: 8 });
    expect(dt("r24")).toMatchObject({ itemSize: 3, width: 3, slotBytes: 1, kind: "raw" });
    expect(dt("string")).toMatchObject({ itemSize: null, kind: "string" });
    expect(dt("bytes")).toMatchObject({ itemSize: null, kind: "bytes" });
    expect(dt("r8")).toBe(dt("r8"));
  });

  it("accepts the {name} object form", () => {
    expect(resolveDataType({ name: "int16" }, "x")).toBe(dt("int16"));
    expect(resolveDataType({ name: "int16", configuration: {} }, "x")).toBe(dt("int16"));
  });

  it.each([
    [5, "5"],
    [null, "null"],
    [["int8"], '["int8"]'],
    [{ configuration: {} }, "name"],
    [{ name: "int8", extra: 1 }, "extra"],
    [{ name: "int8", configuration: 1 }, "configuration"],
    [{ name: "int8", configuration: { x: 1 } }, "no configuration"],
    ["r0", "r0"],
    ["r12", "r12"],
    ["r", undefined],
  ])("malformed %j is a MetadataError", (json, shown) => {
    let error: unknown;
    try {
      resolveDataType(json as JsonValue, "a/zarr.json: data_type");
    } catch (e) {
      error = e;
    }
    if (shown === undefined) {
      expect(error).toBeInstanceOf(NotRegisteredError);
      return;
    }
    expect(error).toBeInstanceOf(MetadataError);
    expect((error as Error).message).toContain("a/zarr.json: data_type");
    expect((error as Error).message).toContain(shown);
  });

  it("unknown names are NotRegisteredError with a hint", () => {
    expect(() => resolveDataType("numpy.datetime64", "p")).toThrow(/@zarr\/v2-compat/);
    expect(() => resolveDataType("nope", "p")).toThrow(NotRegisteredError);
  });

  describe("registry", () => {
    afterEach(() => dataTypeRegistry.unregister("test.ticks"));
    it("resolves registered extensions, including resolvers of configured types", () => {
      const base = dt("int64");
      const ext = {
        ...Object.create(Object.getPrototypeOf(base)),
        ...base,
        name: "test.ticks",
        resolve(json: JsonValue) {
          const unit = (json as { configuration?: { unit?: string } }).configuration?.unit;
          return unit === "ns" ? base : undefined;
        },
      } as unknown as DataType;
      registerDataType(ext);
      expect(resolveDataType({ name: "test.ticks", configuration: { unit: "ns" } }, "p")).toBe(
        base,
      );
      expect(() =>
        resolveDataType({ name: "test.ticks", configuration: { unit: "s" } }, "p"),
      ).toThrow(MetadataError);
    });
  });

  it("getBuiltinDataType does not consult the registry", () => {
    expect(getBuiltinDataType("uint16")).toBe(dt("uint16"));
    expect(getBuiltinDataType("r16")).toBe(dt("r16"));
    expect(getBuiltinDataType("test.ticks")).toBeUndefined();
    expect(getBuiltinDataType("r7")).toBeUndefined();
  });
});

describe("v3 core: fill values", () => {
  const roundTrips: [string, JsonValue, JsonValue?][] = [
    ["bool", true],
    ["bool", false],
    ["int8", -128],
    ["int8", 127],
    ["uint8", 255],
    ["int16", -32768],
    ["uint16", 65535],
    ["int32", -2147483648],
    ["uint32", 4294967295],
    ["int64", -9223372036854775808n],
    ["int64", 9223372036854775807n],
    ["int64", 9007199254740991],
    ["uint64", 18446744073709551615n],
    ["uint64", 0],
    ["float32", 0.5],
    ["float32", 0.1, 0.10000000149011612], // rounded to float32
    ["float32", -0],
    ["float32", "NaN"],
    ["float32", "0x7fc00000", "NaN"], // the canonical NaN has a name
    ["float32", "0x7fc00001"], // NaN payloads survive
    ["float32", "0xffc00000"], // negative NaN
    ["float32", "0x7f800001"], // signaling NaN
    ["float32", "0x3f800000", 1],
    ["float32", "Infinity"],
    ["float32", "-Infinity"],
    ["float32", 1e39, "Infinity"], // rounds to infinity in float32
    ["float64", 0.1],
    ["float64", "0x7ff8000000000001"],
    ["float64", "0xFFF0000000000000", "-Infinity"],
    ["float64", 18446744073709551615n, 18446744073709552000],
    ["float16", 0.1, 0.0999755859375],
    ["float16", 65504],
    ["float16", 70000, "Infinity"],
    ["float16", "NaN"],
    ["float16", "0x7e00", "NaN"],
    ["float16", "0x7c01"], // signaling NaN of float16
    ["float16", "0xfe01"],
    ["float16", "0x3c00", 1],
    ["float16", -0],
    ["complex64", [1, 2]],
    ["complex64", ["-Infinity", "NaN"]],
    ["complex128", ["0x7ff8000000000001", -0]],
    ["r8", [7]],
    ["r24", [1, 2, 255]],
    ["r16", "AQI=", [1, 2]], // base64 accepted
    ["string", ""],
    ["string", "héllo"],
    ["bytes", [1, 2, 3]],
    ["bytes", "AQID", [1, 2, 3]],
    ["variable_length_bytes", "AQID"],
    ["variable_length_bytes", [1, 2, 3], "AQID"],
  ];
  it.each(roundTrips)("%s: %s", (name, json, expected) => {
    const t = dt(name);
    const fill = t.parseFillValue(json, "fill_value");
    const back = t.fillValueToJSON(fill);
    expect(back).toStrictEqual(expected === undefined ? json : expected);
    // Parsing the written form gives the same bits.
    expect(hex(t.parseFillValue(back, "fill_value").bits)).toBe(hex(fill.bits));
  });

  it("keeps float bits exactly", () => {
    const f = dt("float32").parseFillValue("0x7fa00001", "fill_value");
    expect(hex(f.bits)).toBe("0100a07f");
    const h = dt("float16").parseFillValue("0x7c01", "fill_value");
    expect(hex(h.bits)).toBe("0020807f"); // float32 0x7f802000
    const z = dt("float64").parseFillValue(-0, "fill_value");
    expect(hex(z.bits)).toBe("0000000000000080");
  });

  it("values", () => {
    expect(dt("uint64").parseFillValue(2n ** 64n - 1n, "f").value).toBe(2n ** 64n - 1n);
    expect(dt("int64").parseFillValue(5, "f").value).toBe(5n);
    expect(dt("complex64").parseFillValue([1, "Infinity"], "f").value).toEqual([
      1,
      Number.POSITIVE_INFINITY,
    ]);
    expect(dt("r16").parseFillValue([1, 2], "f").value).toEqual(Uint8Array.of(1, 2));
    expect(Number.isNaN(dt("float16").parseFillValue("0x7c01", "f").value)).toBe(true);
  });

  it("defaults", () => {
    for (const name of [...FIXED, "r24"]) {
      const t = dt(name);
      const d = t.defaultFillValue();
      expect(d.bits.every((b) => b === 0)).toBe(true);
      expect(hex(t.parseFillValue(t.fillValueToJSON(d), "f").bits)).toBe(hex(d.bits));
    }
    expect(dt("string").defaultFillValue().value).toBe("");
    expect(dt("bytes").fillValueToJSON(dt("bytes").defaultFillValue())).toEqual([]);
  });
});

describe("fromScalar", () => {
  it.each([
    ["bool", true, true],
    ["bool", 1, true],
    ["int8", -128, -128],
    ["uint32", 4294967295, 4294967295],
    ["int64", 5, 5n],
    ["int64", -(2n ** 63n), -(2n ** 63n)],
    ["uint64", 2n ** 64n - 1n, 2n ** 64n - 1n],
    ["float32", 0.1, Math.fround(0.1)],
    ["float16", 0.1, 0.0999755859375],
    ["float64", 3n, 3],
    ["complex64", [1, 2], [1, 2]],
    ["complex128", 3, [3, 0]],
    ["r16", Uint8Array.of(1, 2), Uint8Array.of(1, 2)],
    ["r16", [1, 2], Uint8Array.of(1, 2)],
    ["string", "x", "x"],
    ["bytes", Uint8Array.of(9), Uint8Array.of(9)],
  ])("%s accepts %s", (name, value, expected) => {
    expect(dt(name).fromScalar(value, "set").value).toStrictEqual(expected);
  });

  it.each([
    ["bool", 2],
    ["bool", "true"],
    ["int8", 128],
    ["int8", 1.5],
    ["uint8", -1],
    ["uint8", 256n],
    ["int32", 2n ** 31n],
    ["int64", 2n ** 63n],
    ["int64", 2 ** 60], // not a safe integer: may already be rounded
    ["uint64", -1n],
    ["uint64", "1"],
    ["float32", "1"],
    ["complex64", [1]],
    ["r16", Uint8Array.of(1)],
    ["r16", [1, 256]],
    ["string", 1],
    ["bytes", [1]],
  ])("%s rejects %s with ValueError", (name, value) => {
    expect(() => dt(name).fromScalar(value, "arr.set")).toThrow(ValueError);
    expect(() => dt(name).fromScalar(value, "arr.set")).toThrow(/arr\.set/);
  });

  it("NaN scalars become the canonical NaN", () => {
    expect(hex(dt("float32").fromScalar(Number.NaN, "s").bits)).toBe("0000c07f");
    expect(hex(dt("float16").fromScalar(Number.NaN, "s").bits)).toBe("0000c07f");
  });
});

describe("fill, isFill and getScalar", () => {
  it.each([...FIXED, "r24", "r40"])("%s: fill a region, compare bit-exactly", (name) => {
    const t = dt(name);
    const fillJson: Record<string, JsonValue> = {
      bool: true,
      float16: "0x7c01",
      float32: "0x7fc00001",
      float64: "0x7ff8000000000001",
      complex64: [1, "0x7fc00001"],
      complex128: ["NaN", -0],
      r24: [1, 2, 3],
      r40: [1, 2, 3, 4, 5],
    };
    const fill = t.parseFillValue(fillJson[name] ?? 7, "f");
    // Odd sizes and offsets exercise the unaligned head/tail paths.
    for (const [n, start, end] of [
      [1, 0, 1],
      [7, 1, 6],
      [37, 3, 36],
      [100, 0, 100],
    ]) {
      const data = t.allocate(n);
      expect(t.isFill(data, fill, start, end)).toBe(false);
      t.fill(data, fill, start, end);
      expect(t.isFill(data, fill, start, end)).toBe(true);
      expect(t.isFill(data, t.defaultFillValue(), 0, start)).toBe(true);
      expect(t.isFill(data, t.defaultFillValue(), end, n)).toBe(true);
      if (end - start > 1) {
        // Flip one bit of one element in the middle.
        const bytes = new Uint8Array(
          (data as Uint8Array).buffer,
          (data as Uint8Array).byteOffset,
          (data as Uint8Array).byteLength,
        );
        const eb = t.width * t.slotBytes;
        const at = (start + Math.floor((end - start) / 2)) * eb + eb - 1;
        bytes[at] ^= 1;
        expect(t.isFill(data, fill, start, end)).toBe(false);
        bytes[at] ^= 1;
      }
    }
    const one = t.allocate(1);
    t.fill(one, fill, 0, 1);
    const s = t.getScalar(one, 0);
    if (typeof s === "number" && Number.isNaN(s)) expect(Number.isNaN(fill.value)).toBe(true);
    else expect(s).toStrictEqual(fill.value);
  });

  it("isFill distinguishes -0 from 0 and NaN payloads", () => {
    const t = dt("float32");
    const data = t.allocate(4);
    t.fill(data, t.parseFillValue(-0, "f"), 0, 4);
    expect(t.isFill(data, t.parseFillValue(0, "f"), 0, 4)).toBe(false);
    t.fill(data, t.parseFillValue("0x7fc00001", "f"), 0, 4);
    expect(t.isFill(data, t.parseFillValue("NaN", "f"), 0, 4)).toBe(false);
  });

  it("works on subarray views at any offset", () => {
    const t = dt("int16");
    const buf = t.allocate(11) as Int16Array;
    const view = buf.subarray(3, 10);
    const fill = t.parseFillValue(-2, "f");
    t.fill(view, fill, 0, 7);
    expect(Array.from(buf)).toEqual([0, 0, 0, -2, -2, -2, -2, -2, -2, -2, 0]);
    expect(t.isFill(view, fill, 0, 7)).toBe(true);
  });

  it("variable-size types", () => {
    const s = dt("string");
    const data = s.allocate(4);
    expect(data).toEqual(["", "", "", ""]);
    s.fill(data, s.parseFillValue("x", "f"), 1, 3);
    expect(data).toEqual(["", "x", "x", ""]);
    expect(s.isFill(data, s.parseFillValue("x", "f"), 1, 3)).toBe(true);
    expect(s.isFill(data, s.parseFillValue("x", "f"), 0, 3)).toBe(false);
    const b = dt("bytes");
    const bd = b.allocate(2);
    b.fill(bd, b.parseFillValue([1, 2], "f"), 0, 2);
    expect(b.isFill(bd, b.parseFillValue("AQI=", "f"), 0, 2)).toBe(true);
    expect(b.getScalar(bd, 1)).toEqual(Uint8Array.of(1, 2));
  });

  it("rejects out-of-range regions and wrong representations", () => {
    const t = dt("int32");
    expect(() => t.fill(t.allocate(2), t.defaultFillValue(), 0, 3)).toThrow(ValueError);
    expect(() => t.isFill(new Float32Array(2), t.defaultFillValue(), 0, 2)).toThrow(ValueError);
    expect(() => t.allocate(-1)).toThrow(ValueError);
    expect(() => dt("string").fill(["a"], dt("string").defaultFillValue(), 0, 2)).toThrow(
      ValueError,
    );
  });
});

describe("toBytes / fromBytes", () => {
  it("little-endian is zero-copy when aligned, copies when not", () => {
    const t = dt("int32");
    const data = Int32Array.of(1, 2, 3);
    const bytes = t.toBytes!(data, true);
    expect(bytes.buffer).toBe(data.buffer);
    const back = t.fromBytes!(bytes, 3, true) as Int32Array;
    expect(back.buffer).toBe(data.buffer);
    const unaligned = new Uint8Array(13).subarray(1);
    unaligned.set(bytes);
    const copied = t.fromBytes!(unaligned, 3, true) as Int32Array;
    expect(Array.from(copied)).toEqual([1, 2, 3]);
    expect(copied.buffer).not.toBe(unaligned.buffer);
  });

  it("checks the byte length", () => {
    expect(() => dt("int32").fromBytes!(new Uint8Array(7), 2, true)).toThrow(/expected 8 bytes/);
    expect(() => dt("float16").fromBytes!(new Uint8Array(3), 2, false)).toThrow(/expected 4 bytes/);
  });

  it("bool: nonzero bytes read as true (normalized to 1, without touching the input)", () => {
    const input = Uint8Array.of(0, 1, 2, 255);
    const out = dt("bool").fromBytes!(input, 4, true) as Uint8Array;
    expect(Array.from(out)).toEqual([0, 1, 1, 1]);
    expect(Array.from(input)).toEqual([0, 1, 2, 255]);
  });

  it("r<N> ignores byte order", () => {
    const t = dt("r24");
    const raw = Uint8Array.of(1, 2, 3, 4, 5, 6);
    expect(Array.from(t.fromBytes!(raw, 2, false) as Uint8Array)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(Array.from(t.toBytes!(raw, false))).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("float16 keeps NaN payloads through bytes", () => {
    const t = dt("float16");
    const halves = Uint16Array.of(0x7c01, 0xfe00, 0x7e55, 0x0001, 0x8000, 0x3c00);
    for (const le of [true, false]) {
      const bytes = new Uint8Array(halves.buffer.slice(0));
      if (!le)
        for (let i = 0; i < bytes.length; i += 2)
          [bytes[i], bytes[i + 1]] = [bytes[i + 1], bytes[i]];
      const data = t.fromBytes!(bytes, 6, le);
      expect(hex(t.toBytes!(data, le))).toBe(hex(bytes));
    }
  });
});

/** Element values per type, as numpy understands them in JSON. */
const SAMPLES: Record<string, { np: string; values: JsonValue[] }> = {
  bool: { np: "bool", values: [true, false, true, true] },
  int8: { np: "i1", values: [-128, -1, 0, 127] },
  int16: { np: "i2", values: [-32768, -2, 1, 32767, 258] },
  int32: { np: "i4", values: [-2147483648, -2, 1, 2147483647, 16909060] },
  int64: {
    np: "i8",
    values: ["-9223372036854775808", "-2", "1", "9223372036854775807", "72623859790382856"],
  },
  uint8: { np: "u1", values: [0, 1, 128, 255] },
  uint16: { np: "u2", values: [0, 1, 258, 65535] },
  uint32: { np: "u4", values: [0, 1, 16909060, 4294967295] },
  uint64: { np: "u8", values: ["0", "1", "72623859790382856", "18446744073709551615"] },
  float16: {
    np: "f2",
    values: [0, "-0", 1, -2.5, 65504, 6.103515625e-5, 2 ** -24, "inf", "-inf"],
  },
  float32: {
    np: "f4",
    values: [0, "-0", 1.5, -3.25e-20, 3.4028234663852886e38, 1e-45, "inf", "-inf"],
  },
  float64: { np: "f8", values: [0, "-0", 0.1, -1e300, 5e-324, "inf", "-inf"] },
  complex64: {
    np: "c8",
    values: [
      [1, 2],
      [-0.5, "-0"],
      ["inf", -1e-3],
    ],
  },
  complex128: {
    np: "c16",
    values: [
      [1, 2],
      [-0.1, 1e300],
      [0, "-inf"],
    ],
  },
};

function toData(name: string, values: JsonValue[]): DataArray {
  const t = dt(name);
  const data = t.allocate(values.length);
  const num = (v: JsonValue) =>
    v === "inf"
      ? Number.POSITIVE_INFINITY
      : v === "-inf"
        ? Number.NEGATIVE_INFINITY
        : v === "-0"
          ? -0
          : (v as number);
  values.forEach((v, i) => {
    const scalar =
      typeof v === "string" && /^-?[0-9]+$/.test(v) && v !== "-0"
        ? BigInt(v)
        : Array.isArray(v)
          ? v.map(num)
          : num(v);
    t.fill(data, t.fromScalar(scalar, "sample"), i, i + 1);
  });
  return data;
}

describe.skipIf(!python)("toBytes / fromBytes against numpy tobytes()", () => {
  const names = Object.keys(SAMPLES);
  const script = `import sys, json, numpy as np
def conv(v):
    if isinstance(v, list): return complex(conv(v[0]), conv(v[1]))
    if v == "inf": return float("inf")
    if v == "-inf": return float("-inf")
    if v == "-0": return -0.0
    if isinstance(v, str): return int(v)
    return v
out = {}
for name, s in json.load(sys.stdin).items():
    vals = [conv(v) for v in s["values"]]
    out[name] = {}
    for order in "<>":
        dtype = np.dtype(order + s["np"]) if s["np"] != "bool" else np.dtype("bool")
        out[name][order] = np.array(vals, dtype=dtype).tobytes().hex()
print(json.dumps(out))`;
  const expected: Record<string, Record<"<" | ">", string>> = python
    ? JSON.parse(
        runPython(python, script, new TextEncoder().encode(JSON.stringify(SAMPLES))).toString(),
      )
    : {};

  it.each(
    names.flatMap((n) => [
      [n, true],
      [n, false],
    ]),
  )("%s little-endian=%s", (name, le) => {
    const t = dt(name);
    const data = toData(name, SAMPLES[name].values);
    const bytes = t.toBytes!(data, le as boolean);
    expect(hex(bytes)).toBe(expected[name][le ? "<" : ">"]);
    // And back, bit for bit, from numpy's bytes at an unaligned offset too.
    const npBytes = Buffer.from(expected[name][le ? "<" : ">"], "hex");
    const padded = new Uint8Array(npBytes.length + 1);
    padded.set(npBytes, 1);
    for (const src of [new Uint8Array(npBytes), padded.subarray(1)]) {
      const back = t.fromBytes!(src, SAMPLES[name].values.length, le as boolean);
      expect(hex(t.toBytes!(back, true))).toBe(hex(t.toBytes!(data, true)));
    }
  });
});

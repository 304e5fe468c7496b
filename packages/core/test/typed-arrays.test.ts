/**
 * Arrays typed by data type (issue 17): the type map (`DataTypeMap`) says what
 * each built-in data type's `allocate()` returns, `openArray` checks `dtype`
 * at run time, and `is()` narrows. The type-level half is in
 * `types/array-types.test-d.ts`, compiled by `types.test.ts`.
 */
import {
  createArray,
  type DataArrayOf,
  type DataTypeMap,
  MemoryStore,
  openArray,
  ValueError,
  type ZarrArray,
} from "@zarr/core";
import { getBuiltinDataType } from "@zarr/core/internal";
import { describe, expect, it } from "vitest";

/**
 * For every name of the type map, an array of the type the map claims, built
 * by hand: the compiler checks each against `DataArrayOf<name>` (the typed
 * arrays are told apart by their `Symbol.toStringTag`), and the test compares
 * it with what the data type allocates. A name added to the map without an
 * entry here does not compile.
 */
const CLAIMED: { [K in keyof DataTypeMap]: () => DataArrayOf<K> } = {
  bool: () => new Uint8Array(2),
  int8: () => new Int8Array(2),
  int16: () => new Int16Array(2),
  int32: () => new Int32Array(2),
  int64: () => new BigInt64Array(2),
  uint8: () => new Uint8Array(2),
  uint16: () => new Uint16Array(2),
  uint32: () => new Uint32Array(2),
  uint64: () => new BigUint64Array(2),
  float16: () => new Float32Array(2),
  float32: () => new Float32Array(2),
  float64: () => new Float64Array(2),
  complex64: () => new Float32Array(4),
  complex128: () => new Float64Array(4),
  string: () => ["", ""],
  variable_length_utf8: () => ["", ""],
  bytes: () => [new Uint8Array(0), new Uint8Array(0)],
  variable_length_bytes: () => [new Uint8Array(0), new Uint8Array(0)],
};

/** What a data type's array holds, as far as a test can tell: constructor, length, element types. */
function shapeOf(data: unknown): { ctor: string; length: number; elements: string[] } {
  const arr = data as ArrayLike<unknown>;
  const elements = Array.isArray(data)
    ? [...new Set(data.map((e) => (e === null ? "null" : (e?.constructor?.name ?? typeof e))))]
    : [];
  return { ctor: (data as object).constructor.name, length: arr.length, elements };
}

describe("the data type map matches allocate()", () => {
  for (const [name, claimed] of Object.entries(CLAIMED)) {
    it(name, () => {
      const dt = getBuiltinDataType(name);
      expect(dt, `${name} is a built-in data type`).toBeDefined();
      const actual = dt?.allocate(2);
      expect(shapeOf(actual)).toEqual(shapeOf(claimed()));
      expect(Object.getPrototypeOf(actual)).toBe(Object.getPrototypeOf(claimed()));
    });
  }

  it("every built-in name is in the map", () => {
    const names = [
      ...["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"],
      ...["float16", "float32", "float64", "complex64", "complex128"],
      ...["string", "bytes", "variable_length_utf8", "variable_length_bytes"],
    ];
    expect(Object.keys(CLAIMED).sort()).toEqual(names.sort());
  });

  it("r<N>: a Uint8Array of N/8 bytes per element", () => {
    const claimed: DataArrayOf<"r24"> = new Uint8Array(6);
    for (const name of ["r8", "r24", "r64"] as const) {
      const data = getBuiltinDataType(name)?.allocate(2);
      expect(Object.getPrototypeOf(data)).toBe(Object.getPrototypeOf(claimed));
      expect(data?.length).toBe(2 * (Number(name.slice(1)) / 8));
    }
  });
});

describe("openArray with dtype", () => {
  async function store(): Promise<MemoryStore> {
    const s = new MemoryStore();
    await createArray(s, "f", { shape: [3], dataType: "float32", fillValue: 1.5 });
    await createArray(s, "s", { shape: [2], dataType: "variable_length_utf8", fillValue: "x" });
    return s;
  }

  it("returns the array when the data type matches", async () => {
    const s = await store();
    const a = await openArray(s, "f", { dtype: "float32" });
    const { data } = await a.get();
    expect(data).toBeInstanceOf(Float32Array);
    expect(Array.from(data)).toEqual([1.5, 1.5, 1.5]);
  });

  it("throws a ValueError naming the path, the expected and the stored data type", async () => {
    const s = await store();
    const error = await openArray(s, "f", { dtype: "int32" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValueError);
    expect((error as ValueError).path).toBe("f");
    expect((error as ValueError).message).toBe(`"f" has data type float32, expected int32`);
  });

  it("string and bytes accept zarr-python 3.0's names", async () => {
    const s = await store();
    const a = await openArray(s, "s", { dtype: "string" });
    expect((await a.get()).data).toEqual(["x", "x"]);
    await expect(openArray(s, "s", { dtype: "bytes" })).rejects.toThrow(ValueError);
  });

  it("without dtype, is() narrows", async () => {
    const s = await store();
    const a: ZarrArray = await openArray(s, "f");
    expect(a.is("float64")).toBe(false);
    expect(a.is("float32")).toBe(true);
    if (!a.is("float32")) throw new Error("unreachable");
    const data: Float32Array = (await a.get()).data;
    expect(data).toBeInstanceOf(Float32Array);
    const strings = await openArray(s, "s");
    expect(strings.is("string") && strings.is("variable_length_utf8")).toBe(true);
  });
});

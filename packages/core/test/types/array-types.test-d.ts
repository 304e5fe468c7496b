/**
 * Type tests of arrays typed by data type (issue 17). Nothing here runs: the
 * file is checked by `tsc` (`types.test.ts` compiles it in every test run,
 * and `pnpm typecheck` covers it too). `expectTypeOf` fails to compile when a
 * type differs, and every `@ts-expect-error` fails to compile when the line
 * below it stops being an error, so a regression that widens a type (e.g.
 * `get()` back to the union `DataArray`) turns the test red.
 */
import {
  type ArrayValue,
  createArray,
  type DataArray,
  type DataArrayOf,
  type DataTypeName,
  type Group,
  type MemoryStore,
  type NDArray,
  open,
  openArray,
  type Scalar,
  type ScalarOf,
  type ZarrArray,
} from "@zarr/core";
import { expectTypeOf } from "vitest";

declare const store: MemoryStore;

// --- The type map -----------------------------------------------------------

expectTypeOf<DataArrayOf<"bool">>().toEqualTypeOf<Uint8Array>();
expectTypeOf<DataArrayOf<"int8">>().toEqualTypeOf<Int8Array>();
expectTypeOf<DataArrayOf<"int16">>().toEqualTypeOf<Int16Array>();
expectTypeOf<DataArrayOf<"int32">>().toEqualTypeOf<Int32Array>();
expectTypeOf<DataArrayOf<"int64">>().toEqualTypeOf<BigInt64Array>();
expectTypeOf<DataArrayOf<"uint8">>().toEqualTypeOf<Uint8Array>();
expectTypeOf<DataArrayOf<"uint16">>().toEqualTypeOf<Uint16Array>();
expectTypeOf<DataArrayOf<"uint32">>().toEqualTypeOf<Uint32Array>();
expectTypeOf<DataArrayOf<"uint64">>().toEqualTypeOf<BigUint64Array>();
expectTypeOf<DataArrayOf<"float16">>().toEqualTypeOf<Float32Array>();
expectTypeOf<DataArrayOf<"float32">>().toEqualTypeOf<Float32Array>();
expectTypeOf<DataArrayOf<"float64">>().toEqualTypeOf<Float64Array>();
expectTypeOf<DataArrayOf<"complex64">>().toEqualTypeOf<Float32Array>();
expectTypeOf<DataArrayOf<"complex128">>().toEqualTypeOf<Float64Array>();
expectTypeOf<DataArrayOf<"r8">>().toEqualTypeOf<Uint8Array>();
expectTypeOf<DataArrayOf<"r24">>().toEqualTypeOf<Uint8Array>();
expectTypeOf<DataArrayOf<"string">>().toEqualTypeOf<string[]>();
expectTypeOf<DataArrayOf<"variable_length_utf8">>().toEqualTypeOf<string[]>();
expectTypeOf<DataArrayOf<"bytes">>().toEqualTypeOf<Uint8Array[]>();
expectTypeOf<DataArrayOf<"variable_length_bytes">>().toEqualTypeOf<Uint8Array[]>();
// Not known statically: the union.
expectTypeOf<DataArrayOf<"numpy.datetime64">>().toEqualTypeOf<DataArray>();
expectTypeOf<DataArrayOf<string>>().toEqualTypeOf<DataArray>();
expectTypeOf<DataArrayOf<DataTypeName>>().toEqualTypeOf<DataArray>();
expectTypeOf<DataArrayOf>().toEqualTypeOf<DataArray>();
// A union of names gives the union of their arrays.
expectTypeOf<DataArrayOf<"float32" | "int64">>().toEqualTypeOf<Float32Array | BigInt64Array>();

expectTypeOf<ScalarOf<"float32">>().toEqualTypeOf<number>();
expectTypeOf<ScalarOf<"int32">>().toEqualTypeOf<number>();
expectTypeOf<ScalarOf<"int64">>().toEqualTypeOf<bigint | number>();
expectTypeOf<ScalarOf<"bool">>().toEqualTypeOf<boolean | 0 | 1>();
expectTypeOf<ScalarOf<"complex64">>().toEqualTypeOf<readonly [number, number] | number>();
expectTypeOf<ScalarOf<"r16">>().toEqualTypeOf<Uint8Array>();
expectTypeOf<ScalarOf<"string">>().toEqualTypeOf<string>();
expectTypeOf<ScalarOf<"bytes">>().toEqualTypeOf<Uint8Array>();
expectTypeOf<ScalarOf<"numpy.datetime64">>().toEqualTypeOf<Scalar>();
expectTypeOf<ScalarOf>().toEqualTypeOf<Scalar>();

// The typed arrays are told apart (TypeScript compares them by structure).
// @ts-expect-error an Int32Array is not a Float32Array
const notFloat32: DataArrayOf<"float32"> = new Int32Array(1);
// @ts-expect-error a Float64Array is not a Float32Array
const notFloat32b: DataArrayOf<"float32"> = new Float64Array(1);
// @ts-expect-error a BigUint64Array is not a BigInt64Array
const notInt64: DataArrayOf<"int64"> = new BigUint64Array(1);
void [notFloat32, notFloat32b, notInt64];

// --- createArray infers the data type ------------------------------------------

async function created() {
  const f32 = await createArray(store, "f32", { shape: [4], dataType: "float32" });
  expectTypeOf(f32).toEqualTypeOf<ZarrArray<"float32">>();
  const { data } = await f32.get();
  expectTypeOf(data).toEqualTypeOf<Float32Array>();
  // @ts-expect-error get().data of a float32 array is no Int32Array
  const wrong: Int32Array = data;
  void wrong;

  await f32.set(null, 1.5);
  await f32.set(null, new Float32Array(4));
  await f32.set(null, { data: new Float32Array(4), shape: [4] });
  await f32.set(null, { data: new Float32Array(8), shape: [4], stride: [2] });
  // @ts-expect-error a string into a float32 array
  await f32.set(null, "1.5");
  // @ts-expect-error an Int32Array into a float32 array
  await f32.set(null, new Int32Array(4));
  // @ts-expect-error an NDArray of another data type
  await f32.set(null, { data: new Float64Array(4), shape: [4] });
  // @ts-expect-error a bigint into a float32 array
  await f32.set(null, 1n);

  expectTypeOf(await f32.getChunk([0])).toEqualTypeOf<NDArray<Float32Array> | undefined>();
  await f32.setChunk([0], { data: new Float32Array(4) });
  // @ts-expect-error a chunk of another data type
  await f32.setChunk([0], { data: new Float64Array(4) });
  expectTypeOf((await f32.getCoordinates([[0, 1]])).data).toEqualTypeOf<Float32Array>();
  await f32.setCoordinates([[0, 1]], 2);
  await f32.setCoordinates([[0, 1]], Float32Array.of(1, 2));
  // @ts-expect-error a string at points of a float32 array
  await f32.setCoordinates([[0, 1]], "x");
  await f32.get(null, { out: new Float32Array(4) });
  // @ts-expect-error `out` of another data type
  await f32.get(null, { out: new Float64Array(4) });

  const i64 = await createArray(store, "i64", { shape: [4], dataType: "int64" });
  expectTypeOf((await i64.get()).data).toEqualTypeOf<BigInt64Array>();
  await i64.set(null, 1n);
  await i64.set(null, 1);
  await i64.set(null, new BigInt64Array(4));
  // @ts-expect-error a BigUint64Array into an int64 array
  await i64.set(null, new BigUint64Array(4));

  const u64 = await createArray(store, "u64", { shape: [4], dataType: "uint64" });
  expectTypeOf((await u64.get()).data).toEqualTypeOf<BigUint64Array>();

  const b = await createArray(store, "b", { shape: [4], dataType: "bool" });
  expectTypeOf((await b.get()).data).toEqualTypeOf<Uint8Array>();
  await b.set(null, true);
  // @ts-expect-error a string into a bool array
  await b.set(null, "true");

  const f16 = await createArray(store, "f16", { shape: [4], dataType: "float16" });
  expectTypeOf((await f16.get()).data).toEqualTypeOf<Float32Array>();

  const c64 = await createArray(store, "c64", { shape: [4], dataType: "complex64" });
  expectTypeOf((await c64.get()).data).toEqualTypeOf<Float32Array>();
  await c64.set(null, [1, 2]);
  // @ts-expect-error a complex scalar is a pair
  await c64.set(null, [1, 2, 3]);
  const c128 = await createArray(store, "c128", { shape: [4], dataType: "complex128" });
  expectTypeOf((await c128.get()).data).toEqualTypeOf<Float64Array>();

  const raw = await createArray(store, "raw", { shape: [4], dataType: "r24" });
  expectTypeOf(raw).toEqualTypeOf<ZarrArray<"r24">>();
  expectTypeOf((await raw.get()).data).toEqualTypeOf<Uint8Array>();
  await raw.set(null, Uint8Array.of(1, 2, 3));

  const s = await createArray(store, "s", { shape: [4], dataType: "string" });
  expectTypeOf((await s.get()).data).toEqualTypeOf<string[]>();
  await s.set(null, "a");
  await s.set(null, ["a", "b", "c", "d"]);
  // @ts-expect-error a number into a string array
  await s.set(null, 1);

  const bytes = await createArray(store, "bytes", { shape: [4], dataType: "bytes" });
  expectTypeOf((await bytes.get()).data).toEqualTypeOf<Uint8Array[]>();
  await bytes.set(null, new Uint8Array(2));
  // @ts-expect-error a string into a bytes array
  await bytes.set(null, "a");

  // The object form keeps the name.
  const obj = await createArray(store, "obj", { shape: [4], dataType: { name: "int16" } });
  expectTypeOf(obj).toEqualTypeOf<ZarrArray<"int16">>();

  // A name that is not a literal (e.g. read from a document): data type unknown.
  const name: string = "float32";
  const unknownName = await createArray(store, "u", { shape: [4], dataType: name });
  expectTypeOf((await unknownName.get()).data).toEqualTypeOf<DataArray>();
  const json: unknown = JSON.parse('"float32"');
  const fromJson = await createArray(store, "j", { shape: [4], dataType: json as string });
  expectTypeOf(fromJson).toEqualTypeOf<ZarrArray<string>>();

  // A registered data type: the union.
  const dt = await createArray(store, "dt", { shape: [4], dataType: "numpy.datetime64" });
  expectTypeOf((await dt.get()).data).toEqualTypeOf<DataArray>();
}

// --- openArray narrows with `dtype`, open does not ------------------------------

async function opened() {
  const any = await openArray(store, "a");
  expectTypeOf(any).toEqualTypeOf<ZarrArray>();
  expectTypeOf((await any.get()).data).toEqualTypeOf<DataArray>();
  await any.set(null, 1);
  await any.set(null, "x");
  expectTypeOf<ArrayValue>().toEqualTypeOf<ArrayValue<DataTypeName>>();
  // @ts-expect-error the union is not a Float32Array without narrowing
  const notNarrowed: Float32Array = (await any.get()).data;
  void notNarrowed;

  const f32 = await openArray(store, "a", { dtype: "float32" });
  expectTypeOf(f32).toEqualTypeOf<ZarrArray<"float32">>();
  expectTypeOf((await f32.get()).data).toEqualTypeOf<Float32Array>();
  const strings = await openArray(store, "s", { dtype: "string", consolidated: false });
  expectTypeOf((await strings.get()).data).toEqualTypeOf<string[]>();

  // @ts-expect-error an explicit type argument needs the `dtype` that checks it
  await openArray<"float32">(store, "a");

  // open() returns an array of unknown data type, or a group.
  const node = await open(store, "a");
  expectTypeOf(node).toEqualTypeOf<ZarrArray | Group>();

  // is() narrows.
  if (any.is("float64")) {
    expectTypeOf(any).toEqualTypeOf<ZarrArray<"float64">>();
    expectTypeOf((await any.get()).data).toEqualTypeOf<Float64Array>();
    // @ts-expect-error narrowed: a string no longer goes in
    await any.set(null, "x");
  }
  if (node.kind === "array" && node.is("int8")) {
    expectTypeOf((await node.get()).data).toEqualTypeOf<Int8Array>();
  }
}

// --- Assignability -----------------------------------------------------------

// A typed array is a ZarrArray (functions taking any array accept it) ...
function takesAny(_a: ZarrArray): void {}
declare const typed: ZarrArray<"float32">;
takesAny(typed);
// ... but an array of unknown data type is not a typed one.
function takesFloat32(_a: ZarrArray<"float32">): void {}
declare const untyped: ZarrArray;
// @ts-expect-error unknown data type: narrow with is() or open with { dtype }
takesFloat32(untyped);
declare const int32: ZarrArray<"int32">;
// @ts-expect-error another data type
takesFloat32(int32);

void [created, opened];

// --- Group.createArray infers the data type too -----------------------------------

declare const group: Group;
async function inGroup() {
  const a = await group.createArray("t", { shape: [2], dataType: "uint16" });
  expectTypeOf((await a.get()).data).toEqualTypeOf<Uint16Array>();
}
void inGroup;

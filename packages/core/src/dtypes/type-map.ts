/**
 * The static side of data types: which in-memory array and which scalar each
 * built-in data type uses, so that `ZarrArray<"float32">` reads and writes
 * `Float32Array`s. The map mirrors what each data type's `allocate()` returns
 * (a test checks every entry against it).
 *
 * | data type | `DataArrayOf` | `ScalarOf` (one element, as `set` takes it) |
 * |---|---|---|
 * | `bool` | `Uint8Array` (0/1) | `boolean` (or 0/1) |
 * | `int8`..`int32`, `uint8`..`uint32` | the matching typed array | `number` |
 * | `int64`, `uint64` | `BigInt64Array`, `BigUint64Array` | `bigint` (or a safe integer `number`) |
 * | `float16` | `Float32Array` | `number` |
 * | `float32`, `float64` | `Float32Array`, `Float64Array` | `number` |
 * | `complex64`, `complex128` | `Float32Array`, `Float64Array` of interleaved (re, im) | `[re, im]` (or a real `number`) |
 * | `r<N>` | `Uint8Array` (N/8 bytes per element) | `Uint8Array` of N/8 bytes |
 * | `string`, `variable_length_utf8` | `string[]` | `string` |
 * | `bytes`, `variable_length_bytes` | `Uint8Array[]` | `Uint8Array` |
 * | any other name (registered types) | {@link DataArray} | {@link Scalar} |
 *
 * @module
 */

import type { DataArray, JsonObject, Scalar } from "./types.js";

/**
 * The in-memory array (`data`) and the element value accepted by `set`
 * (`scalar`) of each built-in data type, by name.
 */
export interface DataTypeMap {
  bool: { data: Uint8Array; scalar: boolean | 0 | 1 };
  int8: { data: Int8Array; scalar: number };
  int16: { data: Int16Array; scalar: number };
  int32: { data: Int32Array; scalar: number };
  int64: { data: BigInt64Array; scalar: bigint | number };
  uint8: { data: Uint8Array; scalar: number };
  uint16: { data: Uint16Array; scalar: number };
  uint32: { data: Uint32Array; scalar: number };
  uint64: { data: BigUint64Array; scalar: bigint | number };
  /** Held as a `Float32Array` (every float16 is exactly a float32); binary16 when stored. */
  float16: { data: Float32Array; scalar: number };
  float32: { data: Float32Array; scalar: number };
  float64: { data: Float64Array; scalar: number };
  /** Interleaved (re, im) pairs: element `i` is `data[2 * i]`, `data[2 * i + 1]`. */
  complex64: { data: Float32Array; scalar: readonly [number, number] | number };
  /** Interleaved (re, im) pairs: element `i` is `data[2 * i]`, `data[2 * i + 1]`. */
  complex128: { data: Float64Array; scalar: readonly [number, number] | number };
  string: { data: string[]; scalar: string };
  /** zarr-python 3.0/3.1's name for `string`. */
  variable_length_utf8: { data: string[]; scalar: string };
  bytes: { data: Uint8Array[]; scalar: Uint8Array };
  /** zarr-python 3.0/3.1's name for `bytes`. */
  variable_length_bytes: { data: Uint8Array[]; scalar: Uint8Array };
}

/** A raw data type name, `r<N>` (N a positive multiple of 8): N/8 opaque bytes per element. */
export type RawDataTypeName = `r${number}`;

/** The name of a built-in data type: a key of {@link DataTypeMap}, or `r<N>`. */
export type BuiltinDataTypeName = keyof DataTypeMap | RawDataTypeName;

/**
 * A data type name: a built-in one (completed by editors), or any other string
 * (data types registered with `registerDataType`, e.g. `numpy.datetime64` from
 * `@zarr/v2-compat`), whose arrays use the union {@link DataArray}.
 */
// `string & {}` keeps the literal names as suggestions while admitting any string.
export type DataTypeName = BuiltinDataTypeName | (string & {});

/**
 * {@link DataTypeMap} for any name: registered data types (any other string)
 * use the unions, `r<N>` bytes. Looked up by indexed access rather than a
 * conditional type, so that `ZarrArray<"float32">` stays assignable to
 * `ZarrArray` (TypeScript measures indexed access as covariant).
 */
interface DataTypeLookup extends DataTypeMap {
  [name: string]: { data: DataArray; scalar: Scalar };
  [name: RawDataTypeName]: { data: Uint8Array; scalar: Uint8Array };
}

/**
 * The in-memory array of data type `D`: `Float32Array` for `"float32"`,
 * `string[]` for `"string"`, ... (see {@link DataTypeMap}); the union
 * {@link DataArray} when `D` is not known statically (`string`, or a name
 * outside the map).
 */
export type DataArrayOf<D extends DataTypeName = DataTypeName> = DataTypeLookup[D]["data"];

/**
 * One element of data type `D` as `set` accepts it: `number` for `"float32"`,
 * `bigint` for `"int64"`, `[re, im]` for `"complex64"`, ... (see
 * {@link DataTypeMap}); {@link Scalar} when `D` is not known statically.
 */
export type ScalarOf<D extends DataTypeName = DataTypeName> = DataTypeLookup[D]["scalar"];

/** A data type in metadata form: a name, or `{name, configuration}`, keeping the name's literal type. */
export type DataTypeSpec<D extends DataTypeName = DataTypeName> =
  | D
  | { readonly name: D; readonly configuration?: JsonObject };

/** Names that denote the same data type (zarr-python 3.0/3.1's names for `string` and `bytes`). */
const ALIASES: Readonly<Record<string, string>> = {
  variable_length_utf8: "string",
  variable_length_bytes: "bytes",
};

/**
 * True when a data type called `actual` satisfies a request for `expected`:
 * the same name, or an alias of it (`"string"` and `"variable_length_utf8"`,
 * `"bytes"` and `"variable_length_bytes"`, which have the same representation).
 */
export function sameDataTypeName(actual: string, expected: string): boolean {
  return actual === expected || (ALIASES[actual] ?? actual) === (ALIASES[expected] ?? expected);
}

/**
 * Data type contract. A data type describes how elements live in memory (a typed
 * array or a JS array, `width` slots per element) and how one element is
 * represented in JSON (fill values) and in bytes (the `bytes` codec).
 *
 * In-memory representations:
 * - bool: `Uint8Array` (0/1), width 1
 * - int8..int32, uint8..uint32: the matching typed array, width 1
 * - int64/uint64: `BigInt64Array` / `BigUint64Array`, width 1
 * - float16: `Float32Array` (every float16 is exactly a float32; Node 20 has no
 *   `Float16Array`), width 1; stored as IEEE binary16 by the bytes codec
 * - float32/float64: `Float32Array` / `Float64Array`, width 1
 * - complex64/complex128: `Float32Array` / `Float64Array` of interleaved
 *   (re, im) pairs, width 2
 * - r<N>: `Uint8Array`, width N/8 (raw bytes of each element)
 * - string: `string[]`; bytes: `Uint8Array[]` (variable size, width 1)
 *
 * @module
 */

/** Every typed array a data type may use. */
export type TypedArray =
  | Int8Array
  | Uint8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array;

/** The flat storage of an n-dimensional array of some data type. */
export type DataArray = TypedArray | string[] | Uint8Array[];

/**
 * One element as a JS value: boolean (bool), number (ints up to 32 bits and
 * floats), bigint (64-bit ints), `[re, im]` (complex), `Uint8Array` (r<N> and
 * bytes), string (string).
 */
export type Scalar = boolean | number | bigint | string | Uint8Array | readonly [number, number];

/** A JSON value as stored in metadata (bigints appear where JSON integers exceed 2^53). */
export type JsonValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * A parsed fill value: the user-facing scalar and, for fixed-size types, the exact
 * in-memory bits of one element (`width` slots, host byte order), so that NaN
 * payloads and -0 survive a round trip.
 */
export interface FillValue {
  readonly value: Scalar;
  /** In-memory bytes of one element (fixed-size types); empty for variable-size types. */
  readonly bits: Uint8Array;
}

/** Identifies a data type kind for code that must branch on representation. */
export type DataTypeKind =
  | "bool"
  | "int"
  | "uint"
  | "float"
  | "complex"
  | "raw"
  | "string"
  | "bytes"
  | "other";

/**
 * A data type. Built-in types are in the data type registry; extensions register
 * their own objects implementing this interface.
 */
export interface DataType {
  /** The v3 name, e.g. `"int16"`, `"r24"`, `"string"`. */
  readonly name: string;
  readonly kind: DataTypeKind;
  /** Bytes per element in its stored (bytes codec) form, or `null` when variable-size. */
  readonly itemSize: number | null;
  /** Slots of the in-memory array per element (2 for complex, N/8 for r<N>, else 1). */
  readonly width: number;
  /** Bytes per slot in memory (e.g. 4 for float16's Float32Array); 0 for JS arrays. */
  readonly slotBytes: number;
  /**
   * Optional: true when the in-memory array of `n` elements is exactly their
   * `n * itemSize` little-endian stored bytes for every input: `fromBytes(bytes,
   * n, true)` only views them (no conversion, no normalization). Uncompressed
   * chunks of such a type can then be read from a store straight into an
   * output array. Leave it out when unsure.
   */
  readonly viewsLittleEndianBytes?: boolean;
  /** Allocates an array of `n` elements (zero / false / "" / empty bytes). */
  allocate(n: number): DataArray;
  /** Parses a JSON fill value; throws `MetadataError` naming `path` when not representable. */
  parseFillValue(json: JsonValue, path: string): FillValue;
  /** Converts a JS scalar (as users pass to `set`) into a fill value; throws `ValueError`. */
  fromScalar(value: unknown, path: string): FillValue;
  /** The JSON form of a fill value, as written in metadata. */
  fillValueToJSON(fill: FillValue): JsonValue;
  /** The default fill value for new arrays (zero, false, "", ...). */
  defaultFillValue(): FillValue;
  /** Writes `fill` into elements [start, end) of `data`. */
  fill(data: DataArray, fill: FillValue, start: number, end: number): void;
  /** True when elements [start, end) of `data` all equal `fill` bit for bit. */
  isFill(data: DataArray, fill: FillValue, start: number, end: number): boolean;
  /** Reads element `i` as a scalar. */
  getScalar(data: DataArray, i: number): Scalar;
  /**
   * Optional: the JSON form of one element for display and export (e.g. `zarr get
   * --json`), for types whose scalars have no obvious JSON form (datetimes as
   * decimal strings, structured values as objects). Core's own types omit it.
   */
  toJSONValue?(value: Scalar): JsonValue;
  /** The metadata form of the data type: a name or `{name, configuration}`. */
  toJSON(): JsonValue;
  /**
   * Fixed-size types: encodes `n` elements to bytes in the given byte order
   * (the `bytes` codec). Absent for variable-size types.
   */
  toBytes?(data: DataArray, littleEndian: boolean): Uint8Array;
  /** Inverse of {@link DataType.toBytes}; `bytes.length` must be `n * itemSize`. */
  fromBytes?(bytes: Uint8Array, n: number, littleEndian: boolean): DataArray;
}

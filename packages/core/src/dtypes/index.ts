/**
 * Data types: the v3 core types, `r<N>`, the `string`/`bytes` extensions, and
 * {@link resolveDataType} which turns a `data_type` metadata value into a
 * {@link DataType} (built-ins first, then the data type registry).
 *
 * @module
 */

import { MetadataError } from "../errors.js";
import { type DataTypeResolver, dataTypeRegistry } from "../registry/index.js";
import { BoolDataType } from "./bool.js";
import { ComplexDataType } from "./complex.js";
import { FloatDataType } from "./float.js";
import { assertLittleEndianHost } from "./host.js";
import { IntegerDataType } from "./integer.js";
import { MAX_RAW_BITS, RawDataType } from "./raw.js";
import { showJson } from "./scalar-json.js";

export { showJson } from "./scalar-json.js";

import type { DataType, JsonValue } from "./types.js";
import { BytesDataType, StringDataType } from "./variable.js";

export { BoolDataType } from "./bool.js";
export { ComplexDataType } from "./complex.js";
export { FixedSizeDataType, type TypedArrayConstructor } from "./fixed.js";
export { FloatDataType } from "./float.js";
export {
  decodeFloat16,
  encodeFloat16,
  float16BitsToFloat32Bits,
  float16BitsToNumber,
  float32BitsToFloat16Bits,
  float64ToFloat16Bits,
  roundToFloat16,
} from "./float16.js";
export { assertLittleEndianHost, LITTLE_ENDIAN_HOST } from "./host.js";
export { IntegerDataType } from "./integer.js";
export { MAX_RAW_BITS, RawDataType } from "./raw.js";
export type * from "./types.js";
export {
  allocateValues,
  BytesDataType,
  MAX_VALUE_ARRAY_LENGTH,
  StringDataType,
} from "./variable.js";

/** `bool` */
export const bool: BoolDataType = /* @__PURE__ */ new BoolDataType();
/** `int8` */
export const int8: IntegerDataType = /* @__PURE__ */ new IntegerDataType(
  "int8",
  true,
  1,
  Int8Array,
);
/** `int16` */
export const int16: IntegerDataType = /* @__PURE__ */ new IntegerDataType(
  "int16",
  true,
  2,
  Int16Array,
);
/** `int32` */
export const int32: IntegerDataType = /* @__PURE__ */ new IntegerDataType(
  "int32",
  true,
  4,
  Int32Array,
);
/** `int64` (bigint scalars) */
export const int64: IntegerDataType = /* @__PURE__ */ new IntegerDataType(
  "int64",
  true,
  8,
  BigInt64Array,
);
/** `uint8` */
export const uint8: IntegerDataType = /* @__PURE__ */ new IntegerDataType(
  "uint8",
  false,
  1,
  Uint8Array,
);
/** `uint16` */
export const uint16: IntegerDataType = /* @__PURE__ */ new IntegerDataType(
  "uint16",
  false,
  2,
  Uint16Array,
);
/** `uint32` */
export const uint32: IntegerDataType = /* @__PURE__ */ new IntegerDataType(
  "uint32",
  false,
  4,
  Uint32Array,
);
/** `uint64` (bigint scalars) */
export const uint64: IntegerDataType = /* @__PURE__ */ new IntegerDataType(
  "uint64",
  false,
  8,
  BigUint64Array,
);
/** `float16` (held in memory as a `Float32Array`) */
export const float16: FloatDataType = /* @__PURE__ */ new FloatDataType(16);
/** `float32` */
export const float32: FloatDataType = /* @__PURE__ */ new FloatDataType(32);
/** `float64` */
export const float64: FloatDataType = /* @__PURE__ */ new FloatDataType(64);
/** `complex64` (interleaved float32 pairs) */
export const complex64: ComplexDataType = /* @__PURE__ */ new ComplexDataType(64);
/** `complex128` (interleaved float64 pairs) */
export const complex128: ComplexDataType = /* @__PURE__ */ new ComplexDataType(128);
/** `string` (zarr-extensions; encoded by `vlen-utf8`) */
export const string: StringDataType = /* @__PURE__ */ new StringDataType();
/** `bytes` (zarr-extensions; encoded by `vlen-bytes`) */
export const bytes: BytesDataType = /* @__PURE__ */ new BytesDataType();

/** The built-in data types by their v3 name (without the `r<N>` family). */
const BUILTINS: ReadonlyMap<string, DataType> = /* @__PURE__ */ new Map<string, DataType>(
  [
    bool,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
    float16,
    float32,
    float64,
    complex64,
    complex128,
    string,
    bytes,
    // zarr-python 3.0/3.1 names for the same extensions.
    new StringDataType("variable_length_utf8"),
    new BytesDataType("variable_length_bytes", true),
  ].map((dt) => [dt.name, dt]),
);

/**
 * Names of the data types this process knows: the built-in ones (without the
 * `r<N>` family) and those registered (for messages that list or suggest names).
 */
export function knownDataTypeNames(): string[] {
  return [...BUILTINS.keys(), ...dataTypeRegistry.names()];
}

const rawCache = new Map<number, RawDataType>();
const RAW_NAME = /^r([0-9]+)$/;

/**
 * The built-in data type called `name` (`"int16"`, `"r24"`, `"string"`, ...), or
 * `undefined`. Does not consult the registry.
 */
export function getBuiltinDataType(name: string): DataType | undefined {
  const builtin = BUILTINS.get(name);
  if (builtin) return builtin;
  const m = RAW_NAME.exec(name);
  if (!m) return undefined;
  const bits = Number(m[1]);
  if (String(bits) !== m[1] || bits === 0 || bits % 8 !== 0 || bits > MAX_RAW_BITS) {
    return undefined;
  }
  let raw = rawCache.get(bits);
  if (!raw) {
    raw = new RawDataType(bits);
    rawCache.set(bits, raw);
  }
  return raw;
}

/**
 * Resolves a `data_type` metadata value: a name, or an object `{name,
 * configuration?}` (the spec's extension form; a configuration-free object is
 * equivalent to the plain name). Built-in types and `r<N>` come first, then the
 * {@link dataTypeRegistry} by name; a registered object that also implements
 * `DataTypeResolver.resolve` is asked to resolve the full value (configuration).
 *
 * @param path - location of the value for errors, e.g. `"a/zarr.json: data_type"`.
 * @throws MetadataError when `json` is neither a string nor such an object, or
 *   names an invalid raw type (`r0`, `r12`, ...).
 * @throws NotRegisteredError when the name is unknown.
 * @throws UnsupportedError on a big-endian host.
 */
export function resolveDataType(json: JsonValue, path: string): DataType {
  assertLittleEndianHost();
  let name: string;
  let hasConfiguration = false;
  if (typeof json === "string") {
    name = json;
  } else if (typeof json === "object" && json !== null && !Array.isArray(json)) {
    const n = json.name;
    if (typeof n !== "string") {
      throw new MetadataError(`${path}: data type object must have a string "name"`, { path });
    }
    for (const key of Object.keys(json)) {
      if (key !== "name" && key !== "configuration") {
        throw new MetadataError(`${path}: unknown member "${key}" in data type object`, { path });
      }
    }
    const config = json.configuration;
    if (config !== undefined) {
      if (typeof config !== "object" || config === null || Array.isArray(config)) {
        throw new MetadataError(`${path}: data type "configuration" must be an object`, { path });
      }
      hasConfiguration = Object.keys(config).length > 0;
    }
    name = n;
  } else {
    throw new MetadataError(
      `${path}: ${showJson(json)} is not a data type (expected a name or {"name", "configuration"})`,
      { path },
    );
  }
  if (!hasConfiguration) {
    const builtin = getBuiltinDataType(name);
    if (builtin) return builtin;
    if (RAW_NAME.test(name)) {
      throw new MetadataError(
        `${path}: "${name}" is not a valid raw data type (r<N> needs N a positive multiple of 8, at most ${MAX_RAW_BITS})`,
        { path },
      );
    }
  } else if (BUILTINS.has(name) || RAW_NAME.test(name)) {
    throw new MetadataError(`${path}: data type "${name}" takes no configuration`, { path });
  }
  const registered = dataTypeRegistry.getSync(name);
  if (!registered) {
    const error = dataTypeRegistry.notRegistered(name, path);
    error.message = `${path}: ${error.message}`;
    throw error;
  }
  // A registered object that is also a DataTypeResolver handles its configuration
  // (e.g. a datetime unit); the registry stores one object per name.
  const resolver = (registered as Partial<DataTypeResolver>).resolve;
  if (typeof resolver === "function") {
    const resolved = resolver.call(registered, json, path);
    if (!resolved) {
      throw new MetadataError(`${path}: invalid data type ${showJson(json)}`, { path });
    }
    return resolved;
  }
  return registered;
}

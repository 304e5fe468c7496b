import { readFile } from "node:fs/promises";
import {
  createArray,
  createGroup,
  type DataType,
  type FillValue,
  type JsonObject,
  type JsonValue,
  NotRegisteredError,
  type Store,
} from "@zarr/core";
import { knownDataTypeNames, parseJson, resolveDataType } from "@zarr/core/internal";
import { resolveStore } from "@zarr/core/store";
import { createArrayV2, createGroupV2, parseV2DType } from "@zarr/v2-compat";
import { flag, type Io, str, type Values } from "../command.js";
import { DEFAULT_CHUNK_MAX, DEFAULT_CHUNK_TARGET } from "../commands/create.js";
import {
  applyLayoutFlags,
  type Layout,
  noFillExtra,
  serializerFor,
  writeLayout,
} from "../layout.js";
import { openStoreArg, type StoreFlags } from "../stores.js";
import { didYouMean } from "../suggest.js";
import { parseIntList, parseJsonOption, UsageError } from "../usage.js";

function objectOption(text: string | undefined, option: string): JsonObject {
  if (text === undefined) return {};
  const v = parseJsonOption(text, option);
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw new UsageError(`${option} must be a JSON object`);
  return v as JsonObject;
}

/**
 * The fill value flag: JSON when it parses (exactly: integers beyond 2^53 as
 * bigints, so a uint64 or int64 extreme keeps every digit), else the text
 * itself (NaN, 0x7fc00000, a string).
 */
function fillOption(text: string | undefined): JsonValue | undefined {
  if (text === undefined) return undefined;
  try {
    return parseJson(text, "--fill-value");
  } catch {
    return text;
  }
}

/**
 * The fill value of `dataType` that the flag's value means: JSON forms with
 * strings ("NaN", "0x7fc00001", ["Infinity", 1]) through the metadata parser,
 * which keeps exact bits; numbers, booleans and byte lists as scalars.
 */
function fillFromOption(dataType: DataType, fill: JsonValue): FillValue {
  const jsonForm =
    (typeof fill === "string" && dataType.kind !== "string") ||
    (Array.isArray(fill) && fill.some((v) => typeof v === "string"));
  return jsonForm
    ? dataType.parseFillValue(fill, "--fill-value")
    : dataType.fromScalar(fill, "--fill-value");
}

/**
 * The default chunk shape: the whole array when it is small, else the shape
 * with its longest side halved (rounding up) until a chunk holds at most
 * {@link DEFAULT_CHUNK_TARGET} bytes. `itemSize` estimates variable-size types.
 */
export function defaultChunks(shape: readonly number[], itemSize: number): number[] {
  const chunks = shape.map((n) => Math.max(n, 1));
  const bytes = () => chunks.reduce((a, b) => a * b, itemSize);
  if (bytes() <= DEFAULT_CHUNK_MAX) return chunks;
  while (bytes() > DEFAULT_CHUNK_TARGET) {
    let d = 0;
    for (let i = 1; i < chunks.length; i++) if (chunks[i] > chunks[d]) d = i;
    if (chunks[d] === 1) break; // (a single element larger than the target)
    chunks[d] = Math.ceil(chunks[d] / 2);
  }
  return chunks;
}

/**
 * `--fill-value null`: v2 only (no fill value: zarr-python reads missing chunks
 * as uninitialized memory, so every chunk is stored).
 */
function nullFill(format: string): JsonObject {
  if (format !== "2")
    throw new UsageError("--fill-value null needs --format 2 (v3 arrays always have a fill value)");
  return noFillExtra();
}

/** Creates the node described by a metadata document (`zarr.json` or `.zarray`/`.zgroup`). */
async function createFromDocument(
  store: Store,
  path: string,
  doc: JsonObject,
  file: string,
  overwrite: boolean,
  attributes: JsonObject,
): Promise<string> {
  if (doc.zarr_format === 2) {
    if (doc.shape === undefined) {
      await createGroupV2(store, path, { attributes, overwrite });
      return "group";
    }
    await createArrayV2(store, path, {
      shape: doc.shape as number[],
      chunks: doc.chunks as number[] | undefined,
      dtype: doc.dtype as JsonValue,
      compressor: (doc.compressor ?? null) as JsonObject | null,
      filters: (doc.filters ?? null) as JsonObject[] | null,
      fillValue: doc.fill_value,
      order: (doc.order as "C" | "F") ?? "C",
      dimensionSeparator: (doc.dimension_separator as "." | "/") ?? ".",
      attributes,
      overwrite,
    });
    return "array";
  }
  if (doc.zarr_format !== 3) throw new UsageError(`${file}: zarr_format must be 2 or 3`);
  const attrs = { ...((doc.attributes as JsonObject) ?? {}), ...attributes };
  if (doc.node_type === "group") {
    await createGroup(store, path, { attributes: attrs, overwrite });
    return "group";
  }
  if (doc.node_type !== "array")
    throw new UsageError(`${file}: node_type must be "array" or "group"`);
  const grid = (doc.chunk_grid as JsonObject | undefined)?.configuration as JsonObject | undefined;
  await createArray(store, path, {
    shape: doc.shape as number[],
    dataType: doc.data_type as JsonValue,
    chunkShape: grid?.chunk_shape as number[] | undefined,
    fillValue: doc.fill_value,
    codecs: doc.codecs as JsonValue[] | undefined,
    chunkKeyEncoding: doc.chunk_key_encoding as Layout["chunkKeyEncoding"],
    dimensionNames: doc.dimension_names as (string | null)[] | undefined,
    attributes: attrs,
    overwrite,
  });
  return "array";
}

/** Runs `zarr create` (its options are described by the command in `commands/create.ts`). */
export async function run(
  [storeArg, pathArg]: string[],
  values: Values,
  io: Io,
): Promise<number | undefined> {
  // "/", "a/" and "/a" name the root and "a" (messages print "/" + path).
  const path = pathArg.replace(/^\/+|\/+$/g, "");
  const store = resolveStore(await openStoreArg(storeArg, values as StoreFlags, { create: true }));
  const overwrite = flag(values, "overwrite");
  const attributes = objectOption(str(values, "attrs"), "--attrs");
  const metadataFile = str(values, "metadata");
  if (metadataFile !== undefined) {
    // Exactly: a fill value beyond 2^53 keeps every digit.
    let doc: JsonValue;
    try {
      doc = parseJson(await readFile(metadataFile, "utf8"), metadataFile);
    } catch (e) {
      throw new UsageError(`${metadataFile} is not valid JSON: ${(e as Error).message}`);
    }
    if (typeof doc !== "object" || doc === null || Array.isArray(doc))
      throw new UsageError(`${metadataFile}: not a JSON object`);
    const kind = await createFromDocument(
      store,
      path,
      doc as JsonObject,
      metadataFile,
      overwrite,
      attributes,
    );
    created(io, values, kind, path);
    return 0;
  }
  const format = str(values, "format") ?? "3";
  if (format !== "2" && format !== "3")
    throw new UsageError(`--format must be 2 or 3, got "${format}"`);
  if (flag(values, "group")) {
    if (format === "2") await createGroupV2(store, path, { attributes, overwrite });
    else await createGroup(store, path, { attributes, overwrite });
    created(io, values, "group", path);
    return 0;
  }
  const shapeText = str(values, "shape");
  const dtype = str(values, "dtype");
  if (shapeText === undefined || dtype === undefined)
    throw new UsageError("zarr create needs --shape and --dtype (or --group, or --metadata FILE)");
  // "" or "()" for a 0-dimensional array.
  const shape = /^\(?\)?$/.test(shapeText.trim()) ? [] : parseIntList(shapeText, "--shape", true);
  let endianFromTypestr: "little" | "big" | undefined;
  let dataTypeJson: JsonValue = dtype.startsWith("{")
    ? (parseJsonOption(dtype, "--dtype") as JsonValue)
    : dtype;
  if (/^[<>|]/.test(dtype)) {
    // A numpy typestr: its data type, and its byte order unless --endian says otherwise.
    if (format !== "2")
      throw new UsageError(`--dtype ${dtype} is a numpy typestr; use a v3 name or --format 2`);
    const parsed = parseV2DType(dtype, "--dtype");
    if (parsed.object) throw new UsageError("--dtype |O: use --dtype string (vlen-utf8) instead");
    endianFromTypestr = parsed.endian;
    dataTypeJson = parsed.dataType.toJSON();
  }
  const dataType = dataTypeOption(dataTypeJson);
  const dimensionNames = str(values, "dimension-names")?.split(",");
  if (dimensionNames && dimensionNames.length !== shape.length)
    throw new UsageError(
      `--dimension-names needs ${shape.length} names, got ${dimensionNames.length}`,
    );
  const fill = fillOption(str(values, "fill-value"));
  const layout: Layout = {
    format: Number(format) as 2 | 3,
    shape,
    dataType: dataType.toJSON(),
    fillValue: dataType.fillValueToJSON(
      fill === null || fill === undefined
        ? dataType.defaultFillValue()
        : fillFromOption(dataType, fill),
    ),
    extra: fill === null ? nullFill(format) : undefined,
    chunks: defaultChunks(shape, dataType.itemSize ?? 16),
    codecs: [serializerFor(dataType.toJSON(), endianFromTypestr)],
    dimensionNames,
    attributes,
  };
  applyLayoutFlags(layout, values, 3);
  await writeLayout(store, path, layout, { overwrite, note: (s) => io.err(`zarr: note: ${s}`) });
  created(io, values, "array", path);
  return 0;
}

/** What was created: one line, or with `--json` an object. */
function created(io: Io, values: Values, kind: string, path: string): void {
  io.out(
    flag(values, "json")
      ? JSON.stringify({ created: kind, path: `/${path}` })
      : `created ${kind} /${path}`,
  );
}

/** NumPy's and C's names for data types, for suggestions. */
const DTYPE_ALIASES: Readonly<Record<string, string>> = {
  b1: "bool",
  i1: "int8",
  i2: "int16",
  i4: "int32",
  i8: "int64",
  u1: "uint8",
  u2: "uint16",
  u4: "uint32",
  u8: "uint64",
  f2: "float16",
  f4: "float32",
  f8: "float64",
  c8: "complex64",
  c16: "complex128",
  int: "int64",
  uint: "uint64",
  float: "float64",
  double: "float64",
  single: "float32",
  half: "float16",
  complex: "complex128",
  str: "string",
};

/** The data type `--dtype` names; an unknown name is a usage error with a suggestion. */
function dataTypeOption(json: JsonValue): DataType {
  try {
    return resolveDataType(json, "--dtype");
  } catch (e) {
    if (!(e instanceof NotRegisteredError) || typeof json !== "string") throw e;
    const names = knownDataTypeNames();
    throw new UsageError(
      `--dtype: unknown data type "${json}"${didYouMean(json, names, '"', DTYPE_ALIASES)}; known: ${names.join(", ")}`,
    );
  }
}

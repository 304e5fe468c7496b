/**
 * Array layouts: the storage-side description of an array (format, chunks,
 * shards, codecs, key encoding) that `zarr create` builds from flags and
 * `zarr copy` derives from a source array plus flags, and the one function
 * that writes a layout as metadata (v3 `zarr.json` or v2 `.zarray`).
 *
 * Codec lists are always held in v3 form (inner codecs when sharded).
 *
 * @module
 */
import {
  type AnyStore,
  createArray,
  type JsonObject,
  type JsonValue,
  type Store,
  UnsupportedError,
  type ZarrArray,
} from "@zarr/core";
import { keepsEveryChunk, resolveDataType, V2_FILL_VALUE_FIELD } from "@zarr/core/internal";
import { createArrayV2, v3CodecsOfV2, zarrayOfV3 } from "@zarr/v2-compat";
import { parseCount, parseIntList, parseJsonOption, UsageError } from "./usage.js";

export { LAYOUT_FLAGS, LAYOUT_HELP } from "./flags.js";

/** What is needed to write an array's metadata. */
export interface Layout {
  format: 2 | 3;
  shape: number[];
  /** v3 data type (name or `{name, configuration}`). */
  dataType: JsonValue;
  /** Fill value in v3 JSON form (never `null`: see {@link Layout.extra}). */
  fillValue: JsonValue;
  /**
   * v3 extension members that carry meaning across formats: core's
   * `V2_FILL_VALUE_FIELD` records a v2 fill value the v3 one cannot say
   * (`null`, or an object array's non-string fill). Copies keep it, so a v2
   * array without a fill value stays one through v3 and back.
   */
  extra?: JsonObject;
  /** Inner chunk shape (the chunk shape when not sharded). */
  chunks: number[];
  /** Shard shape (v3 only), or undefined. */
  shards?: number[];
  /** Shard index codecs and location (default: bytes + crc32c, at the end). */
  shardIndex?: { codecs: JsonObject[]; location: "start" | "end" };
  /** v3 codec list of one (inner) chunk: array→array…, array→bytes, bytes→bytes…. */
  codecs: JsonObject[];
  /** v3 chunk key encoding (v3 only; default: "/" separated). */
  chunkKeyEncoding?: { name: string; configuration?: JsonObject };
  /** v2 dimension separator. */
  separator?: "." | "/";
  dimensionNames?: (string | null)[];
  attributes: JsonObject;
}

/** Array -> bytes codecs (zfp and pcodec encode values; zarr-python 3 writes numcodecs' as such). */
const ARRAY_TO_BYTES = new Set([
  "bytes",
  "vlen-utf8",
  "vlen-bytes",
  "numcodecs.zfpy",
  "numcodecs.pcodec",
  "zfp",
]);
const BLOSC_SHUFFLE = ["noshuffle", "shuffle", "bitshuffle"];
/** Bytes -> bytes codecs by their v3 names and numcodecs ids (a list of them needs a serializer first). */
const BYTES_TO_BYTES: ReadonlySet<string> = new Set(
  [
    ...["gzip", "zstd", "blosc", "crc32c", "zlib", "lz4", "bz2", "lzma"],
    ...["adler32", "crc32", "fletcher32", "jenkins_lookup3"],
  ].flatMap((id) => [id, `numcodecs.${id}`]),
);
const INDEX_CODECS: JsonObject[] = [
  { name: "bytes", configuration: { endian: "little" } },
  { name: "crc32c" },
];

/** The default serializer for a data type (v3 form). */
export function serializerFor(
  dataType: JsonValue,
  endian: "little" | "big" = "little",
): JsonObject {
  const dt = resolveDataType(dataType, "data_type");
  if (dt.kind === "string") return { name: "vlen-utf8" };
  if (dt.kind === "bytes") return { name: "vlen-bytes" };
  return dt.itemSize === 1 ? { name: "bytes" } : { name: "bytes", configuration: { endian } };
}

/**
 * Parses a compressor shorthand into v3 codec entries: `none`, `gzip[:LEVEL]`,
 * `zstd[:LEVEL]`, `blosc[:CNAME[:CLEVEL[:SHUFFLE]]]`, `crc32c` (and lists
 * joined with `+`, e.g. `zstd:3+crc32c`).
 */
export function parseCompressor(text: string, itemSize: number): JsonObject[] {
  if (text === "none" || text === "") return [];
  return text.split("+").map((part): JsonObject => {
    const [name, ...args] = part.split(":");
    const num = (i: number, fallback: number, what: string): number =>
      args[i] === undefined || args[i] === ""
        ? fallback
        : parseCount(args[i], `--compressor ${name} ${what}`);
    switch (name) {
      case "gzip":
        return { name: "gzip", configuration: { level: num(0, 5, "level") } };
      case "zstd":
        return { name: "zstd", configuration: { level: num(0, 3, "level"), checksum: false } };
      case "crc32c":
        return { name: "crc32c" };
      case "blosc": {
        const shuffle = args[2] ?? (itemSize > 1 ? "shuffle" : "bitshuffle");
        if (!BLOSC_SHUFFLE.includes(shuffle))
          throw new UsageError(
            `--compressor blosc shuffle must be one of ${BLOSC_SHUFFLE.join(", ")}`,
          );
        return {
          name: "blosc",
          configuration: {
            cname: args[0] || "zstd",
            clevel: num(1, 5, "clevel"),
            shuffle,
            typesize: itemSize,
            blocksize: 0,
          },
        };
      }
      default:
        throw new UsageError(
          `--compressor: unknown "${part}" (use none, gzip[:LEVEL], zstd[:LEVEL], blosc[:CNAME[:CLEVEL[:SHUFFLE]]], crc32c)`,
        );
    }
  });
}

/** Splits a codec list at its array→bytes codec. */
export function splitCodecs(codecs: readonly JsonObject[]): {
  arrayToArray: JsonObject[];
  serializer: JsonObject | undefined;
  bytesToBytes: JsonObject[];
} {
  const i = codecs.findIndex((c) => ARRAY_TO_BYTES.has(c.name as string));
  if (i < 0) return { arrayToArray: [...codecs], serializer: undefined, bytesToBytes: [] };
  return {
    arrayToArray: codecs.slice(0, i),
    serializer: codecs[i],
    bytesToBytes: codecs.slice(i + 1),
  };
}

/** Item size at the array→bytes codec (after array→array filters such as `astype`). */
function itemSizeAtBytes(array: ZarrArray): number {
  let spec = array.codecs.spec;
  for (const c of array.codecs.arrayToArray) spec = c.encodedSpec(spec);
  return spec.dataType.itemSize ?? 1;
}

/** The layout of an existing array (v2 arrays described in v3 terms). */
export function layoutOf(array: ZarrArray): Layout {
  let codecs = array.codecs.toJSON() as JsonObject[];
  let chunks = [...array.chunkShape];
  let shards: number[] | undefined;
  let shardIndex: Layout["shardIndex"];
  // A layout has one level of sharding and nothing after the sharding codec. Other
  // sharded chains (bytes -> bytes codecs after sharding_indexed, sharding nested in
  // sharding) are described by their outer shard, index and innermost chunks, with
  // every level's bytes -> bytes codecs applied to the inner chunks (innermost
  // first, as they apply when encoding): the same values, encoded per inner chunk.
  let after: JsonObject[] = [];
  while (codecs[0]?.name === "sharding_indexed") {
    const config = codecs[0].configuration as {
      chunk_shape: number[];
      codecs: JsonObject[];
      index_codecs?: JsonObject[];
      index_location?: "start" | "end";
    };
    if (shards === undefined) {
      shards = chunks;
      shardIndex = {
        codecs: config.index_codecs ?? INDEX_CODECS,
        location: config.index_location ?? "end",
      };
    }
    after = [...codecs.slice(1), ...after];
    chunks = [...config.chunk_shape];
    codecs = config.codecs;
  }
  codecs = [...codecs, ...after];
  let dimensionNames = array.dimensionNames ? [...array.dimensionNames] : undefined;
  if (array.zarrFormat === 2) {
    const itemSize = itemSizeAtBytes(array);
    const mapped = v3CodecsOfV2(codecs, itemSize);
    if (mapped === undefined) {
      throw new UnsupportedError(
        `${array.path || "/"}: codecs ${JSON.stringify(codecs.map((c) => c.name))} have no v3 form`,
        { path: array.path },
      );
    }
    codecs = mapped;
    const dims = array.attrs._ARRAY_DIMENSIONS;
    if (
      !dimensionNames &&
      Array.isArray(dims) &&
      dims.length === array.ndim &&
      dims.every((d) => typeof d === "string")
    )
      dimensionNames = dims as string[];
  }
  const sep = (array.chunkKeyEncoding.toJSON() as JsonObject).configuration as
    | JsonObject
    | undefined;
  return {
    format: array.zarrFormat,
    shape: [...array.shape],
    dataType: array.dataType.toJSON(),
    fillValue: array.dataType.fillValueToJSON(array.fillValue),
    extra: fillExtra(array),
    chunks,
    shards,
    shardIndex,
    codecs,
    chunkKeyEncoding:
      array.zarrFormat === 3
        ? (array.chunkKeyEncoding.toJSON() as Layout["chunkKeyEncoding"])
        : undefined,
    separator: array.zarrFormat === 2 ? ((sep?.separator as "." | "/") ?? ".") : undefined,
    dimensionNames,
    attributes: { ...array.attrs },
  };
}

/** The extension members of `array` that {@link Layout.extra} carries. */
function fillExtra(array: ZarrArray): JsonObject | undefined {
  if (!keepsEveryChunk(array.metadata)) return undefined;
  return { [V2_FILL_VALUE_FIELD]: array.metadata.extra[V2_FILL_VALUE_FIELD] };
}

/** `extra` for a v2 array without a fill value (`fill_value: null`). */
export function noFillExtra(): JsonObject {
  return { [V2_FILL_VALUE_FIELD]: { must_understand: false, value: null } };
}

/** Applies layout flags to a layout (in place) and returns it. */
export function applyLayoutFlags(
  layout: Layout,
  values: Record<string, unknown>,
  sourceFormat: 2 | 3,
): Layout {
  const get = (name: string) =>
    typeof values[name] === "string" ? (values[name] as string) : undefined;
  const format = get("format");
  if (format !== undefined) {
    if (format !== "2" && format !== "3")
      throw new UsageError(`--format must be 2 or 3, got "${format}"`);
    layout.format = Number(format) as 2 | 3;
  }
  const ndim = layout.shape.length;
  const dims = (text: string, option: string) => {
    const list = parseIntList(text, option);
    if (list.length !== ndim)
      throw new UsageError(
        `${option} needs ${ndim} values (one per dimension), got ${list.length}`,
      );
    return list;
  };
  const chunks = get("chunks");
  if (chunks !== undefined) layout.chunks = dims(chunks, "--chunks");
  const shards = get("shards");
  if (shards !== undefined)
    layout.shards = shards === "none" ? undefined : dims(shards, "--shards");
  const codecs = get("codecs");
  const dataType = resolveDataType(layout.dataType, "data_type");
  if (codecs !== undefined) {
    const list = parseJsonOption(codecs, "--codecs");
    if (
      !Array.isArray(list) ||
      list.some((c) => typeof c !== "object" || c === null || Array.isArray(c))
    )
      throw new UsageError("--codecs must be a JSON list of codec objects");
    const named = list as JsonObject[];
    const compressorFirst = named.find((c) => BYTES_TO_BYTES.has(c.name as string));
    if (splitCodecs(named).serializer === undefined && compressorFirst !== undefined) {
      throw new UsageError(
        `--codecs: "${compressorFirst.name}" works on bytes: put an array -> bytes codec before it, e.g. {"name":"bytes","configuration":{"endian":"little"}}`,
      );
    }
    layout.codecs = named;
  }
  let { arrayToArray, serializer, bytesToBytes } = splitCodecs(layout.codecs);
  serializer ??= serializerFor(layout.dataType);
  const compressor = get("compressor");
  if (compressor !== undefined) bytesToBytes = parseCompressor(compressor, dataType.itemSize ?? 1);
  const endian = get("endian");
  if (endian !== undefined) {
    if (endian !== "little" && endian !== "big")
      throw new UsageError(`--endian must be little or big, got "${endian}"`);
    if (serializer.name === "bytes" && (dataType.itemSize ?? 1) > 1)
      serializer = { name: "bytes", configuration: { endian } };
  }
  const order = get("order");
  if (order !== undefined) {
    if (order !== "C" && order !== "F")
      throw new UsageError(`--order must be C or F, got "${order}"`);
    arrayToArray = arrayToArray.filter((c) => c.name !== "transpose");
    if (order === "F" && ndim > 1)
      arrayToArray.unshift({
        name: "transpose",
        configuration: { order: Array.from({ length: ndim }, (_, i) => ndim - 1 - i) },
      });
  }
  layout.codecs = [...arrayToArray, serializer, ...bytesToBytes];
  const separator = get("separator");
  if (separator !== undefined && separator !== "/" && separator !== ".")
    throw new UsageError(`--separator must be / or ., got "${separator}"`);
  const indexLocation = get("index-location");
  if (indexLocation !== undefined) {
    if (indexLocation !== "start" && indexLocation !== "end")
      throw new UsageError(`--index-location must be start or end, got "${indexLocation}"`);
    layout.shardIndex = {
      codecs: layout.shardIndex?.codecs ?? INDEX_CODECS,
      location: indexLocation,
    };
  }
  const keyEncoding = get("key-encoding");
  if (keyEncoding !== undefined && keyEncoding !== "default" && keyEncoding !== "v2")
    throw new UsageError(`--key-encoding must be default or v2, got "${keyEncoding}"`);
  if (layout.format === 2) {
    if (keyEncoding !== undefined)
      throw new UsageError("--key-encoding is for --format 3 (v2 keys are always v2)");
    if (layout.shards) {
      if (shards !== undefined)
        throw new UsageError("--shards needs --format 3 (v2 has no sharding)");
      layout.shards = undefined; // v2 holds the inner chunks as chunks
    }
    layout.separator = (separator as "." | "/" | undefined) ?? layout.separator ?? ".";
    layout.chunkKeyEncoding = undefined;
  } else {
    if (
      keyEncoding !== undefined ||
      separator !== undefined ||
      sourceFormat !== 3 ||
      !layout.chunkKeyEncoding
    ) {
      const name = keyEncoding ?? "default";
      layout.chunkKeyEncoding = {
        name,
        configuration: { separator: separator ?? (name === "v2" ? "." : "/") },
      };
    }
    layout.separator = undefined;
  }
  return layout;
}

/** The v2 `.zarray` fields for a layout; falls back to bytes + compressor when the codecs have no v2 form. */
function zarrayFor(layout: Layout, path: string, note: (s: string) => void): JsonObject {
  const dataType = resolveDataType(layout.dataType, `${path}: data_type`);
  const meta = (codecs: JsonObject[]) => ({
    zarr_format: 3 as const,
    node_type: "array" as const,
    shape: layout.shape,
    data_type: layout.dataType,
    chunk_grid: { name: "regular", configuration: { chunk_shape: layout.chunks } },
    chunk_key_encoding: { name: "v2", configuration: { separator: layout.separator ?? "." } },
    fill_value: layout.fillValue,
    codecs,
    attributes: {},
    extra: layout.extra ?? {},
  });
  // biome-ignore lint/suspicious/noExplicitAny: ArrayMetadataV3 is structurally what zarrayOfV3 reads.
  const tryCodecs = (codecs: JsonObject[]) => zarrayOfV3(meta(codecs) as any, dataType);
  let z = tryCodecs(layout.codecs);
  if (!z) {
    const { arrayToArray, serializer, bytesToBytes } = splitCodecs(layout.codecs);
    const plain = serializerFor(layout.dataType);
    // v2 holds one compressor: the last bytes -> bytes codec that has a v2 form.
    const last = [...bytesToBytes].reverse().find((c) => tryCodecs([plain, c]) !== undefined);
    const compressor = last ? [last] : [];
    // Keep the filters (array -> array codecs) with their serializer where they have a
    // v2 form: a serializer alone is only right for the data type without them (a
    // categorize filter on strings is followed by "bytes", which strings cannot use).
    // A serializer that is a v2 compressor (zfpy, pcodec) is kept before another one.
    z =
      (serializer && arrayToArray.length
        ? tryCodecs([...arrayToArray, serializer, ...compressor])
        : undefined) ??
      tryCodecs([serializer ?? plain, ...compressor]) ??
      (serializer && serializer.name !== "bytes" ? tryCodecs([serializer]) : undefined) ??
      tryCodecs([plain, ...compressor]) ??
      tryCodecs([plain]);
    if (!z)
      throw new UnsupportedError(
        `${path || "/"}: data type ${JSON.stringify(layout.dataType)} has no v2 form`,
        {
          path,
        },
      );
    note(
      `${path || "/"}: v2 cannot hold the codecs ${layout.codecs.map((c) => c.name).join(", ")} (one compressor, no sharding); writing ${[
        ...((z.filters as JsonObject[] | null) ?? []).map((f) => f.id),
        z.compressor ? (z.compressor as JsonObject).id : "no compressor",
      ].join(", ")}`,
    );
  }
  // (zarrayOfV3 leaves zstd's "checksum" out: numcodecs < 0.13 rejects it, and
  // checksummed frames decode and verify everywhere.)
  return z;
}

/** Writes a layout's metadata at `path` and returns the array. */
export async function writeLayout(
  store: AnyStore | Store,
  path: string,
  layout: Layout,
  options: { overwrite?: boolean; note?: (s: string) => void } = {},
): Promise<ZarrArray> {
  const attributes = { ...layout.attributes };
  if (layout.format === 2) {
    const z = zarrayFor(layout, path, options.note ?? (() => {}));
    const dataType = resolveDataType(layout.dataType, `${path}: data_type`);
    if (layout.dimensionNames?.every((d) => typeof d === "string"))
      attributes._ARRAY_DIMENSIONS = layout.dimensionNames as string[];
    return createArrayV2(store, path, {
      shape: layout.shape,
      chunks: z.chunks as number[],
      dtype: z.dtype as JsonValue,
      compressor: z.compressor as JsonObject | null,
      filters: z.filters as JsonObject[] | null,
      // Numbers and their JSON forms ("NaN") go as v2 JSON; byte, string, datetime and
      // structured fills as the scalar itself (a string there would be read as the value,
      // not as base64).
      fillValue:
        z.fill_value === null || ["bool", "int", "uint", "float", "complex"].includes(dataType.kind)
          ? z.fill_value
          : dataType.parseFillValue(layout.fillValue, `${path}: fill_value`).value,
      order: z.order as "C" | "F",
      dimensionSeparator: layout.separator ?? ".",
      // No .zattrs for no attributes, as zarr-python writes it.
      attributes: Object.keys(attributes).length ? attributes : undefined,
      overwrite: options.overwrite,
    });
  }
  // v2 keeps dimension names in the xarray attribute; v3 has a field for them.
  if (
    layout.dimensionNames &&
    JSON.stringify(attributes._ARRAY_DIMENSIONS) === JSON.stringify(layout.dimensionNames)
  )
    delete attributes._ARRAY_DIMENSIONS;
  const codecs: JsonObject[] = layout.shards
    ? [
        {
          name: "sharding_indexed",
          configuration: {
            chunk_shape: layout.chunks,
            codecs: layout.codecs,
            index_codecs: layout.shardIndex?.codecs ?? INDEX_CODECS,
            index_location: layout.shardIndex?.location ?? "end",
          },
        },
      ]
    : layout.codecs;
  // JSON forms with strings ("NaN", "0x7fc00001") keep their exact bits through the
  // metadata parser; other values (numbers, byte lists) go in as parsed scalars.
  const fv = layout.fillValue;
  const jsonForm =
    typeof fv === "string" || (Array.isArray(fv) && fv.some((v) => typeof v === "string"));
  const fillValue =
    fv === null || jsonForm
      ? fv
      : resolveDataType(layout.dataType, "data_type").parseFillValue(fv, `${path}: fill_value`)
          .value;
  return createArray(store, path, {
    shape: layout.shape,
    dataType: layout.dataType,
    chunkShape: layout.shards ?? layout.chunks,
    fillValue,
    codecs,
    chunkKeyEncoding: layout.chunkKeyEncoding,
    dimensionNames: layout.dimensionNames,
    attributes,
    extra: layout.extra,
    overwrite: options.overwrite,
  });
}

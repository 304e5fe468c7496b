/**
 * Conversion between v2 and v3 metadata.
 *
 * v2 -> v3 is metadata-only (a `zarr.json` beside the v2 documents, reusing the
 * chunks through the `v2` chunk key encoding) when every codec has a v3 name:
 * order F becomes `transpose`, filters become `numcodecs.<id>`, compressors
 * `gzip`/`zstd`/`blosc` or `numcodecs.<id>`. Otherwise, or when a target is
 * given, the data is rewritten into a new v3 array.
 *
 * v3 -> v2 is metadata-only when the v3 array uses the `v2` chunk key
 * encoding and its codecs map back; otherwise the data is rewritten into a new
 * v2 array (order C; a sharded array's inner chunks; one compressor: zfpy or
 * pcodec when they encode the chunk, else the last codec with a v2 id).
 *
 * @module
 */
import {
  type AnyStore,
  createArray,
  createGroup,
  type DataType,
  type Group,
  type JsonObject,
  type JsonValue,
  MemoryStore,
  open,
  type Store,
  slice,
  UnsupportedError,
  type ZarrArray,
} from "@zarr/core";
import {
  type ArrayMetadataV3,
  buildArrayParts,
  childKey,
  encodeMetadata,
  gridCoords,
  keepsEveryChunk,
  nodePrefix,
  parseArrayMetadataV3,
  serializeArrayMetadataV3,
  serializeGroupMetadataV3,
} from "@zarr/core/internal";
import { resolveStore } from "@zarr/core/store";
import { numcodecsConfig } from "./codecs/numcodecs-keys.js";
import { DateTimeDataType } from "./dtypes/datetime.js";
import { FixedBytesDataType } from "./dtypes/fixed-bytes.js";
import { FixedUnicodeDataType } from "./dtypes/fixed-unicode.js";
import { StructuredDataType } from "./dtypes/structured.js";
import { writeV2Json } from "./util/json.js";
import { dropConsolidated } from "./v2/consolidated-cache.js";
import { createArrayV2, createGroupV2 } from "./v2/create.js";
import { v2FillJsonOf } from "./v2/fill-value.js";
import { normalizeV2Path } from "./v2/paths.js";
import { validateZArray } from "./v2/zarray.js";

const FILTER_IDS = new Set([
  "delta",
  "fixedscaleoffset",
  "quantize",
  "bitround",
  "astype",
  "packbits",
  "categorize",
  "shuffle",
]);
const BLOSC_SHUFFLE = ["noshuffle", "shuffle", "bitshuffle"];

/**
 * v2 compressors that zarr-python 3 writes as array -> bytes codecs
 * (`numcodecs.<id>` in place of `bytes`): they encode the chunk's values, not
 * its bytes. In v2 they follow the implicit little-endian serialization.
 */
const NUMERIC_COMPRESSOR_IDS: ReadonlySet<string> = new Set(["zfpy", "pcodec"]);

/** numcodecs ids a v3 chain may also spell without the `numcodecs.` prefix (they have no v3 name of their own). */
const BARE_NUMCODECS_IDS: ReadonlySet<string> = new Set([
  "zlib",
  "lz4",
  "bz2",
  "lzma",
  "zfpy",
  "pcodec",
  "adler32",
  "crc32",
  "fletcher32",
  "jenkins_lookup3",
]);

/** The v3 form of one codec entry of a v2 array (as core presents it), or `undefined` when it has none. */
function v3Codec(entry: JsonObject, itemSize: number): JsonObject | undefined {
  const name = entry.name as string;
  const config = (entry.configuration ?? {}) as JsonObject;
  if (name === "bytes" || name === "transpose" || name === "vlen-utf8" || name === "vlen-bytes")
    return entry;
  if (name === "gzip") return { name: "gzip", configuration: { level: config.level ?? 1 } };
  if (name === "zstd")
    return {
      name: "zstd",
      configuration: { level: config.level ?? 1, checksum: config.checksum ?? false },
    };
  if (name === "blosc") {
    let shuffle = typeof config.shuffle === "number" ? config.shuffle : 1;
    if (shuffle === -1) shuffle = itemSize === 1 ? 2 : 1;
    return {
      name: "blosc",
      configuration: {
        cname: config.cname ?? "lz4",
        clevel: config.clevel ?? 5,
        shuffle: BLOSC_SHUFFLE[shuffle] ?? "shuffle",
        typesize: itemSize,
        blocksize: config.blocksize ?? 0,
      },
    };
  }
  if (name === "json2") return undefined;
  // numcodecs' CRC32C at its default place (the end) is the v3 core codec.
  if (name === "crc32c" && (config.location ?? "end") === "end") return { name: "crc32c" };
  // Any other numcodecs codec: zarr-python 3's name for it.
  return {
    name: name.startsWith("numcodecs.") ? name : `numcodecs.${name}`,
    configuration: config,
  };
}

/**
 * The v3 codec chain of a v2 array's codecs (as core presents them: the
 * filters, `bytes`, the compressor), as zarr-python 3 writes it, or
 * `undefined` when a codec has no v3 form. zfpy and pcodec become array ->
 * bytes codecs in place of `bytes` (little-endian; v2 refuses them on
 * big-endian data).
 *
 * @example
 * v3CodecsOfV2([{ name: "bytes", configuration: { endian: "little" } }, { name: "zfpy", configuration: { mode: 4, tolerance: 0.1 } }], 8);
 * // [{ name: "numcodecs.zfpy", configuration: { mode: 4, tolerance: 0.1 } }]
 */
export function v3CodecsOfV2(
  codecs: readonly JsonObject[],
  itemSize: number,
): JsonObject[] | undefined {
  const out: JsonObject[] = [];
  for (const c of codecs) {
    const v3 = v3Codec(c, itemSize);
    if (v3 === undefined) return undefined;
    const previous = out[out.length - 1];
    if (
      NUMERIC_COMPRESSOR_IDS.has(codecIdOf(v3)) &&
      previous?.name === "bytes" &&
      ((previous.configuration ?? {}) as JsonObject).endian !== "big"
    ) {
      out.pop();
    }
    out.push(v3);
  }
  return out;
}

/** Options of {@link convertV2ToV3}. */
export interface ConvertOptions {
  /** Write the v3 node(s) here instead of beside the v2 documents (forces a rewrite of arrays). */
  target?: AnyStore | Store;
  /** Path in the target (default: the same path). */
  targetPath?: string;
  /** Remove the source format's documents after an in-place metadata-only conversion. Default false. */
  removeSource?: boolean;
}

/** The result: the converted node and whether its chunks were rewritten. */
export interface ConvertResult {
  node: ZarrArray | Group;
  rewritten: boolean;
}

/**
 * Copies `src` into `dst` (same shape and chunk shape) chunk by chunk. The cost
 * follows the stored chunks where the source store lists them; the whole grid
 * is walked only when it cannot list, or when `dst` must store chunks `src`
 * leaves out (a destination without a fill value, see `keepsEveryChunk`).
 */
async function copyData(src: ZarrArray, dst: ZarrArray): Promise<void> {
  const materialize = keepsEveryChunk(dst.metadata) && !keepsEveryChunk(src.metadata);
  const chunks: AsyncIterable<readonly number[]> | Iterable<readonly number[]> =
    src.store.listable && !materialize ? storedCoords(src) : gridCoords(src.gridShape);
  for await (const coords of chunks) {
    const sel = coords.map((c, d) =>
      slice(c * src.chunkShape[d], Math.min((c + 1) * src.chunkShape[d], src.shape[d])),
    );
    const chunk = await src.get(sel);
    await dst.set(sel, chunk);
  }
}

async function* storedCoords(array: ZarrArray): AsyncGenerator<readonly number[]> {
  for await (const { coords } of array.storedChunks()) yield coords;
}

function itemSizeAtBytes(array: ZarrArray): number {
  const a2a = array.codecs.arrayToArray;
  let spec = array.codecs.spec;
  for (const c of a2a) spec = c.encodedSpec(spec);
  return spec.dataType.itemSize ?? 1;
}

/**
 * Converts the v2 node at `path` (an array, or a group with everything below
 * it) to v3. See the module description for when chunks are rewritten.
 */
export async function convertV2ToV3(
  store: AnyStore | Store,
  path = "",
  options: ConvertOptions = {},
): Promise<ConvertResult> {
  const s = resolveStore(store);
  const p = normalizeV2Path(path);
  const node = await open(s, p);
  const target = options.target ? resolveStore(options.target) : s;
  const tp = options.targetPath !== undefined ? normalizeV2Path(options.targetPath) : p;
  if (node.kind === "group") {
    if (target === s && tp === p) {
      await s.set(
        childKey(p, "zarr.json"),
        encodeMetadata(
          serializeGroupMetadataV3({
            zarr_format: 3,
            node_type: "group",
            attributes: node.attrs,
            extra: {},
          }),
        ),
      );
    } else {
      await createGroup(target, tp, { attributes: node.attrs, overwrite: true });
    }
    let rewritten = false;
    for (const name of await node.childNames()) {
      const child = await convertV2ToV3(s, childKey(p, name), {
        ...options,
        targetPath: options.targetPath === undefined ? undefined : childKey(tp, name),
      });
      rewritten ||= child.rewritten;
    }
    if (options.removeSource && target === s && tp === p)
      await removeDocs(s, p, [".zgroup", ".zattrs"]);
    return { node: await open(target, tp), rewritten };
  }
  const array = node;
  if (array.dataType.name === "numpy.object") {
    throw new UnsupportedError(`${p || "/"}: json2 object arrays have no v3 data type`, {
      path: p,
    });
  }
  const itemSize = itemSizeAtBytes(array);
  const mapped = v3CodecsOfV2(array.codecs.toJSON() as JsonObject[], itemSize);
  const codecs = mapped ?? [];
  const mappable = mapped !== undefined;
  const dataType = array.dataType;
  const fill_value = dataType.fillValueToJSON(array.fillValue);
  if (mappable && target === s && tp === p) {
    const meta: JsonObject = {
      zarr_format: 3,
      node_type: "array",
      shape: [...array.shape],
      data_type: dataType.toJSON(),
      chunk_grid: { name: "regular", configuration: { chunk_shape: [...array.chunkShape] } },
      chunk_key_encoding: array.chunkKeyEncoding.toJSON() as JsonObject,
      fill_value,
      codecs: codecs as JsonObject[],
      attributes: array.attrs,
      // The v2 fill value where v3's cannot say what a missing chunk is (see fill-value.ts).
      ...array.metadata.extra,
    };
    const parsed = parseArrayMetadataV3(meta, childKey(p, "zarr.json"));
    await buildArrayParts(parsed.meta, parsed.dataType, parsed.fillValue, childKey(p, "zarr.json"));
    await s.set(childKey(p, "zarr.json"), encodeMetadata(serializeArrayMetadataV3(parsed.meta)));
    if (options.removeSource) await removeDocs(s, p, [".zarray", ".zattrs", "meta", "attrs"]);
    return { node: await open(s, p), rewritten: false };
  }
  // Rewrite: bytes + the compressor when it has a v3 form.
  const last = codecs[codecs.length - 1];
  const compressor = last && ["gzip", "zstd", "blosc"].includes(last.name as string) ? [last] : [];
  const serializer: JsonObject =
    dataType.kind === "string"
      ? { name: "vlen-utf8" }
      : dataType.kind === "bytes"
        ? { name: "vlen-bytes" }
        : { name: "bytes", configuration: { endian: "little" } };
  const out = await createArray(target, tp, {
    shape: array.shape,
    dataType: dataType.toJSON(),
    chunkShape: array.chunkShape,
    fillValue: fill_value,
    codecs: [serializer, ...compressor],
    attributes: array.attrs,
    extra: array.metadata.extra,
    overwrite: true,
  });
  await copyData(array, out);
  return { node: out, rewritten: true };
}

async function removeDocs(store: Store, path: string, names: string[]): Promise<void> {
  dropConsolidated(store);
  for (const n of names) await store.erase(childKey(path, n));
}

/** The v2 dtype of a v3 data type with the given byte order, or `undefined`. */
export function v2DtypeOf(
  dataType: DataType,
  endian: "little" | "big" | undefined,
): JsonValue | undefined {
  const order = endian === "big" ? ">" : "<";
  if (dataType instanceof DateTimeDataType) return `${order}${dataType.typestrBody}`;
  if (dataType instanceof FixedUnicodeDataType) return `${order}U${dataType.length}`;
  if (dataType instanceof FixedBytesDataType) return dataType.typestr;
  if (dataType instanceof StructuredDataType) return dataType.descr;
  if (dataType.kind === "string" || dataType.kind === "bytes") return "|O";
  if (dataType.kind === "raw") return `|V${dataType.itemSize}`;
  const codes: Record<string, string> = {
    bool: "b1",
    int8: "i1",
    int16: "i2",
    int32: "i4",
    int64: "i8",
    uint8: "u1",
    uint16: "u2",
    uint32: "u4",
    uint64: "u8",
    float16: "f2",
    float32: "f4",
    float64: "f8",
    complex64: "c8",
    complex128: "c16",
  };
  const code = codes[dataType.name];
  if (!code) return undefined;
  return `${dataType.itemSize === 1 ? "|" : order}${code}`;
}

/** The v2 compressor of a v3 bytes -> bytes codec entry, or `undefined`. */
function v2Compressor(entry: JsonObject): JsonObject | undefined {
  const name = entry.name as string;
  const config = (entry.configuration ?? {}) as JsonObject;
  if (name === "gzip") return numcodecsConfig({ id: "gzip", level: config.level ?? 5 });
  // zstd's `checksum` is left out (numcodecs < 0.13 rejects it): checksummed frames
  // still decode, and are verified, everywhere.
  if (name === "zstd") return numcodecsConfig({ id: "zstd", level: config.level ?? 0 });
  if (name === "blosc") {
    const sh =
      typeof config.shuffle === "string"
        ? BLOSC_SHUFFLE.indexOf(config.shuffle)
        : (config.shuffle as number);
    return numcodecsConfig({
      id: "blosc",
      cname: config.cname ?? "lz4",
      clevel: config.clevel ?? 5,
      shuffle: sh,
      blocksize: config.blocksize ?? 0,
    });
  }
  if (name.startsWith("numcodecs.")) return numcodecsConfig({ id: name.slice(10), ...config });
  if (BARE_NUMCODECS_IDS.has(name)) return numcodecsConfig({ id: name, ...config });
  return undefined;
}

/**
 * The chunks and compressor of a v2 rewrite of a v3 array whose codecs v2
 * cannot hold as they are: the inner chunks and codecs of a sharded array,
 * and one compressor (v2 has one): zfpy or pcodec when they encode the chunk,
 * else the last bytes -> bytes codec that has a v2 form.
 */
function v2RewriteLayout(array: ZarrArray): { chunks: number[]; compressor: JsonObject | null } {
  let codecs = array.metadata.codecs;
  let chunks = [...array.chunkShape];
  const sharding = codecs.length === 1 && codecs[0].name === "sharding_indexed";
  if (sharding) {
    const inner = (codecs[0].configuration ?? {}) as JsonObject;
    codecs = inner.codecs as JsonObject[];
    chunks = [...(inner.chunk_shape as number[])];
  }
  const numeric = codecs.find((c) => NUMERIC_COMPRESSOR_IDS.has(codecIdOf(c)));
  const candidates = numeric ? [numeric] : [...codecs].reverse();
  for (const c of candidates) {
    if (codecIdOf(c) === "shuffle") continue; // a filter in v2
    const compressor = v2Compressor(c);
    if (compressor) return { chunks, compressor };
  }
  return { chunks, compressor: null };
}

/** A v3 codec entry's numcodecs id (its name without `numcodecs.`). */
function codecIdOf(entry: JsonObject): string {
  const name = entry.name as string;
  return name.startsWith("numcodecs.") ? name.slice("numcodecs.".length) : name;
}

/**
 * The `.zarray` equivalent of a v3 array's metadata when it is representable
 * as-is (same chunks and keys); `undefined` otherwise.
 */
export function zarrayOfV3(meta: ArrayMetadataV3, dataType: DataType): JsonObject | undefined {
  if (meta.chunk_grid.name !== "regular" || meta.chunk_key_encoding.name !== "v2") return undefined;
  const ndim = meta.shape.length;
  const codecs = [...meta.codecs];
  let order: "C" | "F" = "C";
  if (codecs[0]?.name === "transpose") {
    const perm = ((codecs[0].configuration ?? {}) as JsonObject).order as number[];
    if (perm.every((v, i) => v === ndim - 1 - i)) order = "F";
    else if (!perm.every((v, i) => v === i)) return undefined;
    codecs.shift();
  }
  const filters: JsonObject[] = [];
  let endian: "little" | "big" | undefined;
  let i = 0;
  for (; i < codecs.length; i++) {
    const name = codecs[i].name as string;
    const id = name.startsWith("numcodecs.") ? name.slice(10) : name;
    if (name === "bytes") {
      endian =
        (((codecs[i].configuration ?? {}) as JsonObject).endian as "little" | "big" | undefined) ??
        "little";
      i++;
      break;
    }
    if (name === "vlen-utf8" || name === "vlen-bytes") {
      filters.push({ id: name });
      i++;
      break;
    }
    if (NUMERIC_COMPRESSOR_IDS.has(id)) {
      // The v2 compressor, after the implicit little-endian bytes: nothing may follow it.
      if (i !== codecs.length - 1) return undefined;
      endian = "little";
      break;
    }
    if (!FILTER_IDS.has(id) || id === "shuffle") return undefined;
    filters.push(numcodecsConfig({ id, ...((codecs[i].configuration ?? {}) as JsonObject) }));
  }
  const rest = codecs.slice(i);
  for (const c of rest.slice(0, -1)) {
    if (c.name !== "numcodecs.shuffle" && c.name !== "shuffle") return undefined;
    filters.push({ id: "shuffle", ...((c.configuration ?? {}) as JsonObject) });
  }
  let compressor: JsonObject | null = null;
  if (rest.length > 0) {
    const last = rest[rest.length - 1];
    if (last.name === "numcodecs.shuffle")
      filters.push({ id: "shuffle", ...((last.configuration ?? {}) as JsonObject) });
    else {
      const c = v2Compressor(last);
      if (!c) return undefined;
      compressor = c;
    }
  }
  const dtype = v2DtypeOf(dataType, filters.length && filters[0].dtype ? endian : endian);
  if (dtype === undefined) return undefined;
  const fill = v2FillJsonOf(meta, dataType);
  const sep = ((meta.chunk_key_encoding.configuration ?? {}) as JsonObject).separator ?? ".";
  return {
    chunks: [...(((meta.chunk_grid.configuration ?? {}) as JsonObject).chunk_shape as number[])],
    compressor,
    dimension_separator: sep,
    dtype,
    fill_value: fill,
    filters: filters.length ? filters : null,
    order,
    shape: [...meta.shape],
    zarr_format: 2,
  };
}

/**
 * Converts the v3 node at `path` to v2 (an array, or a group with everything
 * below it): metadata-only where representable, else a rewrite into `target`
 * (default: in place, which erases the v3 chunks of that array first).
 * Throws `UnsupportedError` for data types v2 cannot hold.
 */
export async function convertV3ToV2(
  store: AnyStore | Store,
  path = "",
  options: ConvertOptions = {},
): Promise<ConvertResult> {
  const s = resolveStore(store);
  const p = normalizeV2Path(path);
  const node = await open(s, p);
  const target = options.target ? resolveStore(options.target) : s;
  const tp = options.targetPath !== undefined ? normalizeV2Path(options.targetPath) : p;
  const inPlace = target === s && tp === p;
  if (node.kind === "group") {
    dropConsolidated(target);
    await target.set(childKey(tp, ".zgroup"), writeV2Json({ zarr_format: 2 }));
    if (Object.keys(node.attrs).length)
      await target.set(childKey(tp, ".zattrs"), writeV2Json(node.attrs));
    let rewritten = false;
    for (const name of await node.childNames()) {
      const r = await convertV3ToV2(s, childKey(p, name), {
        ...options,
        targetPath: options.targetPath === undefined ? undefined : childKey(tp, name),
      });
      rewritten ||= r.rewritten;
    }
    if (options.removeSource && inPlace) await s.erase(childKey(p, "zarr.json"));
    return { node: await open(target, tp), rewritten };
  }
  const array = node;
  const z = zarrayOfV3(array.metadata, array.dataType);
  if (z && inPlace) {
    validateZArray(z, childKey(p, ".zarray"));
    dropConsolidated(s);
    await s.set(childKey(p, ".zarray"), writeV2Json(z));
    if (Object.keys(array.attrs).length)
      await s.set(childKey(p, ".zattrs"), writeV2Json(array.attrs));
    if (options.removeSource) await s.erase(childKey(p, "zarr.json"));
    return { node: await open(s, p), rewritten: false };
  }
  const dtype = v2DtypeOf(array.dataType, "little");
  if (dtype === undefined) {
    throw new UnsupportedError(
      `${p || "/"}: data type ${array.dataType.name} has no v2 equivalent`,
      { path: p },
    );
  }
  const { chunks, compressor } = v2RewriteLayout(array);
  const filters =
    array.dataType.kind === "string"
      ? [{ id: "vlen-utf8" }]
      : array.dataType.kind === "bytes"
        ? [{ id: "vlen-bytes" }]
        : null;
  // Read everything needed before an in-place rewrite erases the v3 chunks.
  const source = inPlace ? await snapshot(array) : array;
  if (inPlace) {
    await s.erase(childKey(p, "zarr.json"));
    await s.erasePrefix(nodePrefix(p));
  }
  const out = await createArrayV2(target, tp, {
    shape: array.shape,
    chunks,
    dtype,
    compressor,
    filters,
    fillValue: v2FillOption(array),
    attributes: Object.keys(array.attrs).length ? array.attrs : undefined,
    overwrite: true,
  });
  await copyData(source, out);
  return { node: out, rewritten: true };
}

/** The `fillValue` option of `createArrayV2` that gives `array`'s v2 fill value. */
function v2FillOption(array: ZarrArray): unknown {
  const json = v2FillJsonOf(array.metadata, array.dataType);
  if (json === null) return null;
  // Object arrays take their JSON as is; other types their scalar (a string would be text, not base64).
  return array.dataType.kind === "string" || array.dataType.kind === "bytes"
    ? json
    : array.fillValue.value;
}

/** An in-memory copy of a (small enough) array, so it can be rewritten in place. */
async function snapshot(array: ZarrArray): Promise<ZarrArray> {
  const mem = new MemoryStore();
  const copy = await createArray(mem, "", {
    shape: array.shape,
    dataType: array.dataType.toJSON(),
    chunkShape: array.chunkShape,
    codecs:
      array.dataType.kind === "string"
        ? [{ name: "vlen-utf8" }]
        : array.dataType.kind === "bytes"
          ? [{ name: "vlen-bytes" }]
          : [{ name: "bytes", configuration: { endian: "little" } }],
    fillValue: array.dataType.fillValueToJSON(array.fillValue),
  });
  await copyData(array, copy);
  return copy;
}

export { createArrayV2, createGroupV2 };

/**
 * The registries of @zarr/core and the functions packages call to register.
 *
 * @module
 */

import type { ChunkGridFactory } from "../chunk-grid/regular.js";
import type { ChunkKeyEncodingFactory } from "../chunk-key/encodings.js";
import type { CodecFactory } from "../codecs/types.js";
import type { DataType, JsonValue } from "../dtypes/types.js";
import { CodecError } from "../errors.js";
import type { NodeFormat } from "../hierarchy/open.js";
import type { AnyStore } from "../store/types.js";
import { type Registration, Registry } from "./registry.js";

/** Codec names (v3 and v2 numcodecs ids) and the @zarr package that provides each. */
const CODEC_PACKAGES: Record<string, string> = {
  gzip: "@zarr/codec-gzip",
  zlib: "@zarr/codec-gzip",
  "numcodecs.zlib": "@zarr/codec-gzip",
  "numcodecs.gzip": "@zarr/codec-gzip",
  zstd: "@zarr/codec-zstd",
  "numcodecs.zstd": "@zarr/codec-zstd",
  blosc: "@zarr/codec-blosc",
  "numcodecs.blosc": "@zarr/codec-blosc",
  zfp: "@zarr/codec-zfp", // zarrs' v3 zfp codec
};
// numcodecs compressors and checksums, each in its own package under its v2 id
// and zarr-python 3's `numcodecs.<id>` (v2 `crc32c` is core's v3 codec when
// that package is absent: same layout at the default location).
for (const [pkg, ids] of [
  ["@zarr/codec-lz4", ["lz4"]],
  ["@zarr/codec-bz2", ["bz2"]],
  ["@zarr/codec-lzma", ["lzma"]],
  ["@zarr/codec-checksums", ["adler32", "crc32", "crc32c", "fletcher32", "jenkins_lookup3"]],
  ["@zarr/codec-zfp", ["zfpy"]],
  ["@zarr/codec-pcodec", ["pcodec"]],
] as const) {
  for (const id of ids) {
    if (id !== "crc32c") CODEC_PACKAGES[id] = pkg;
    CODEC_PACKAGES[`numcodecs.${id}`] = pkg;
  }
}
for (const id of [
  "delta",
  "fixedscaleoffset",
  "quantize",
  "bitround",
  "astype",
  "packbits",
  "categorize",
  "shuffle",
  "json2",
  "vlen-array",
]) {
  CODEC_PACKAGES[id] ??= "@zarr/v2-compat";
  CODEC_PACKAGES[`numcodecs.${id}`] ??= "@zarr/v2-compat";
}

/** Codec factories by v3 name, v2 numcodecs id or URL. */
export const codecRegistry: Registry<CodecFactory> = new Registry<CodecFactory>(
  "codec",
  CODEC_PACKAGES,
  (message, options) => new CodecError(message, options),
);

/**
 * Registers a codec factory (or a lazy loader of one) under `name`, replacing
 * any previous registration. Codec packages do this in their `register`
 * module; register lazily to keep the codec out of the initial bundle until
 * metadata names it.
 *
 * @param name - The codec name as metadata spells it: a v3 name (`"zstd"`), a
 *   v2 numcodecs id (`"numcodecs.zstd"`) or a URL.
 * @param entry - The `CodecFactory` itself, or `{ load }` where `load()`
 *   resolves to it; `load` is called once, on first use, and called again
 *   after a failed load. A failed load rejects the call that needed the codec.
 *
 * @example
 * ```ts
 * import { registerCodec } from "@zarr/core";
 * import { zstdCodec } from "@zarr/codec-zstd";
 * registerCodec("zstd", zstdCodec); // eager
 * registerCodec("numcodecs.zstd", {
 *   load: () => import("@zarr/codec-zstd").then((m) => m.numcodecsZstdCodec), // lazy
 * });
 * ```
 */
export function registerCodec(name: string, entry: Registration<CodecFactory>): void {
  codecRegistry.register(name, entry);
}

/**
 * Resolves a data type from its metadata form (a name, or `{name, configuration}`).
 * Parametrized families (like `r<N>`) are handled by the resolver of their prefix.
 */
export interface DataTypeResolver {
  /** Returns the data type for `json`, or `undefined` when `json` is not one of its types. */
  resolve(json: JsonValue, path: string): DataType | undefined;
}

/** Data types by name. Built-in v3 types are registered by core itself. */
export const dataTypeRegistry: Registry<DataType> = new Registry<DataType>("data type", {
  "numpy.datetime64": "@zarr/v2-compat",
  "numpy.timedelta64": "@zarr/v2-compat",
});

/**
 * Registers a data type under its `name`, replacing any previous registration.
 * Core registers the v3 core data types itself; packages register others
 * (e.g. `@zarr/v2-compat`'s `numpy.datetime64`).
 *
 * @param dataType - The data type; its `name` is the name metadata uses.
 *
 * @example
 * ```ts
 * import { registerDataType } from "@zarr/core";
 * import { datetime64Type } from "@zarr/v2-compat";
 * registerDataType(datetime64Type); // "numpy.datetime64"
 * ```
 */
export function registerDataType(dataType: DataType): void {
  dataTypeRegistry.register(dataType.name, dataType);
}

/** Opens a store from a URL; registered per URL scheme by store packages. */
export interface StoreOpener {
  /** Opens `url` (whose scheme this opener was registered for). */
  open(url: string, options?: Record<string, unknown>): Promise<AnyStore>;
}

const STORE_PACKAGES: Record<string, string> = {
  file: "@zarr/store-fs",
  http: "@zarr/store-http",
  https: "@zarr/store-http",
  s3: "@zarr/store-s3",
  gs: "@zarr/store-gcs",
  gcs: "@zarr/store-gcs",
  zip: "@zarr/store-zip",
};

/** Store openers by URL scheme (without the colon). */
export const storeRegistry: Registry<StoreOpener> = new Registry<StoreOpener>(
  "store scheme",
  STORE_PACKAGES,
);

/**
 * Registers a store opener for a URL scheme (e.g. `"s3"`), replacing any
 * previous registration; {@link openStore} then opens URLs of that scheme
 * with it. Store packages do this in their `register` module.
 *
 * @param scheme - The URL scheme without the colon, lower case, e.g. `"https"`;
 *   `"file"` handles plain paths.
 * @param entry - The `StoreOpener` itself, or `{ load }` where `load()`
 *   resolves to it; `load` is called once, on first use, and called again
 *   after a failed load.
 *
 * @example
 * ```ts
 * import { openStore, registerStore } from "@zarr/core";
 * registerStore("https", {
 *   load: () => import("@zarr/store-http").then((m) => m.httpStoreOpener),
 * });
 * const store = await openStore("https://example.com/data.zarr");
 * ```
 */
export function registerStore(scheme: string, entry: Registration<StoreOpener>): void {
  storeRegistry.register(scheme, entry);
}

export { type Registration, Registry };

/** Chunk grids by name; `regular` is built in (see `chunk-grid/regular.ts`). */
export const chunkGridRegistry: Registry<ChunkGridFactory> =
  /* @__PURE__ */ new Registry<ChunkGridFactory>("chunk grid");

/** Chunk key encodings by name; `default` and `v2` are built in (see `chunk-key/encodings.ts`). */
export const chunkKeyEncodingRegistry: Registry<ChunkKeyEncodingFactory> =
  /* @__PURE__ */ new Registry<ChunkKeyEncodingFactory>("chunk key encoding");

/** Node formats besides v3, by name (`"v2"`, `"v1"`), registered by @zarr/v2-compat. */
export const nodeFormatRegistry: Registry<NodeFormat> = /* @__PURE__ */ new Registry<NodeFormat>(
  "format",
  { v2: "@zarr/v2-compat", v1: "@zarr/v2-compat" },
);

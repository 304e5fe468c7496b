/**
 * The one place that decides which configuration keys we write for a
 * numcodecs codec id in v2 metadata (`.zarray` `compressor` and `filters`):
 * exactly the keys numcodecs 0.11 accepts, since numcodecs passes every key to
 * the codec's constructor and older versions raise `TypeError` on keys they do
 * not know (zstd's `checksum`, added in 0.13; blosc's `typesize`, never a
 * numcodecs key). Reading stays lenient: unknown keys are ignored.
 *
 * @module
 */
import type { JsonObject } from "@zarr/core";

/** Constructor keywords of numcodecs 0.11, per id (from `inspect.signature`). */
const NUMCODECS_0_11_KEYS: Readonly<Record<string, readonly string[]>> = {
  adler32: [],
  astype: ["encode_dtype", "decode_dtype"],
  base64: [],
  bitround: ["keepbits"],
  blosc: ["cname", "clevel", "shuffle", "blocksize"],
  bz2: ["level"],
  categorize: ["labels", "dtype", "astype"],
  crc32: [],
  delta: ["dtype", "astype"],
  fixedscaleoffset: ["offset", "scale", "dtype", "astype"],
  gzip: ["level"],
  json2: [
    "encoding",
    "skipkeys",
    "ensure_ascii",
    "check_circular",
    "allow_nan",
    "sort_keys",
    "indent",
    "separators",
    "strict",
  ],
  lz4: ["acceleration"],
  lzma: ["format", "check", "preset", "filters"],
  msgpack2: ["use_single_float", "use_bin_type", "raw"],
  packbits: [],
  pickle: ["protocol"],
  quantize: ["digits", "dtype", "astype"],
  shuffle: ["elementsize"],
  "vlen-array": ["dtype"],
  "vlen-bytes": [],
  "vlen-utf8": [],
  zfpy: ["mode", "tolerance", "rate", "precision"],
  zlib: ["level"],
  zstd: ["level"],
};

/**
 * Keys newer numcodecs versions added that change the stored layout: kept
 * when they differ from the default, because dropping them would write
 * chunks that no reader decodes as written (numcodecs < 0.14 cannot read a
 * checksum at the end whatever the metadata says).
 */
const LAYOUT_KEYS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  adler32: { location: "start" },
  crc32: { location: "start" },
};

/**
 * `entry` (`{id, ...}`) with only the keys numcodecs 0.11 accepts for its id,
 * in numcodecs' `get_config` order, plus any non-default layout key; ids
 * numcodecs 0.11 does not know are returned unchanged.
 */
export function numcodecsConfig(entry: JsonObject): JsonObject {
  const id = entry.id;
  const keys = typeof id === "string" ? NUMCODECS_0_11_KEYS[id] : undefined;
  if (keys === undefined) return entry;
  const out: JsonObject = { id };
  for (const key of keys) if (entry[key] !== undefined) out[key] = entry[key];
  for (const [key, fallback] of Object.entries(LAYOUT_KEYS[id as string] ?? {})) {
    if (entry[key] !== undefined && entry[key] !== fallback) out[key] = entry[key];
  }
  return out;
}

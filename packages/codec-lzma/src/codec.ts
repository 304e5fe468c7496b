/**
 * numcodecs' `lzma` compressor (`{format, check, preset, filters}`: Python's
 * `lzma.compress`/`decompress`) over this package's own xz/LZMA code.
 *
 * @module
 */
import { type JsonObject, type JsonValue, UnsupportedError } from "@zarr/core";
import {
  type BytesToBytesCodec,
  boundedDecode,
  type CodecFactory,
  ConfigReader,
} from "@zarr/core/codec";
import type { LzmaProps } from "./lzma-decode.js";
import { lzmaCompress } from "./lzma-encode.js";
import { lzmaDecompress, type RawChain } from "./lzma-formats.js";

/**
 * The most bytes an lzma encoding (.xz, .lzma or raw) of `n` bytes can take:
 * xz stores incompressible data in LZMA2 chunks of 64 KiB with 3-byte
 * headers (liblzma's `lzma_stream_buffer_bound`: about `n + n/21845 + 100`);
 * LZMA1 (.lzma, raw) has no stored fallback and codes random data about 1.5%
 * larger. `n/8 + 64 KiB` covers both with room for block headers, checks,
 * the index, several streams (xz -T) and stream padding.
 */
export function lzmaMaxEncodedSize(n: number): number {
  return n + Math.floor(n / 8) + 64 * 1024;
}

/** liblzma's preset dictionary sizes (presets 0..9). */
const PRESET_DICT = [18, 20, 21, 22, 22, 23, 23, 24, 25, 26].map((b) => 2 ** b);
const PRESET_EXTREME = 0x80000000;
const CHECKS = [-1, 0, 1, 4, 10];
/** numcodecs writes Python's FILTER_LZMA1 (0x4000000000000001), which JSON numbers round to 2^62. */
const FILTER_LZMA1 = 2 ** 62;

function presetLevel(config: ConfigReader, v: JsonValue | undefined, field: string): number {
  if (v === undefined || v === null) return 6;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || (v & ~PRESET_EXTREME) > 9)
    throw config.error(field, `must be 0..9 (optionally | PRESET_EXTREME), got ${config.show(v)}`);
  return v & 0xf;
}

function filterInt(
  config: ConfigReader,
  f: JsonObject,
  i: number,
  key: string,
  min: number,
  max: number,
  fallback: number,
): number {
  const v = f[key] ?? fallback;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max)
    throw config.error(
      `filters[${i}].${key}`,
      `must be an integer in ${min}..${max}, got ${config.show(v)}`,
    );
  return v;
}

/** Parses numcodecs' `filters` (Python lzma filter dicts) into a chain this package runs. */
function parseFilters(config: ConfigReader, value: JsonValue | undefined): RawChain | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length === 0 || value.length > 4)
    throw config.error("filters", "must be null or a list of 1..4 filter objects");
  const deltas: number[] = [];
  let last: RawChain["last"] | undefined;
  value.forEach((f, i) => {
    if (typeof f !== "object" || f === null || Array.isArray(f))
      throw config.error(`filters[${i}]`, "must be an object with an id");
    if (last) throw config.error(`filters[${i}]`, "follows the LZMA filter, which must be last");
    // Python's FILTER_LZMA1 (0x4000000000000001) does not fit a double: the JSON reader gives a bigint.
    const id = f.id === 0x4000000000000001n ? FILTER_LZMA1 : f.id;
    const preset = presetLevel(config, f.preset, `filters[${i}].preset`);
    const dictSize = () =>
      filterInt(config, f, i, "dict_size", 4096, 1536 * 2 ** 20, PRESET_DICT[preset]);
    if (id === 3) deltas.push(filterInt(config, f, i, "dist", 1, 256, 1));
    else if (id === 0x21) last = { id: "lzma2", dictSize: dictSize() };
    else if (id === FILTER_LZMA1) {
      const props: LzmaProps = {
        lc: filterInt(config, f, i, "lc", 0, 4, 3),
        lp: filterInt(config, f, i, "lp", 0, 4, 0),
        pb: filterInt(config, f, i, "pb", 0, 4, 2),
      };
      if (props.lc + props.lp > 4)
        throw config.error(`filters[${i}]`, `lc + lp is ${props.lc + props.lp} (at most 4)`);
      last = { id: "lzma1", props, dictSize: dictSize() };
    } else {
      throw new UnsupportedError(
        `${config.path}: lzma: filters[${i}].id: filter ${String(id)} is not supported (Delta, LZMA1 and LZMA2 are)`,
        { path: config.path },
      );
    }
  });
  if (!last) throw config.error("filters", "must end with an LZMA1 or LZMA2 filter");
  return { deltas, last };
}

/** lzma `filters` as numcodecs writes them: FILTER_LZMA1 as its exact (bigint) value. */
export function lzmaFiltersJson(filters: JsonValue | undefined): JsonValue {
  if (!Array.isArray(filters)) return null;
  return filters.map((f) =>
    typeof f === "object" && f !== null && !Array.isArray(f) && f.id === FILTER_LZMA1
      ? { ...f, id: 0x4000000000000001n }
      : f,
  );
}

function lzmaFactory(name: string): CodecFactory {
  return {
    kind: "bytes_to_bytes",
    fromConfig(configuration, context): BytesToBytesCodec {
      const json = configuration ?? {};
      const config = new ConfigReader("lzma", json, context.path);
      const format = config.integer("format", 0, 3, 1);
      const check = config.integer("check", -1, 10, -1);
      if (!CHECKS.includes(check))
        throw config.error("check", `must be one of ${CHECKS.join(", ")}, got ${check}`);
      const preset = presetLevel(config, json.preset, "preset");
      const chain = parseFilters(config, json.filters);
      if (format === 3 && !chain)
        throw config.error("filters", "FORMAT_RAW (3) needs a filter chain");
      if (format === 2 && chain && (chain.deltas.length || chain.last.id !== "lzma1"))
        throw config.error("filters", "FORMAT_ALONE (2) takes exactly one LZMA1 filter");
      if (format === 1 && chain?.last.id === "lzma1")
        throw config.error("filters", "FORMAT_XZ (1) needs LZMA2, not LZMA1");
      if (format !== 1 && check !== -1 && check !== 0)
        throw config.error("check", `only FORMAT_XZ stores a check (format ${format})`);
      const path = context.path;
      const configJson: JsonObject = {
        format,
        check,
        preset: json.preset ?? null,
        filters: lzmaFiltersJson(json.filters),
      };
      return {
        kind: "bytes_to_bytes",
        name,
        toJSON: () => ({ name, configuration: configJson }),
        encode: (bytes) => lzmaCompress(bytes, { format, check, preset, chain }, path),
        decode: (bytes, decodedSize, options) =>
          boundedDecode("lzma", path, decodedSize, options, (limit, exact) =>
            lzmaDecompress(bytes, format, chain, limit, path, exact),
          ),
        maxEncodedSize: lzmaMaxEncodedSize,
      };
    },
  };
}

/** `lzma` (`{format, check, preset, filters}` as numcodecs' LZMA). */
export const lzmaCodec: CodecFactory = lzmaFactory("lzma");
/** `numcodecs.lzma`. */
export const numcodecsLzmaCodec: CodecFactory = lzmaFactory("numcodecs.lzma");

/**
 * The v3 layout matrix: data types × codec chains (bytes little/big, transpose,
 * gzip, zstd with and without checksum, blosc variants, crc32c, sharding with the
 * index at the start or end, inner chains, nested sharding, compression after
 * sharding), with the chunk key encoding rotating over default "/" and "." and
 * v2 "." and "/"; fill values in every JSON form per data type; shapes 0-d,
 * empty, 1-d, 3-d and ragged edges with partial shards. Every case with room
 * for it has its first chunk (first shard when sharded) equal to the fill value.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "@zarr/core";

/** One v3 array to write. */
export interface V3Case {
  name: string;
  group: string;
  dataType: string;
  shape: number[];
  /** Chunk shape (the shard shape when sharded). */
  chunks: number[];
  codecs: JsonValue[];
  keyEncoding: { name: string; configuration: JsonObject };
  /** `undefined`: the default; else a JSON form or JS scalar. */
  fill?: unknown;
}

export const V3_TYPES = [
  "bool",
  "int8",
  "int16",
  "int32",
  "int64",
  "uint8",
  "uint16",
  "uint32",
  "uint64",
  "float16",
  "float32",
  "float64",
  "complex64",
  "complex128",
  "r8",
  "r24",
  "r64",
  "string",
  "bytes",
];

const ITEM: Record<string, number> = {
  bool: 1,
  int8: 1,
  int16: 2,
  int32: 4,
  int64: 8,
  uint8: 1,
  uint16: 2,
  uint32: 4,
  uint64: 8,
  float16: 2,
  float32: 4,
  float64: 8,
  complex64: 8,
  complex128: 16,
  r8: 1,
  r24: 3,
  r64: 8,
};

export const KEY_ENCODINGS: V3Case["keyEncoding"][] = [
  { name: "default", configuration: { separator: "/" } },
  { name: "default", configuration: { separator: "." } },
  { name: "v2", configuration: { separator: "." } },
  { name: "v2", configuration: { separator: "/" } },
];

const variable = (t: string) => t === "string" || t === "bytes";

/** The array -> bytes codec of a data type. */
function serializer(t: string, endian: "little" | "big" = "little"): JsonObject {
  if (t === "string") return { name: "vlen-utf8" };
  if (t === "bytes") return { name: "vlen-bytes" };
  return { name: "bytes", configuration: { endian } };
}

const gzip = (level = 5): JsonObject => ({ name: "gzip", configuration: { level } });
const zstd = (level: number, checksum: boolean): JsonObject => ({
  name: "zstd",
  configuration: { level, checksum },
});
const crc: JsonObject = { name: "crc32c" };

function blosc(t: string, cname: string, shuffle: string, clevel: number): JsonObject {
  return {
    name: "blosc",
    configuration: {
      cname,
      clevel,
      shuffle: variable(t) ? "noshuffle" : shuffle,
      typesize: ITEM[t] ?? 1,
      blocksize: 0,
    },
  };
}

function transpose(ndim: number): JsonObject {
  return {
    name: "transpose",
    configuration: { order: Array.from({ length: ndim }, (_, i) => ndim - 1 - i) },
  };
}

function shard(
  inner: number[],
  codecs: JsonValue[],
  location: "start" | "end",
  crcIndex = true,
): JsonObject {
  return {
    name: "sharding_indexed",
    configuration: {
      chunk_shape: inner,
      codecs,
      index_codecs: crcIndex ? [serializer("uint64"), crc] : [serializer("uint64")],
      index_location: location,
    },
  };
}

/** Codec chains by name for a data type and rank (the chunk shape decides sharding inner shapes). */
export function chains(t: string, ndim: number, chunks: number[]): Record<string, JsonValue[]> {
  const s = serializer(t);
  const inner = chunks.map((c) => Math.max(1, Math.floor(c / 2)));
  const innerNested = inner.map((c) =>
    Math.max(1, Math.floor(c / 2)) === c ? c : Math.max(1, Math.floor(c / 2)),
  );
  const out: Record<string, JsonValue[]> = {
    "bytes-le": [s],
    "bytes-be": [serializer(t, "big")],
    transpose: ndim > 1 ? [transpose(ndim), s] : [s],
    gzip: [s, gzip(5)],
    "zstd-checksum": [s, zstd(3, true)],
    zstd: [s, zstd(0, false)],
    "blosc-lz4-shuffle": [s, blosc(t, "lz4", "shuffle", 5)],
    "blosc-zstd-bitshuffle": [s, blosc(t, "zstd", "bitshuffle", 3)],
    "blosc-blosclz-noshuffle": [s, blosc(t, "blosclz", "noshuffle", 9)],
    "blosc-lz4hc-bitshuffle": [s, blosc(t, "lz4hc", "bitshuffle", 1)],
    "blosc-zlib-shuffle": [s, blosc(t, "zlib", "shuffle", 4)],
    crc32c: [s, crc],
    "transpose-be-gzip-crc32c": [
      ...(ndim > 1 ? [transpose(ndim)] : []),
      serializer(t, "big"),
      gzip(1),
      crc,
    ],
    "shard-end": [shard(inner, [s], "end")],
    "shard-start-zstd": [shard(inner, [s, zstd(1, false)], "start")],
    "shard-transpose-gzip-noindexcrc": [
      shard(
        inner,
        [...(ndim > 1 ? [transpose(ndim)] : []), serializer(t, "big"), gzip(6)],
        "end",
        false,
      ),
    ],
    "shard-then-gzip": [shard(inner, [s, crc], "start"), gzip(2)],
    "shard-nested": [shard(inner, [shard(innerNested, [s, zstd(2, true)], "end")], "start")],
  };
  return out;
}

function fillsFor(t: string): { key: string; fill: unknown }[] {
  switch (t) {
    case "bool":
      return [{ key: "true", fill: true }];
    case "int64":
      return [
        { key: "min", fill: -(2n ** 63n) },
        { key: "max", fill: 2n ** 63n - 1n },
        { key: "2p53p1", fill: 2n ** 53n + 1n },
      ];
    case "uint64":
      return [
        { key: "max", fill: 2n ** 64n - 1n },
        { key: "2p63", fill: 2n ** 63n },
      ];
    case "float16":
    case "float32":
    case "float64": {
      const payload =
        t === "float16" ? "0x7e01" : t === "float32" ? "0x7fc00001" : "0x7ff8000000000001";
      const negNaN =
        t === "float16" ? "0xfe00" : t === "float32" ? "0xffc00000" : "0xfff8000000000000";
      return [
        { key: "nan", fill: "NaN" },
        { key: "inf", fill: "Infinity" },
        { key: "ninf", fill: "-Infinity" },
        { key: "payload", fill: payload },
        { key: "negnan", fill: negNaN },
        { key: "negzero", fill: -0 },
        { key: "num", fill: 0.1 },
      ];
    }
    case "complex64":
    case "complex128":
      return [
        { key: "nan-ninf", fill: ["NaN", "-Infinity"] },
        { key: "payload", fill: [t === "complex64" ? "0x7fc00001" : "0x7ff8000000000001", 1] },
        { key: "negzero", fill: [-0, -0] },
      ];
    case "string":
      return [{ key: "text", fill: "\u00e9\u{1F600}" }];
    case "bytes":
      return [{ key: "bytes", fill: Uint8Array.from([0, 1, 255]) }];
    default:
      if (t.startsWith("r"))
        return [{ key: "bytes", fill: Array.from({ length: ITEM[t] }, (_, i) => 255 - i * 3) }];
      if (t.startsWith("int") || t.startsWith("uint"))
        return [
          {
            key: "max",
            fill: t.startsWith("u") ? 2 ** (8 * ITEM[t]) - 1 : 2 ** (8 * ITEM[t] - 1) - 1,
          },
        ];
      return [];
  }
}

/** The v3 matrix. */
export function v3Cases(): V3Case[] {
  const out: V3Case[] = [];
  let k = 0;
  const shape = [9, 11];
  const chunks = [4, 6];
  for (const t of V3_TYPES) {
    const all = chains(t, 2, chunks);
    Object.entries(all).forEach(([cn, codecs], ci) => {
      const fills = fillsFor(t);
      out.push({
        name: `codec/${t}/${cn}`,
        group: "dtype×codecs",
        dataType: t,
        shape,
        chunks,
        codecs,
        keyEncoding: KEY_ENCODINGS[k++ % KEY_ENCODINGS.length],
        fill: ci % 3 === 2 && fills.length ? fills[ci % fills.length].fill : undefined,
      });
    });
  }
  // fill values, each with two chains
  V3_TYPES.forEach((t, ti) => {
    fillsFor(t).forEach(({ key, fill }, fi) => {
      const names = Object.keys(chains(t, 2, chunks));
      for (const cn of new Set([names[(ti + fi) % names.length], "shard-end"])) {
        out.push({
          name: `fill/${t}/${key}/${cn}`,
          group: "fill",
          dataType: t,
          shape,
          chunks,
          codecs: chains(t, 2, chunks)[cn],
          keyEncoding: KEY_ENCODINGS[k++ % KEY_ENCODINGS.length],
          fill,
        });
      }
    });
  });
  // shapes
  const shapes = [
    { key: "0d", shape: [], chunks: [] },
    { key: "empty", shape: [0, 5], chunks: [2, 2] },
    { key: "1d", shape: [17], chunks: [6] },
    { key: "3d", shape: [5, 3, 7], chunks: [2, 2, 4] },
  ];
  V3_TYPES.forEach((t, ti) => {
    shapes.forEach((s, si) => {
      const all = chains(t, s.shape.length, s.chunks);
      const names = [
        "gzip",
        "transpose",
        "shard-end",
        "zstd-checksum",
        "shard-start-zstd",
        "crc32c",
        "bytes-be",
      ];
      const cn = names[(ti + si) % names.length];
      const fills = fillsFor(t);
      out.push({
        name: `shape/${t}/${s.key}/${cn}`,
        group: "shape",
        dataType: t,
        shape: s.shape,
        chunks: s.chunks,
        codecs: all[cn],
        keyEncoding: KEY_ENCODINGS[k++ % KEY_ENCODINGS.length],
        fill: fills.length && si % 2 === 0 ? fills[ti % fills.length].fill : undefined,
      });
    });
  });
  return out;
}

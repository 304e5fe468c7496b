/**
 * The v2 layout matrix, generated as a cross product of axes with a rotating
 * pairing (so every dtype meets every compressor family, both orders and both
 * separators, without the full product):
 *
 * - dtypes × compressor families (none, zlib, gzip, blosc, zstd, lz4, bz2, lzma),
 *   blosc's own variant rotating; order and separator rotate per dtype
 * - every blosc cname × shuffle 0/1/2 × representative dtypes
 * - fill values per dtype: null, a custom value, and per kind NaN / ±Infinity /
 *   -0.0 / a NaN payload / int64 and uint64 extremes / NaT
 * - shapes per dtype: 0-d, empty (a 0 in the shape), 1-d and 3-d ragged
 * - filters (delta, fixedscaleoffset, quantize, bitround, astype, packbits,
 *   categorize, shuffle) over the dtypes they accept, with values in and out of
 *   their range, NaN and ±Infinity
 * - object arrays: vlen-utf8, vlen-bytes, json2, categorize on |O × fills
 *   (null, default, a string) × shapes
 *
 * Every case with a fill value has its first chunk equal to the fill value.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "@zarr/core";

/** One v2 array to write. */
export interface V2Case {
  /** Path under the v2 root. */
  name: string;
  /** Which part of the matrix it belongs to. */
  group: string;
  dtype: JsonValue;
  shape: number[];
  chunks: number[];
  compressor: JsonObject | null;
  filters: JsonObject[] | null;
  order: "C" | "F";
  sep: "." | "/";
  /** `undefined`: the default; otherwise what createArrayV2 takes. */
  fill?: unknown;
  /** Decoded values differ from the input by design (lossy filters). */
  lossy?: boolean;
  /** Value generation hints. */
  values?: { floatRange?: { center: number; spread: number }; labels?: string[]; json?: boolean };
}

export const STRUCT_NESTED: JsonValue = [
  ["a", "<i4"],
  ["b", ">f8", [2]],
  [
    "c",
    [
      ["x", "|u1"],
      ["y", "<U2"],
    ],
  ],
];
export const STRUCT_TIMES: JsonValue = [
  ["t", "<M8[ns]"],
  ["f", "<f2"],
  ["s", "|S3", [2, 2]],
  ["z", ">c8"],
];

export const V2_DTYPES: { key: string; dtype: JsonValue }[] = [
  ..."|b1 |i1 <i2 >i2 <i4 >i4 <i8 >i8 |u1 <u2 >u2 <u4 >u4 <u8 >u8 <f2 >f2 <f4 >f4 <f8 >f8 <c8 >c8 <c16 >c16"
    .split(" ")
    .map((d) => ({ key: d, dtype: d })),
  ..."<M8[ns] >M8[us] <M8[ms] <M8[s] <M8[D] <M8[Y] <m8[ns] >m8[h] <m8[s] <m8[W]"
    .split(" ")
    .map((d) => ({ key: d, dtype: d })),
  ..."|S1 |S7 <U1 <U5 >U3 |V1 |V5".split(" ").map((d) => ({ key: d, dtype: d })),
  { key: "struct-nested", dtype: STRUCT_NESTED },
  { key: "struct-times", dtype: STRUCT_TIMES },
];

const BLOSC_CNAMES = ["lz4", "lz4hc", "blosclz", "zlib", "zstd"];

/** Every blosc variant: cname × shuffle, clevel rotating. */
export const BLOSC_VARIANTS: JsonObject[] = BLOSC_CNAMES.flatMap((cname, i) =>
  [0, 1, 2].map((shuffle, j) => ({
    id: "blosc",
    cname,
    clevel: [1, 5, 9][(i + j) % 3],
    shuffle,
    blocksize: 0,
  })),
);

/** One representative per compressor family (blosc rotates separately). */
export const COMPRESSOR_FAMILIES: Record<string, JsonObject | null> = {
  none: null,
  zlib: { id: "zlib", level: 1 },
  gzip: { id: "gzip", level: 5 },
  blosc: BLOSC_VARIANTS[0],
  zstd: { id: "zstd", level: 3 },
  lz4: { id: "lz4", acceleration: 1 },
  bz2: { id: "bz2", level: 9 },
  lzma: { id: "lzma", format: 1, check: -1, preset: null, filters: null },
};

const FAMILY_NAMES = Object.keys(COMPRESSOR_FAMILIES);

/** A path-safe form of a dtype key. */
export function slug(s: string): string {
  return s
    .replace(/\|/g, "p")
    .replace(/</g, "l")
    .replace(/>/g, "b")
    .replace(/[[\]]/g, "_")
    .replace(/_$/, "");
}

function kindOf(dtype: JsonValue): string {
  if (typeof dtype !== "string") return "struct";
  return dtype.slice(1, 2);
}

function itemBytes(dtype: string): number {
  const m = /(\d+)/.exec(dtype.slice(2));
  return m ? Number(m[1]) : 1;
}

/** Fill values worth testing per dtype (beyond the default and null). */
function fillsFor(dtype: JsonValue): { key: string; fill: unknown }[] {
  const k = kindOf(dtype);
  const d = dtype as string;
  switch (k) {
    case "b":
      return [{ key: "true", fill: true }];
    case "i":
    case "u": {
      const n = itemBytes(d);
      if (n === 8 && k === "i")
        return [
          { key: "min", fill: -(2n ** 63n) },
          { key: "max", fill: 2n ** 63n - 1n },
          { key: "2p53p1", fill: 2n ** 53n + 1n },
        ];
      if (n === 8)
        return [
          { key: "max", fill: 2n ** 64n - 1n },
          { key: "2p63", fill: 2n ** 63n },
        ];
      return [
        { key: "max", fill: k === "i" ? 2 ** (8 * n - 1) - 1 : 2 ** (8 * n) - 1 },
        { key: "seven", fill: 7 },
      ];
    }
    case "f":
      return [
        { key: "nan", fill: "NaN" },
        { key: "inf", fill: "Infinity" },
        { key: "ninf", fill: "-Infinity" },
        { key: "negzero", fill: -0 },
        {
          key: "payload",
          fill:
            itemBytes(d) === 8
              ? "0x7ff8000000000001"
              : itemBytes(d) === 4
                ? "0x7fc00001"
                : "0x7e01",
        },
        { key: "half", fill: 1.5 },
      ];
    case "c":
      return [
        { key: "nan-inf", fill: ["NaN", "Infinity"] },
        { key: "num", fill: [1.5, -2] },
        { key: "negzero", fill: [-0, 0] },
      ];
    case "M":
    case "m":
      return [
        { key: "nat", fill: "NaT" },
        { key: "num", fill: 1234567n },
      ];
    case "S":
      return [{ key: "text", fill: "a\u0000b".slice(0, itemBytes(d)) }];
    case "U":
      return [{ key: "text", fill: "\u00e9\u{1F600}".slice(0, itemBytes(d) > 1 ? 3 : 1) }];
    case "V":
      return [{ key: "bytes", fill: Uint8Array.from({ length: itemBytes(d) }, (_, i) => 250 - i) }];
    default:
      return [];
  }
}

/** The v2 matrix. */
export function v2Cases(): V2Case[] {
  const out: V2Case[] = [];
  const base = { shape: [5, 7], chunks: [2, 3], filters: null };
  // dtypes × compressor families
  V2_DTYPES.forEach(({ key, dtype }, di) => {
    FAMILY_NAMES.forEach((fam, fi) => {
      const j = di + fi;
      const compressor =
        fam === "blosc"
          ? BLOSC_VARIANTS[(di * 7) % BLOSC_VARIANTS.length]
          : COMPRESSOR_FAMILIES[fam];
      out.push({
        ...base,
        name: `dtype/${slug(key)}/${fam}`,
        group: "dtype×compressor",
        dtype,
        compressor,
        order: j % 2 ? "F" : "C",
        sep: (j >> 1) % 2 ? "/" : ".",
        fill: kindOf(dtype) === "f" && fi % 3 === 1 ? "NaN" : undefined,
      });
    });
  });
  // blosc variants × representative dtypes
  const reps = ["|b1", ">i2", "<u8", ">f8", "<c8", "|S7", "<M8[ns]"];
  BLOSC_VARIANTS.forEach((compressor, bi) => {
    reps.forEach((dtype, ri) => {
      out.push({
        ...base,
        shape: [9, 11],
        chunks: [4, 5],
        name: `blosc/${compressor.cname}-s${compressor.shuffle}-l${compressor.clevel}/${slug(dtype)}`,
        group: "blosc",
        dtype,
        compressor,
        order: (bi + ri) % 2 ? "F" : "C",
        sep: ri % 2 ? "/" : ".",
      });
    });
  });
  // fill values
  V2_DTYPES.forEach(({ key, dtype }, di) => {
    const fills = [{ key: "null", fill: null as unknown }, ...fillsFor(dtype)];
    fills.forEach(({ key: fk, fill }, fi) => {
      const fam = FAMILY_NAMES[(di + fi) % FAMILY_NAMES.length];
      out.push({
        ...base,
        name: `fill/${slug(key)}/${fk}`,
        group: "fill",
        dtype,
        compressor: COMPRESSOR_FAMILIES[fam],
        order: (di + fi) % 2 ? "F" : "C",
        sep: fi % 2 ? "/" : ".",
        fill,
      });
    });
  });
  // shapes: 0-d, empty, 1-d, 3-d
  const shapes: { key: string; shape: number[]; chunks: number[] }[] = [
    { key: "0d", shape: [], chunks: [] },
    { key: "empty", shape: [0, 4], chunks: [2, 3] },
    { key: "1d", shape: [13], chunks: [4] },
    { key: "3d", shape: [3, 4, 5], chunks: [2, 3, 2] },
  ];
  V2_DTYPES.forEach(({ key, dtype }, di) => {
    shapes.forEach((s, si) => {
      const fam = FAMILY_NAMES[(di * 3 + si) % FAMILY_NAMES.length];
      const fills = fillsFor(dtype);
      out.push({
        name: `shape/${slug(key)}/${s.key}`,
        group: "shape",
        dtype,
        shape: s.shape,
        chunks: s.chunks,
        filters: null,
        compressor: COMPRESSOR_FAMILIES[fam],
        order: (di + si) % 2 ? "F" : "C",
        sep: si % 2 ? "/" : ".",
        fill:
          si === 0 && fills.length ? fills[di % fills.length].fill : si === 1 ? null : undefined,
      });
    });
  });
  out.push(...filterCases(), ...objectCases());
  return out;
}

function filterCases(): V2Case[] {
  const out: V2Case[] = [];
  const add = (
    name: string,
    dtype: string,
    filters: JsonObject[],
    extra: Partial<V2Case> = {},
  ): void => {
    const i = out.length;
    out.push({
      name: `filter/${name}`,
      group: "filter",
      dtype,
      shape: [6, 7],
      chunks: [4, 3],
      filters,
      compressor: COMPRESSOR_FAMILIES[FAMILY_NAMES[i % FAMILY_NAMES.length]],
      order: i % 2 ? "F" : "C",
      sep: (i >> 1) % 2 ? "/" : ".",
      ...extra,
    });
  };
  // delta: every integer and float dtype, with and without astype
  // (integer deltas wrap and are exact; float deltas lose what follows a NaN or an
  // infinity, and a narrower astype wraps: those are lossy.)
  for (const d of ["|i1", "<i2", ">i4", "<i8", "|u1", ">u2", "<u4", ">u8"])
    add(`delta/${slug(d)}`, d, [{ id: "delta", dtype: d }]);
  for (const d of ["<f4", ">f8", "<f2"])
    add(`delta/${slug(d)}`, d, [{ id: "delta", dtype: d }], { lossy: true });
  add("delta/i4-as-i2", "<i4", [{ id: "delta", dtype: "<i4", astype: "<i2" }], { lossy: true });
  add("delta/u8-as-i1", "<u8", [{ id: "delta", dtype: "<u8", astype: "|i1" }], { lossy: true });
  add("delta/f8-as-f4", "<f8", [{ id: "delta", dtype: "<f8", astype: "<f4" }], { lossy: true });
  // fixedscaleoffset: float -> int with clipping-free wraparound, NaN, Inf, out of range
  const fso: [string, string, number, number, number][] = [
    ["<f8", "|u1", 1000, 10, 0.05],
    ["<f8", "<i2", 0, 100, 500],
    [">f4", "<i4", -5, 1e4, 1e6],
    ["<f4", "|i1", 1, 10, 20],
    ["<f8", "<u4", 0, 1, 2e9],
    ["<f8", "<f4", 0.5, 3, 1e3],
    ["<i4", "<i2", 100, 1, 40000],
  ];
  fso.forEach(([d, as, offset, scale, spread], i) => {
    add(
      `fixedscaleoffset/${slug(d)}-${slug(as)}-${i}`,
      d,
      [{ id: "fixedscaleoffset", offset, scale, dtype: d, astype: as }],
      {
        lossy: true,
        values: { floatRange: { center: offset, spread } },
        fill: i % 2 ? "NaN" : undefined,
      },
    );
  });
  // quantize
  for (const [d, digits] of [
    ["<f4", 1],
    ["<f8", 3],
    [">f8", 10],
    ["<f4", 0],
  ] as [string, number][])
    add(`quantize/${slug(d)}-${digits}`, d, [{ id: "quantize", digits, dtype: d }], {
      lossy: true,
      fill: "NaN",
    });
  // bitround
  for (const [d, keep] of [
    ["<f4", 0],
    ["<f4", 5],
    ["<f4", 23],
    ["<f8", 3],
    ["<f8", 20],
    ["<f8", 52],
  ] as [string, number][])
    add(`bitround/${slug(d)}-${keep}`, d, [{ id: "bitround", keepbits: keep }], { lossy: true });
  // astype
  for (const [dec, enc] of [
    ["<f8", "<f4"],
    ["<f4", "<f2"],
    ["<f8", "<f2"],
    ["<i8", "<i4"],
    ["<f4", "<f8"],
    ["<u2", "|u1"],
  ])
    add(
      `astype/${slug(dec)}-${slug(enc)}`,
      dec,
      [{ id: "astype", encode_dtype: enc, decode_dtype: dec }],
      {
        lossy: true,
      },
    );
  // packbits (booleans only), also after a shape that is not a multiple of 8
  add("packbits/b1", "|b1", [{ id: "packbits" }]);
  add("packbits/b1-1d", "|b1", [{ id: "packbits" }], { shape: [13], chunks: [5], fill: true });
  // categorize on fixed-width unicode
  const labels = ["", "h", "h\u00e9", "h\u00e9\u4e16", "\u{1F600}"];
  // (values outside the labels encode as 0 and decode as "": lossy)
  add("categorize/U5-u1", "<U5", [{ id: "categorize", labels, dtype: "<U5", astype: "|u1" }], {
    values: { labels: [...labels, "zz"] },
    lossy: true,
  });
  add(
    "categorize/U3-u2",
    ">U3",
    [{ id: "categorize", labels: labels.slice(0, 4), dtype: ">U3", astype: "<u2" }],
    {
      values: { labels: [...labels.slice(0, 4), "q"] },
      fill: "h",
      lossy: true,
    },
  );
  // shuffle, alone and after delta
  for (const [d, es] of [
    ["<i4", 4],
    [">f8", 8],
    ["<c16", 16],
    ["|u1", 1],
    ["<i2", 4],
  ] as [string, number][])
    add(`shuffle/${slug(d)}-${es}`, d, [{ id: "shuffle", elementsize: es }]);
  add("chain/delta-shuffle", ">i8", [
    { id: "delta", dtype: ">i8" },
    { id: "shuffle", elementsize: 8 },
  ]);
  add(
    "chain/fso-delta",
    "<f8",
    [
      { id: "fixedscaleoffset", offset: 0, scale: 100, dtype: "<f8", astype: "<i4" },
      { id: "delta", dtype: "<i4" },
    ],
    { lossy: true, values: { floatRange: { center: 0, spread: 100 } } },
  );
  add(
    "chain/bitround-shuffle",
    "<f4",
    [
      { id: "bitround", keepbits: 7 },
      { id: "shuffle", elementsize: 4 },
    ],
    {
      lossy: true,
    },
  );
  return out;
}

function objectCases(): V2Case[] {
  const out: V2Case[] = [];
  const codecs: { key: string; filters: JsonObject[]; values?: V2Case["values"] }[] = [
    { key: "vlen-utf8", filters: [{ id: "vlen-utf8" }] },
    { key: "vlen-bytes", filters: [{ id: "vlen-bytes" }] },
    {
      key: "json2",
      filters: [
        {
          id: "json2",
          encoding: "utf-8",
          skipkeys: false,
          ensure_ascii: true,
          check_circular: true,
          allow_nan: true,
          sort_keys: true,
          indent: null,
          separators: [",", ":"],
        },
      ],
      values: { json: true },
    },
    {
      key: "categorize-O",
      // categorize alone is the object codec (zarr-python accepts it without another)
      filters: [{ id: "categorize", labels: ["a", "b\u00e9", ""], dtype: "|O", astype: "|u1" }],
      values: { labels: ["a", "b\u00e9", ""] },
    },
  ];
  const fills: { key: string; fill: unknown }[] = [
    { key: "null", fill: null },
    { key: "default", fill: undefined },
    { key: "text", fill: "b\u00e9" },
  ];
  const shapes = [
    { key: "2d", shape: [5, 7], chunks: [2, 3] },
    { key: "0d", shape: [], chunks: [] },
    { key: "empty", shape: [0, 3], chunks: [2, 2] },
  ];
  codecs.forEach((c, ci) => {
    fills.forEach((f, fi) => {
      if (f.key === "text" && c.key !== "vlen-utf8" && c.key !== "categorize-O") return;
      shapes.forEach((s, si) => {
        const i = ci * 9 + fi * 3 + si;
        out.push({
          name: `object/${c.key}/${f.key}/${s.key}`,
          group: "object",
          dtype: "|O",
          shape: s.shape,
          chunks: s.chunks,
          filters: c.filters,
          compressor: COMPRESSOR_FAMILIES[FAMILY_NAMES[i % 6]],
          order: i % 2 ? "F" : "C",
          sep: (i >> 1) % 2 ? "/" : ".",
          fill: f.fill,
          values: c.values,
        });
      });
    });
  });
  return out;
}

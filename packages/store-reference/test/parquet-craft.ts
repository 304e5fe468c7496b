// Hand-made Parquet files: a minimal Thrift compact-protocol writer and a
// one-row-group file builder, so that tests can lay out page bodies (levels,
// RLE/bit-packed runs, dictionary indices) byte by byte, in v1 and v2 data
// pages. Parquet format: https://github.com/apache/parquet-format
// (parquet.thrift: PageHeader, FileMetaData; Encodings.md: the hybrid).

/** A Thrift compact field: id, type and value. */
type Field =
  | [number, "i32" | "i64", number | bigint]
  | [number, "bin", string | Uint8Array]
  | [number, "bool", boolean]
  | [number, "struct", Field[]]
  | [number, "list-i32", number[]]
  | [number, "list-bin", string[]]
  | [number, "list-struct", Field[][]];

const TYPE = { bool: 1, i32: 5, i64: 6, bin: 8, list: 9, struct: 12 } as const;

class Bytes {
  readonly out: number[] = [];
  push(...b: number[]): this {
    this.out.push(...b);
    return this;
  }
  bytes(b: Uint8Array): this {
    for (const x of b) this.out.push(x);
    return this;
  }
}

/** ULEB128 of an unsigned integer (any size). */
export function varint(n: number | bigint): number[] {
  let v = BigInt(n);
  const out: number[] = [];
  do {
    const low = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v ? low | 0x80 : low);
  } while (v);
  return out;
}

function zigzag(n: number | bigint): number[] {
  const v = BigInt(n);
  return varint(v >= 0n ? v << 1n : (-v << 1n) - 1n);
}

function binary(w: Bytes, v: string | Uint8Array): void {
  const b = typeof v === "string" ? new TextEncoder().encode(v) : v;
  w.push(...varint(b.length)).bytes(b);
}

function listHeader(w: Bytes, size: number, elem: number): void {
  if (size < 15) w.push((size << 4) | elem);
  else w.push(0xf0 | elem, ...varint(size));
}

function struct(w: Bytes, fields: Field[]): void {
  let last = 0;
  for (const [id, kind, value] of fields) {
    const type =
      kind === "bool"
        ? value
          ? 1
          : 2
        : kind.startsWith("list")
          ? TYPE.list
          : TYPE[kind as "i32" | "i64" | "bin" | "struct"];
    const delta = id - last;
    if (delta > 0 && delta < 16) w.push((delta << 4) | type);
    else w.push(type, ...zigzag(id));
    last = id;
    switch (kind) {
      case "i32":
      case "i64":
        w.push(...zigzag(value as number | bigint));
        break;
      case "bin":
        binary(w, value as string | Uint8Array);
        break;
      case "struct":
        struct(w, value as Field[]);
        break;
      case "list-i32":
        listHeader(w, (value as number[]).length, TYPE.i32);
        for (const x of value as number[]) w.push(...zigzag(x));
        break;
      case "list-bin":
        listHeader(w, (value as string[]).length, TYPE.bin);
        for (const x of value as string[]) binary(w, x);
        break;
      case "list-struct":
        listHeader(w, (value as Field[][]).length, TYPE.struct);
        for (const x of value as Field[][]) struct(w, x);
        break;
      case "bool":
        break;
    }
  }
  w.push(0);
}

const ENCODING = {
  PLAIN: 0,
  PLAIN_DICTIONARY: 2,
  RLE: 3,
  BIT_PACKED: 4,
  DELTA_BINARY_PACKED: 5,
  DELTA_LENGTH_BYTE_ARRAY: 6,
  DELTA_BYTE_ARRAY: 7,
  RLE_DICTIONARY: 8,
  BYTE_STREAM_SPLIT: 9,
} as const;
export type CraftEncoding = keyof typeof ENCODING;
const PHYSICAL = { BOOLEAN: 0, INT32: 1, INT64: 2, BYTE_ARRAY: 6 } as const;

/** A page as laid out in the file (bodies are stored uncompressed). */
export type CraftPage =
  | { kind: "dict"; values: number; body: Uint8Array }
  | { kind: "v1"; values: number; encoding: CraftEncoding; body: Uint8Array }
  | {
      kind: "v2";
      values: number;
      nulls: number;
      encoding: CraftEncoding;
      /** Definition levels (hybrid runs, no length prefix). */
      levels: Uint8Array;
      body: Uint8Array;
      rows?: number;
    };

export interface CraftColumn {
  name: string;
  type: keyof typeof PHYSICAL;
  optional: boolean;
  pages: CraftPage[];
}

function pageHeader(p: CraftPage): Field[] {
  if (p.kind === "dict") {
    return [
      [1, "i32", 2],
      [2, "i32", p.body.length],
      [3, "i32", p.body.length],
      [
        7,
        "struct",
        [
          [1, "i32", p.values],
          [2, "i32", ENCODING.PLAIN],
        ],
      ],
    ];
  }
  if (p.kind === "v1") {
    return [
      [1, "i32", 0],
      [2, "i32", p.body.length],
      [3, "i32", p.body.length],
      [
        5,
        "struct",
        [
          [1, "i32", p.values],
          [2, "i32", ENCODING[p.encoding]],
          [3, "i32", ENCODING.RLE],
          [4, "i32", ENCODING.RLE],
        ],
      ],
    ];
  }
  const size = p.levels.length + p.body.length;
  return [
    [1, "i32", 3],
    [2, "i32", size],
    [3, "i32", size],
    [
      8,
      "struct",
      [
        [1, "i32", p.values],
        [2, "i32", p.nulls],
        [3, "i32", p.rows ?? p.values],
        [4, "i32", ENCODING[p.encoding]],
        [5, "i32", p.levels.length],
        [6, "i32", 0],
        [7, "bool", false],
      ],
    ],
  ];
}

/**
 * A Parquet file of one row group of `rows` rows, the given columns stored
 * UNCOMPRESSED page by page.
 */
export function craftParquet(columns: CraftColumn[], rows: number): Uint8Array {
  const w = new Bytes().push(0x50, 0x41, 0x52, 0x31);
  const chunks: Field[][] = [];
  for (const c of columns) {
    const start = w.out.length;
    let dictionary: number | undefined;
    let data: number | undefined;
    const encodings = new Set<number>([ENCODING.RLE]);
    for (const p of c.pages) {
      if (p.kind === "dict") dictionary ??= w.out.length;
      else {
        data ??= w.out.length;
        encodings.add(ENCODING[p.encoding]);
      }
      struct(w, pageHeader(p));
      if (p.kind === "v2") w.bytes(p.levels);
      w.bytes(p.body);
    }
    const size = w.out.length - start;
    const meta: Field[] = [
      [1, "i32", PHYSICAL[c.type]],
      [2, "list-i32", [...encodings]],
      [3, "list-bin", [c.name]],
      [4, "i32", 0],
      [5, "i64", rows],
      [6, "i64", size],
      [7, "i64", size],
      [9, "i64", data ?? start],
    ];
    if (dictionary !== undefined) meta.push([11, "i64", dictionary]);
    chunks.push([
      [2, "i64", start],
      [3, "struct", meta],
    ]);
  }
  const schema: Field[][] = [
    [
      [4, "bin", "schema"],
      [5, "i32", columns.length],
    ],
    ...columns.map((c): Field[] => [
      [1, "i32", PHYSICAL[c.type]],
      [3, "i32", c.optional ? 1 : 0],
      [4, "bin", c.name],
    ]),
  ];
  const footerStart = w.out.length;
  struct(w, [
    [1, "i32", 2],
    [2, "list-struct", schema],
    [3, "i64", rows],
    [
      4,
      "list-struct",
      [
        [
          [1, "list-struct", chunks],
          [2, "i64", footerStart],
          [3, "i64", rows],
        ],
      ],
    ],
  ]);
  const footer = w.out.length - footerStart;
  w.push(footer & 0xff, (footer >> 8) & 0xff, (footer >> 16) & 0xff, footer >>> 24);
  w.push(0x50, 0x41, 0x52, 0x31);
  return Uint8Array.from(w.out);
}

/** Concatenates byte arrays and byte lists. */
export function cat(...parts: (Uint8Array | number[])[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((p) => [...p]));
}

/** An RLE run: header `count << 1`, then the value in ceil(width / 8) bytes. */
export function rleRun(count: number, value: number, width: number): number[] {
  const bytes = [];
  for (let i = 0; i < (width + 7) >> 3; i++) bytes.push((value >>> (8 * i)) & 0xff);
  return [...varint(BigInt(count) << 1n), ...bytes];
}

/** A bit-packed run of `values` (padded with zeros to a multiple of 8), LSB first. */
export function bitPackedRun(values: number[], width: number): number[] {
  const groups = Math.ceil(values.length / 8);
  const out = new Array<number>(groups * width).fill(0);
  values.forEach((v, i) => {
    for (let b = 0; b < width; b++) {
      const bit = i * width + b;
      if ((v >>> b) & 1) out[bit >> 3] |= 1 << (bit & 7);
    }
  });
  return [...varint((groups << 1) | 1), ...out];
}

/** A v1 level stream: 4-byte little-endian length, then the runs. */
export function lengthPrefixed(runs: number[]): number[] {
  const n = runs.length;
  return [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24, ...runs];
}

/** PLAIN BYTE_ARRAY values. */
export function plainStrings(values: string[]): number[] {
  return values.flatMap((s) => lengthPrefixed([...new TextEncoder().encode(s)]));
}

/** PLAIN INT64 values. */
export function plainInt64(values: number[]): number[] {
  const b = new Uint8Array(values.length * 8);
  const view = new DataView(b.buffer);
  for (const [i, v] of values.entries()) view.setBigInt64(i * 8, BigInt(v), true);
  return [...b];
}

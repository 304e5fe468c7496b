/**
 * Checks the data of every page hyparquet will decode for a reference file,
 * before it decodes them. hyparquet's RLE/bit-packed hybrid decoder trusts run
 * lengths from the page (an RLE run of 2^31 values loops 2^31 times and grows
 * a plain Array; a bit-packed run of width 0 and a huge or int32-overflowed
 * count loops for ever). This module walks every such stream exactly as
 * hyparquet 1.33 (`src/datapage.js`, `src/encoding.js`) walks it — the same
 * bytes per run, the same stream ends — and rejects any run that claims more
 * values than the page has left, so that every loop in hyparquet is bounded
 * by O(num_values + page bytes). It also checks what hyparquet would read
 * past or misread silently: level and dictionary index values in range,
 * PLAIN values inside their page, a dictionary before dictionary indices.
 *
 * Only flat schemas (kerchunk's `path`, `offset`, `size`, `raw`) and the
 * encodings checked here are accepted: PLAIN, PLAIN_DICTIONARY,
 * RLE_DICTIONARY, RLE (booleans) and BYTE_STREAM_SPLIT. The DELTA encodings
 * are refused: their block headers and prefix lengths size allocations that
 * the page does not bound (hyparquet allocates `miniblocks per block` bytes,
 * and `prefix + suffix` bytes per DELTA_BYTE_ARRAY value).
 *
 * Parquet format: https://parquet.apache.org/docs/file-format/data-pages/encodings/
 * ("Run Length Encoding / Bit-Packing Hybrid (RLE = 3)").
 *
 * @module
 */

import type {
  CompressionCodec,
  Compressors,
  Encoding,
  PageHeader,
  ParquetType,
  SchemaElement,
} from "hyparquet";

/** A column of a flat schema, as the guard needs it. */
export interface FlatColumn {
  readonly name: string;
  readonly type: ParquetType;
  /** Bytes per value of a FIXED_LEN_BYTE_ARRAY column. */
  readonly typeLength: number | undefined;
  /** 1 for an optional column (definition levels present), 0 for a required one. */
  readonly maxDefinitionLevel: 0 | 1;
}

/** The widest RLE/bit-packed values accepted (hyparquet decodes wider bit-packed values wrongly). */
export const MAX_BIT_WIDTH = 24;

/** The largest RLE/bit-packed header or run count accepted (hyparquet computes with int32). */
const MAX_HEADER = 2 ** 31 - 1;

/**
 * The columns of a flat schema by name. Nested groups and repeated fields are
 * refused: reference files have four flat columns, and hyparquet's list
 * assembly is not walked here.
 */
export function flatColumns(schema: readonly SchemaElement[]): Map<string, FlatColumn> {
  const columns = new Map<string, FlatColumn>();
  for (const element of schema.slice(1)) {
    if (element.num_children || element.repetition_type === "REPEATED" || !element.type) {
      throw new Error(`column ${element.name} is nested or repeated; reference files are flat`);
    }
    columns.set(element.name, {
      name: element.name,
      type: element.type,
      typeLength: element.type_length,
      // hyparquet counts any repetition but REQUIRED (an absent one too) as optional.
      maxDefinitionLevel: element.repetition_type === "REQUIRED" ? 0 : 1,
    });
  }
  return columns;
}

/**
 * Checks the pages of one column chunk, in file order: call {@link page} with
 * each page header and its (compressed) bytes.
 *
 * @example
 * ```ts
 * const guard = new ColumnChunkGuard(column, "SNAPPY", compressors);
 * for (const [header, bytes] of pages) guard.page(header, bytes); // throws on a hostile page
 * ```
 */
export class ColumnChunkGuard {
  /** Entries of the last dictionary page (`undefined` before one). */
  private dictionarySize: number | undefined;
  private pages = 0;

  constructor(
    private readonly column: FlatColumn,
    private readonly codec: CompressionCodec,
    private readonly compressors: Compressors,
  ) {}

  /** Checks one page; a plain `Error` naming the column and page when hyparquet must not decode it. */
  page(header: PageHeader, bytes: Uint8Array): void {
    const index = this.pages++;
    try {
      if (header.type === "DICTIONARY_PAGE") this.dictionaryPage(header, bytes);
      else if (header.type === "DATA_PAGE") this.dataPageV1(header, bytes);
      else if (header.type === "DATA_PAGE_V2") this.dataPageV2(header, bytes);
      else throw new Error(`page type ${String(header.type)} is not supported`);
    } catch (cause) {
      throw new Error(`column ${this.column.name}, page ${index}: ${(cause as Error).message}`, {
        cause,
      });
    }
  }

  private dictionaryPage(header: PageHeader, bytes: Uint8Array): void {
    const dph = header.dictionary_page_header;
    if (dph === undefined) throw new Error("a dictionary page has no dictionary header");
    if (dph.encoding !== "PLAIN" && dph.encoding !== "PLAIN_DICTIONARY") {
      throw new Error(`dictionary encoding ${String(dph.encoding)} is not supported`);
    }
    const page = this.decompress(bytes, header.uncompressed_page_size);
    // hyparquet reads the dictionary as PLAIN values, whatever the page says.
    walkPlain(page, 0, this.column, count(dph.num_values, "dictionary entries"));
    this.dictionarySize = dph.num_values;
  }

  /** Mirrors hyparquet's `readDataPage`: levels with a 4-byte length prefix, then values. */
  private dataPageV1(header: PageHeader, bytes: Uint8Array): void {
    const dph = header.data_page_header;
    if (dph === undefined) throw new Error("a data page has no data page header");
    const numValues = count(dph.num_values, "values");
    const page = this.decompress(bytes, header.uncompressed_page_size);
    let at = 0;
    let present = numValues;
    if (this.column.maxDefinitionLevel > 0) {
      if (dph.definition_level_encoding !== "RLE") {
        throw new Error(
          `definition level encoding ${String(dph.definition_level_encoding)} is not supported`,
        );
      }
      const end = lengthPrefixed(page, at);
      present = walkHybrid(page, at + 4, end, 1, numValues, this.column.maxDefinitionLevel);
      at = end;
    }
    this.values(dph.encoding, page, at, present, "v1");
  }

  /** Mirrors hyparquet's `readDataPageV2`: uncompressed levels of declared lengths, then values. */
  private dataPageV2(header: PageHeader, bytes: Uint8Array): void {
    const dph = header.data_page_header_v2;
    if (dph === undefined) throw new Error("a v2 data page has no v2 header");
    const numValues = count(dph.num_values, "values");
    const nulls = count(dph.num_nulls, "nulls");
    const repLength = count(dph.repetition_levels_byte_length, "repetition level bytes");
    const defLength = count(dph.definition_levels_byte_length, "definition level bytes");
    if (nulls > numValues) throw new Error(`${nulls} nulls among ${numValues} values`);
    // A flat column's rows are its values; hyparquet skips pages by num_rows.
    if (dph.num_rows !== numValues) {
      throw new Error(`${String(dph.num_rows)} rows for ${numValues} values in a flat column`);
    }
    if (repLength !== 0) throw new Error("a flat column has repetition levels");
    const levels = repLength + defLength;
    const uncompressed = count(header.uncompressed_page_size, "uncompressed bytes");
    if (levels > bytes.length || levels > uncompressed) {
      throw new Error(`levels of ${levels} bytes do not fit the page`);
    }
    if (this.column.maxDefinitionLevel > 0) {
      const present = walkHybrid(bytes, repLength, levels, 1, numValues, 1);
      if (present !== numValues - nulls) {
        throw new Error(`${numValues - present} null levels but num_nulls ${nulls}`);
      }
    } else if (nulls !== 0 || defLength !== 0) {
      throw new Error("a required column has nulls or definition levels");
    }
    const dataSize = uncompressed - levels;
    const n = numValues - nulls;
    let data = bytes.subarray(levels);
    if (dataSize === 0) {
      // hyparquet does not decompress an empty value section (a compressor
      // may still have written a frame): it must hold no values.
      if (n > 0) throw new Error(`${n} values in an empty value section`);
      if (!ENCODINGS.has(dph.encoding)) throw unsupported(dph.encoding);
      return;
    }
    if (dph.is_compressed !== false) data = this.decompress(data, dataSize);
    else if (data.length !== dataSize) {
      throw new Error(`${data.length} uncompressed value bytes where the header says ${dataSize}`);
    }
    this.values(dph.encoding, data, 0, n, "v2");
  }

  /** The value section: `n` values from `at` to the end of `page`. */
  private values(
    encoding: Encoding,
    page: Uint8Array,
    at: number,
    n: number,
    version: "v1" | "v2",
  ): void {
    const { type } = this.column;
    switch (encoding) {
      case "PLAIN":
        walkPlain(page, at, this.column, n);
        return;
      case "PLAIN_DICTIONARY":
      case "RLE_DICTIONARY": {
        const size = this.dictionarySize;
        if (size === undefined) throw new Error("dictionary indices without a dictionary page");
        if (at >= page.length) throw new Error("dictionary indices without a bit width");
        const width = page[at];
        // hyparquet v1 reads no indices at bit width 0 (all are 0); v2 walks the runs.
        if (width === 0 && version === "v1") {
          if (n > 0 && size === 0) throw new Error("index 0 into an empty dictionary");
          return;
        }
        walkHybrid(page, at + 1, page.length, width, n, size - 1);
        return;
      }
      case "RLE": {
        // Spec: RLE values are booleans, of bit width 1, with a 4-byte length.
        if (type !== "BOOLEAN") throw new Error(`RLE values of type ${type} are not supported`);
        walkHybrid(page, at + 4, lengthPrefixed(page, at), 1, n, 1);
        return;
      }
      case "BYTE_STREAM_SPLIT": {
        // hyparquet allocates n * width bytes and reads each from the page.
        const width = fixedWidth(this.column);
        if (width === undefined) throw new Error(`BYTE_STREAM_SPLIT of type ${type}`);
        if (n * width > page.length - at) throw new Error("BYTE_STREAM_SPLIT values overrun");
        return;
      }
      default:
        throw unsupported(encoding);
    }
  }

  /** Decompresses like hyparquet's `decompressPage`, with the same compressors and length check. */
  private decompress(bytes: Uint8Array, size: number): Uint8Array {
    const expected = count(size, "uncompressed bytes");
    let page: Uint8Array;
    if (this.codec === "UNCOMPRESSED") page = bytes;
    else {
      const decompress = this.compressors[this.codec];
      if (decompress === undefined) {
        throw new Error(`compression codec ${this.codec} is not supported`);
      }
      page = decompress(bytes, expected);
    }
    if (page.length !== expected) {
      throw new Error(`the page decompresses to ${page.length} bytes, not ${expected}`);
    }
    return page;
  }
}

/** The value encodings {@link ColumnChunkGuard} checks. */
const ENCODINGS: ReadonlySet<Encoding> = new Set([
  "PLAIN",
  "PLAIN_DICTIONARY",
  "RLE_DICTIONARY",
  "RLE",
  "BYTE_STREAM_SPLIT",
]);

function unsupported(encoding: Encoding): Error {
  return new Error(`encoding ${String(encoding)} is not supported in reference files`);
}

/** `value` as a count (a non-negative int32), or an error naming `what`. */
function count(value: unknown, what: string): number {
  const n = Number(value);
  if (!(Number.isInteger(n) && n >= 0 && n <= MAX_HEADER)) {
    throw new Error(`${String(value)} ${what}`);
  }
  return n;
}

/** The end of a stream whose 4-byte little-endian length is at `at` (hyparquet's v1 levels). */
function lengthPrefixed(page: Uint8Array, at: number): number {
  if (at + 4 > page.length) throw new Error("a length-prefixed stream has no length");
  const length = new DataView(page.buffer, page.byteOffset + at, 4).getUint32(0, true);
  if (length > page.length - at - 4) {
    throw new Error(`a stream of ${length} bytes overruns its page`);
  }
  return at + 4 + length;
}

/**
 * Walks an RLE/bit-packed hybrid stream of `n` values of `width` bits in
 * `data[start, end)` as hyparquet's `readRleBitPackedHybrid` does, checking
 * that every value is at most `maxValue`. Returns how many values equal
 * `maxValue` (for definition levels: the values present).
 *
 * Run headers (ULEB128, at most 5 bytes, < 2^31): `count << 1` for an RLE run
 * (one value of ceil(width / 8) bytes), `groups << 1 | 1` for `groups * 8`
 * bit-packed values (`groups * width` bytes, LSB first). hyparquet stops at
 * the first run that completes `n` values, so a bit-packed run may end up to
 * 7 padding values past `n`, an RLE run not at all.
 */
export function walkHybrid(
  data: Uint8Array,
  start: number,
  end: number,
  width: number,
  n: number,
  maxValue: number,
): number {
  // hyparquet's bit-packed reader shifts an int32 window: widths above 24
  // decode wrongly (measured against a bit-by-bit decoder), and an index
  // needing them would address a dictionary of 2^24 entries.
  if (width > MAX_BIT_WIDTH) throw new Error(`bit width ${width} is more than ${MAX_BIT_WIDTH}`);
  const valueBytes = (width + 7) >> 3;
  let at = start;
  let seen = 0;
  let atMax = 0;
  while (seen < n) {
    // ULEB128 header, as hyparquet's readVarInt, limited to 5 bytes and 31 bits.
    let header = 0;
    for (let i = 0; ; i++) {
      if (at >= end) throw new Error("a hybrid run header overruns its stream");
      if (i === 5) throw new Error("a hybrid run header is longer than 5 bytes");
      const byte = data[at++];
      header += (byte & 0x7f) * 2 ** (7 * i);
      if (!(byte & 0x80)) break;
    }
    if (header > MAX_HEADER) throw new Error(`a hybrid run header of ${header} (>= 2^31)`);
    const left = n - seen;
    if (header % 2 === 1) {
      const groups = (header - 1) / 2;
      // hyparquet reads a byte for an empty run: refuse it rather than mirror it.
      if (groups === 0) throw new Error("an empty bit-packed run");
      const values = groups * 8;
      if (values - left >= 8) {
        throw new Error(`a bit-packed run of ${values} values where ${left} remain`);
      }
      const emitted = Math.min(values, left);
      if (width === 0) {
        // hyparquet reads one byte (when there is one) and emits zeros.
        if (at < end) at++;
        if (maxValue < 0) throw new Error("index 0 into an empty dictionary");
        if (maxValue === 0) atMax += emitted;
      } else {
        const bytes = groups * width;
        if (bytes > end - at) throw new Error("a bit-packed run overruns its stream");
        for (let i = 0; i < emitted; i++) {
          const value = bitsAt(data, at * 8 + i * width, width);
          if (value > maxValue) throw new Error(`value ${value} is more than ${maxValue}`);
          if (value === maxValue) atMax++;
        }
        at += bytes;
      }
      seen += emitted;
    } else {
      const repeat = header / 2;
      if (repeat > left) throw new Error(`an RLE run of ${repeat} values where ${left} remain`);
      if (valueBytes > end - at) throw new Error("an RLE run overruns its stream");
      let value = 0;
      for (let i = 0; i < valueBytes; i++) value += data[at + i] * 2 ** (8 * i);
      at += valueBytes;
      if (repeat > 0 && value > maxValue) {
        throw new Error(`value ${value} is more than ${maxValue}`);
      }
      if (value === maxValue) atMax += repeat;
      seen += repeat;
    }
  }
  return atMax;
}

/** `width` bits (<= 32) at bit `position` of `data`, least significant bit first. */
function bitsAt(data: Uint8Array, position: number, width: number): number {
  let value = 0;
  let got = 0;
  while (got < width) {
    const byte = data[Math.floor(position / 8)];
    const shift = position % 8;
    const take = Math.min(8 - shift, width - got);
    value += ((byte >> shift) & ((1 << take) - 1)) * 2 ** got;
    got += take;
    position += take;
  }
  return value;
}

function fixedWidth(column: FlatColumn): number | undefined {
  switch (column.type) {
    case "INT32":
    case "FLOAT":
      return 4;
    case "INT64":
    case "DOUBLE":
      return 8;
    case "FIXED_LEN_BYTE_ARRAY":
      return column.typeLength !== undefined && column.typeLength > 0
        ? column.typeLength
        : undefined;
    default:
      return undefined;
  }
}

/** Checks that `n` PLAIN values of the column lie in `page[at, end)`. */
function walkPlain(page: Uint8Array, at: number, column: FlatColumn, n: number): void {
  if (column.type === "BYTE_ARRAY") {
    const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
    for (let i = 0; i < n; i++) {
      if (at + 4 > page.length) throw new Error(`PLAIN value ${i} overruns the page`);
      const length = view.getUint32(at, true);
      at += 4;
      if (length > page.length - at) throw new Error(`PLAIN value ${i} overruns the page`);
      at += length;
    }
    return;
  }
  let bytes: number;
  if (column.type === "BOOLEAN") bytes = Math.ceil(n / 8);
  else if (column.type === "INT96") bytes = n * 12;
  else {
    const width = fixedWidth(column);
    if (width === undefined) throw new Error(`column type ${column.type} is not supported`);
    bytes = n * width;
  }
  const room = page.length - at;
  if (bytes > room) throw new Error(`${n} PLAIN values need ${bytes} bytes, the page has ${room}`);
}

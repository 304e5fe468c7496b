// Test sources: a NetCDF3 and an HDF5 file written by Python (scipy, h5py),
// where their chunks are, and the values netCDF4/h5py read back; kerchunk
// references to them written by hand (JSON v0, v1 with templates and gen,
// Parquet directories written with hyparquet-writer).
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { findPython, pythonSkipReason } from "@zarr/test-utils";
import { parquetWriteBuffer } from "hyparquet-writer";

export const MODULES = ["h5py", "netCDF4", "scipy.io", "numpy", "numcodecs"];
export const python = findPython(MODULES);
export const skipReason = pythonSkipReason(MODULES);

interface Contiguous {
  shape: number[];
  dtype: string;
  values: number[];
  offset: number;
  size: number;
}
interface NcRecords {
  shape: number[];
  dtype: string;
  values: number[];
  records: number[];
  record_bytes: number;
}
interface H5Chunked {
  shape: number[];
  dtype: string;
  values: number[];
  fill: number;
  chunks: number[];
  compressed: boolean;
  chunk_refs: { index: number[]; offset: number; size: number }[];
}
export interface Sources {
  dir: string;
  nc: { temp: Contiguous; count: Contiguous; rec: NcRecords; file_size: number };
  h5: {
    chunked: H5Chunked;
    plain: Contiguous & { fill: number };
    sparse: H5Chunked;
    file_size: number;
  };
}

const here = dirname(fileURLToPath(import.meta.url));

/** Writes the source files into a new temporary folder (Python must be present). */
export async function makeSources(): Promise<Sources> {
  if (python === null) throw new Error(skipReason);
  const dir = await mkdtemp(join(tmpdir(), "zarr-ref-"));
  const r = spawnSync(python, [join(here, "python", "make_sources.py"), dir], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`make_sources.py failed: ${r.stderr}`);
  return { dir, ...JSON.parse(r.stdout) };
}

const zarray = (
  shape: number[],
  chunks: number[],
  dtype: string,
  fill: number | null,
  compressor: unknown = null,
) => ({
  zarr_format: 2,
  shape,
  chunks,
  dtype,
  compressor,
  fill_value: fill,
  order: "C",
  filters: null,
});

/** The bytes of a little inline int32 array (`inline/0`), 0..5. */
export const INLINE_VALUES = [0, 1, 2, 3, 4, 5];
const inlineChunk = () => {
  const b = new Uint8Array(new Int32Array(INLINE_VALUES).buffer);
  return `base64:${Buffer.from(b).toString("base64")}`;
};

/**
 * A kerchunk version 1 reference document for the sources: templates for the
 * file names (relative to the reference file's folder), a `gen` entry for the
 * NetCDF record variable, everything else in `refs`.
 */
export function referencesV1(
  s: Sources,
  urls = { nc: "source.nc", h5: "source.h5" },
): Record<string, unknown> {
  const { temp, count, rec } = s.nc;
  const { chunked, plain, sparse } = s.h5;
  const refs: Record<string, unknown> = {
    ".zgroup": JSON.stringify({ zarr_format: 2 }),
    ".zattrs": JSON.stringify({ title: "kerchunk test" }),
    "nc/.zgroup": JSON.stringify({ zarr_format: 2 }),
    "nc/temp/.zarray": JSON.stringify(zarray(temp.shape, temp.shape, temp.dtype, null)),
    "nc/temp/0.0": ["{{nc}}", temp.offset, temp.size],
    "nc/count/.zarray": JSON.stringify(zarray(count.shape, count.shape, count.dtype, null)),
    "nc/count/0": ["{{nc}}", count.offset, count.size],
    "nc/rec/.zarray": JSON.stringify(zarray(rec.shape, [1, rec.shape[1]], rec.dtype, null)),
    "h5/.zgroup": JSON.stringify({ zarr_format: 2 }),
    "h5/plain/.zarray": JSON.stringify(zarray(plain.shape, plain.shape, plain.dtype, plain.fill)),
    "h5/plain/0.0": ["{{h5}}", plain.offset, plain.size],
    "inline/.zarray": JSON.stringify(zarray([6], [6], "<i4", 0)),
    "inline/0": inlineChunk(),
  };
  for (const [name, d] of [
    ["chunked", chunked],
    ["sparse", sparse],
  ] as const) {
    const compressor = d.compressed ? { id: "zlib", level: 4 } : null;
    refs[`h5/${name}/.zarray`] = JSON.stringify(
      zarray(d.shape, d.chunks, d.dtype, d.fill, compressor),
    );
    for (const c of d.chunk_refs)
      refs[`h5/${name}/${c.index.join(".")}`] = ["{{h5}}", c.offset, c.size];
  }
  const stride = rec.records[1] - rec.records[0];
  return {
    version: 1,
    templates: urls,
    gen: [
      {
        key: "nc/rec/{{i}}.0",
        url: "{{nc}}",
        offset: `{{${rec.records[0]} + i * ${stride}}}`,
        length: String(rec.record_bytes),
        dimensions: { i: { start: 0, stop: rec.shape[0], step: 1 } },
      },
    ],
    refs,
  };
}

/** The same references as version 0 (no templates, no gen), with absolute paths. */
export function referencesV0(s: Sources): Record<string, unknown> {
  const v1 = referencesV1(s) as { refs: Record<string, unknown> };
  const files: Record<string, string> = {
    "{{nc}}": join(s.dir, "source.nc"),
    "{{h5}}": join(s.dir, "source.h5"),
  };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(v1.refs)) {
    out[k] = Array.isArray(v) ? [files[v[0]], ...v.slice(1)] : v;
  }
  const { rec } = s.nc;
  rec.records.forEach((offset, i) => {
    out[`nc/rec/${i}.0`] = [files["{{nc}}"], offset, rec.record_bytes];
  });
  return out;
}

/** zstd frames (numcodecs' Zstd, a plain frame) of `inputs`, in one Python call. */
function zstdCompressAll(inputs: Uint8Array[]): Uint8Array[] {
  const script = [
    "import sys, json, base64, numcodecs",
    "z = numcodecs.Zstd(3)",
    "print(json.dumps([base64.b64encode(z.encode(base64.b64decode(s))).decode() for s in json.load(sys.stdin)]))",
  ].join("\n");
  const input = JSON.stringify(inputs.map((b) => Buffer.from(b).toString("base64")));
  const r = spawnSync(python as string, ["-c", script], { input, maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`zstd compression failed: ${r.stderr}`);
  return (JSON.parse(r.stdout.toString()) as string[]).map(
    (b) => new Uint8Array(Buffer.from(b, "base64")),
  );
}

type Row = { path: string; offset: number; size: number } | { raw: Uint8Array } | null;

function writeRecord(
  rows: Row[],
  codec: "SNAPPY" | "ZSTD" | "UNCOMPRESSED",
  zstd?: (input: Uint8Array) => Uint8Array,
) {
  return new Uint8Array(
    parquetWriteBuffer({
      codec,
      compressors: zstd ? { ZSTD: zstd } : undefined,
      columnData: [
        {
          name: "path",
          type: "STRING",
          nullable: true,
          data: rows.map((r) => (r && "path" in r ? r.path : null)),
        },
        {
          name: "offset",
          type: "INT64",
          data: rows.map((r) => BigInt(r && "offset" in r ? r.offset : 0)),
        },
        {
          name: "size",
          type: "INT64",
          data: rows.map((r) => BigInt(r && "size" in r ? r.size : 0)),
        },
        {
          name: "raw",
          type: "BYTE_ARRAY",
          nullable: true,
          data: rows.map((r) => (r && "raw" in r ? r.raw : null)),
        },
      ],
    }),
  );
}

/**
 * `refs.R.parq` files (columns path, offset, size, raw: kerchunk's layout)
 * for each list of rows. zstd pages are compressed by Python's numcodecs: a
 * first pass collects the pages (the writer is deterministic), one Python call
 * compresses them, a second pass writes the files.
 */
export function parquetRecords(
  records: { rows: Row[]; codec: "SNAPPY" | "ZSTD" | "UNCOMPRESSED" }[],
): Uint8Array[] {
  const pages: Uint8Array[] = [];
  for (const r of records) {
    if (r.codec === "ZSTD")
      writeRecord(r.rows, "ZSTD", (input) => {
        pages.push(input.slice());
        return input;
      });
  }
  const compressed = new Map<string, Uint8Array>();
  if (pages.length > 0) {
    const out = zstdCompressAll(pages);
    for (const [i, page] of pages.entries())
      compressed.set(Buffer.from(page).toString("base64"), out[i]);
  }
  const lookup = (input: Uint8Array) => {
    const c = compressed.get(Buffer.from(input).toString("base64"));
    if (c === undefined) throw new Error("page not compressed in the first pass");
    return c;
  };
  return records.map((r) => writeRecord(r.rows, r.codec, r.codec === "ZSTD" ? lookup : undefined));
}

/**
 * Writes a Parquet reference directory for version 1 references `doc` at
 * `root`: `.zmetadata` with every metadata document and `record_size`, and
 * per array `refs.R.parq` files (chunks in row-major order, missing chunks
 * null rows). Arrays alternate between zstd and snappy pages.
 */
export async function writeParquetReferences(
  root: string,
  refs: Record<string, unknown>,
  recordSize: number,
  resolveUrl: (url: string) => string,
): Promise<void> {
  const metadata: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(refs)) {
    if (/(^|\/)\.z(array|group|attrs)$/.test(k)) metadata[k] = JSON.parse(v as string);
  }
  await mkdir(root, { recursive: true });
  await writeFile(join(root, ".zmetadata"), JSON.stringify({ metadata, record_size: recordSize }));
  let n = 0;
  const files: { name: string; rows: Row[]; codec: "SNAPPY" | "ZSTD" }[] = [];
  for (const key of Object.keys(metadata)) {
    if (!key.endsWith("/.zarray")) continue;
    const field = key.slice(0, -"/.zarray".length);
    const { shape, chunks } = metadata[key] as { shape: number[]; chunks: number[] };
    const grid = shape.map((s, i) => Math.ceil(s / chunks[i]));
    const total = grid.reduce((p, g) => p * g, 1);
    const rows: Row[] = [];
    for (let i = 0; i < total; i++) {
      const index: number[] = [];
      let rest = i;
      for (let d = grid.length - 1; d >= 0; d--) {
        index.unshift(rest % grid[d]);
        rest = Math.floor(rest / grid[d]);
      }
      const ref = refs[`${field}/${index.join(".")}`];
      if (ref === undefined) rows.push(null);
      else if (typeof ref === "string")
        rows.push({ raw: new Uint8Array(Buffer.from(ref.slice(7), "base64")) });
      else {
        const [url, offset, size] = ref as [string, number, number];
        rows.push({ path: resolveUrl(url), offset, size });
      }
    }
    for (let r = 0; r * recordSize < total; r++) {
      const codec = n++ % 2 === 0 ? "ZSTD" : "SNAPPY";
      files.push({
        name: join(field, `refs.${r}.parq`),
        rows: rows.slice(r * recordSize, (r + 1) * recordSize),
        codec,
      });
    }
  }
  const bytes = parquetRecords(files);
  for (const [i, f] of files.entries()) {
    await mkdir(dirname(join(root, f.name)), { recursive: true });
    await writeFile(join(root, f.name), bytes[i]);
  }
}

/** Expands a v1 document's gen entries into plain refs (for the Parquet writer). */
export function flattenRefs(doc: Record<string, unknown>, s: Sources): Record<string, unknown> {
  const refs = { ...(doc.refs as Record<string, unknown>) };
  const { rec } = s.nc;
  rec.records.forEach((offset, i) => {
    refs[`nc/rec/${i}.0`] = ["{{nc}}", offset, rec.record_bytes];
  });
  return refs;
}

/**
 * Layouts written through the `zarr` command (in process, the same `main` the
 * bin runs): `zarr create` (v2 and v3; the data is then set through the API)
 * and `zarr copy` conversions chosen programmatically from the matrix just
 * written: v2 -> v2 (recompress, rechunk, order, separator), v2 -> v3 (plain,
 * recompressed, sharded), that v3 copy back to v2, v3 -> v2 (plain and
 * recompressed) and v3 -> v3 (rechunk, reshard, key encoding, index location,
 * endian).
 *
 * Each result is recorded like the matrix (expected = our readback), and the
 * copy must hold the source's values bit for bit; a v2 result whose source
 * chain started from v2 must keep the original `fill_value` exactly (null stays
 * null through --compressor and through v3 and back).
 *
 * @module
 */
import { main } from "@zarr/cli";
import { type JsonObject, type JsonValue, openArray, type Store } from "@zarr/core";
import { parseV2DType } from "@zarr/v2-compat";
import {
  type Entry,
  fillAndRecord,
  fillFeatures,
  fillRef,
  type Recorder,
  reprOf,
  sameData,
  v3Features,
  valuesRef,
} from "./write.js";

/** Runs the CLI in process; throws with its stderr on a non-zero exit. */
export async function zarr(...argv: string[]): Promise<string> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    argv,
    (s) => out.push(s),
    (s) => err.push(s),
  );
  if (code !== 0) throw new Error(`zarr ${argv.join(" ")} exited ${code}: ${err.join("\n")}`);
  return out.join("\n");
}

async function readDoc(store: Store, key: string): Promise<JsonObject> {
  const bytes = await store.get(key);
  if (!bytes) throw new Error(`${key} missing`);
  return JSON.parse(new TextDecoder().decode(bytes)) as JsonObject;
}

/** Feature tags of a v2 array from its `.zarray`. */
function zarrayFeatures(z: JsonObject): string[] {
  const f = [`dtype:${typeof z.dtype === "string" ? z.dtype : "structured"}`, `order:${z.order}`];
  const shape = z.shape as number[];
  f.push(`shape:${shape.length}d`, ...(shape.includes(0) ? ["shape:empty"] : []));
  if (z.compressor) f.push(`compressor:${(z.compressor as JsonObject).id}`);
  for (const x of (z.filters as JsonObject[] | null) ?? []) f.push(`filter:${x.id}`);
  return f;
}

/** Records an array written by the CLI (copy): our readback is the expected value. */
async function recordWritten(
  rec: Recorder,
  store: Store,
  format: 2 | 3,
  path: string,
  cli: string,
): Promise<Entry> {
  const a = await openArray(store, path);
  const got = await a.get();
  const dt = a.dataType;
  rec.readback.set(`${format}:${path}`, got);
  let dtype: JsonValue;
  let features: string[];
  let noFill = false;
  if (format === 2) {
    const z = await readDoc(store, `${path}/.zarray`);
    dtype = parseV2DType(z.dtype as JsonValue, "dtype").json;
    features = zarrayFeatures(z);
    noFill = z.fill_value === null;
  } else {
    const m = await readDoc(store, `${path}/zarr.json`);
    dtype = m.data_type as JsonValue;
    const kc = m.chunk_key_encoding as { name: string; configuration?: { separator?: string } };
    features = v3Features(
      typeof dtype === "string" ? dtype : String((dtype as JsonObject).name),
      m.codecs as JsonValue[],
      `${kc.name}${kc.configuration?.separator ?? ""}`,
      m.shape as number[],
    );
  }
  const entry: Entry = {
    format,
    path,
    group: "cli",
    shape: [...got.shape],
    dtype,
    repr: reprOf(dt),
    expected: valuesRef(rec, dt, got.data),
    fill: fillRef(dt, noFill ? null : a.fillValue),
    lossy: false,
    cli,
    features: [...new Set([...features, ...(await fillFeatures(store, path, format))])],
  };
  rec.entries.push(entry);
  return entry;
}

/** Chunk shape halving every dimension (at least 1), for --chunks. */
const halve = (shape: readonly number[]) => shape.map((n) => Math.max(1, Math.ceil(n / 2)));

/**
 * v2 arrays whose v3 copy uses only the spec's data types and codecs (what the
 * independent reader implements, from the spec): numeric and object (string,
 * bytes) dtypes, no numcodecs filters besides the object codec. Their
 * compressor is replaced with a v3 one when it is zlib, lz4, bz2 or lzma
 * (v3 copies keep those as numcodecs.* codecs, which no spec defines).
 */
function coreV3(entry: Entry): boolean {
  const d = entry.dtype;
  if (typeof d !== "string" || !/^([<>|][biufc]\d+|\|O)$/.test(d)) return false;
  return entry.features.every(
    (f) => !f.startsWith("filter:") || /^filter:vlen-(utf8|bytes)$/.test(f),
  );
}

const numcodecsOnly = (e: Entry) =>
  e.features.some((f) => /^compressor:(zlib|lz4|bz2|lzma)$/.test(f));

export interface CliOutcome {
  problems: string[];
  copies: number;
  creates: number;
}

/**
 * Runs the CLI part of the matrix. `roots`: the v2 and v3 directories (the CLI
 * writes to the same stores the matrix uses, under `cli/`).
 */
export async function runCliCases(
  rec: Recorder,
  v2: { root: string; store: Store },
  v3: { root: string; store: Store },
): Promise<CliOutcome> {
  const problems: string[] = [];
  let copies = 0;
  let creates = 0;
  const roots = { 2: v2, 3: v3 };

  // ---- zarr create (v2 and v3), data set through the API
  const creations: { format: 2 | 3; name: string; args: string[] }[] = [
    {
      format: 2,
      name: "i4-zstd",
      args: ["--dtype", "<i4", "--compressor", "zstd:3", "--fill-value=-7"],
    },
    {
      format: 2,
      name: "f8-nan-blosc",
      args: ["--dtype", ">f8", "--compressor", "blosc:lz4:5:shuffle", "--fill-value", "NaN"],
    },
    {
      format: 2,
      name: "f4-null-gzip",
      args: ["--dtype", "<f4", "--compressor", "gzip:1", "--fill-value", "null"],
    },
    {
      format: 2,
      name: "u8-max",
      args: ["--dtype", "<u8", "--fill-value", "18446744073709551615", "--order", "F"],
    },
    {
      format: 2,
      name: "b1-sep",
      args: ["--dtype", "|b1", "--separator", "/", "--fill-value", "true"],
    },
    {
      format: 2,
      name: "string-null",
      args: ["--dtype", "string", "--compressor", "zstd:1", "--fill-value", "null"],
    },
    {
      format: 2,
      name: "string",
      args: ["--dtype", "string", "--compressor", "blosc:zstd:3:noshuffle"],
    },
    { format: 2, name: "bytes", args: ["--dtype", "bytes", "--compressor", "gzip:9"] },
    { format: 2, name: "c16-inf", args: ["--dtype", "<c16", "--fill-value", '["Infinity", -1.5]'] },
    {
      format: 3,
      name: "f4-shards-start",
      args: [
        "--dtype",
        "float32",
        "--chunks",
        "2,3",
        "--shards",
        "4,6",
        "--index-location",
        "start",
        "--compressor",
        "zstd:3+crc32c",
        "--fill-value",
        "NaN",
      ],
    },
    {
      format: 3,
      name: "i8-v2keys",
      args: [
        "--dtype",
        "int64",
        "--key-encoding",
        "v2",
        "--separator",
        ".",
        "--fill-value=-9223372036854775808",
      ],
    },
    {
      format: 3,
      name: "u2-be-F",
      args: [
        "--dtype",
        "uint16",
        "--endian",
        "big",
        "--order",
        "F",
        "--compressor",
        "blosc:lz4hc:9:bitshuffle",
      ],
    },
    {
      format: 3,
      name: "string-shards",
      args: [
        "--dtype",
        "string",
        "--chunks",
        "2,2",
        "--shards",
        "4,4",
        "--compressor",
        "gzip:6",
        "--fill-value",
        "x",
      ],
    },
    {
      format: 3,
      name: "f2-payload",
      args: ["--dtype", "float16", "--fill-value", "0x7e01", "--separator", "."],
    },
  ];
  for (const c of creations) {
    const path = `cli/create/${c.name}`;
    const shape = [5, 7];
    try {
      await zarr(
        "create",
        roots[c.format].root,
        path,
        "--shape",
        shape.join(","),
        ...(c.args.includes("--chunks") ? [] : ["--chunks", "2,3"]),
        ...(c.format === 2 ? ["--format", "2"] : []),
        ...c.args,
      );
      const store = roots[c.format].store;
      const a = await openArray(store, path);
      const doc = await readDoc(store, c.format === 2 ? `${path}/.zarray` : `${path}/zarr.json`);
      const chunks =
        c.format === 2
          ? (doc.chunks as number[])
          : (((doc.chunk_grid as JsonObject).configuration as JsonObject).chunk_shape as number[]);
      const kc = doc.chunk_key_encoding as
        | { name: string; configuration?: { separator?: string } }
        | undefined;
      const r = await fillAndRecord(rec, store, c.format, path, a as never, {
        group: "cli",
        dtype:
          c.format === 2
            ? parseV2DType(doc.dtype as JsonValue, "dtype").json
            : (doc.data_type as JsonValue),
        shape,
        chunks,
        noFill: c.format === 2 && doc.fill_value === null,
        lossy: false,
        features:
          c.format === 2
            ? zarrayFeatures(doc)
            : v3Features(
                String(doc.data_type),
                doc.codecs as JsonValue[],
                `${kc?.name}${kc?.configuration?.separator ?? ""}`,
                shape,
              ),
        cli: `create ${c.args.join(" ")}`,
      });
      problems.push(...r.problems);
      creates++;
    } catch (e) {
      problems.push(`create ${path}: ${(e as Error).message}`);
    }
  }

  // ---- zarr copy
  const copy = async (
    srcFormat: 2 | 3,
    srcPath: string,
    dstFormat: 2 | 3,
    dstPath: string,
    args: string[],
    origin: { format: 2 | 3; path: string },
  ): Promise<Entry | undefined> => {
    const cli = `copy --path ${srcPath} --to ${dstPath} ${args.join(" ")}`.trim();
    try {
      await zarr(
        "copy",
        roots[srcFormat].root,
        roots[dstFormat].root,
        "--path",
        srcPath,
        "--to",
        dstPath,
        "-q",
        ...args,
      );
      copies++;
      const entry = await recordWritten(rec, roots[dstFormat].store, dstFormat, dstPath, cli);
      const src = rec.readback.get(`${srcFormat}:${srcPath}`)!;
      const dst = rec.readback.get(`${dstFormat}:${dstPath}`)!;
      if (!sameData(src.dataType, src.data, dst.data))
        problems.push(
          `${dstFormat}:${dstPath} (${cli}): values differ from the source ${srcFormat}:${srcPath}`,
        );
      if (dstFormat === 2) {
        const z = await readDoc(roots[2].store, `${dstPath}/.zarray`);
        if (
          z.fill_value !== null &&
          typeof z.fill_value === "object" &&
          !Array.isArray(z.fill_value)
        )
          problems.push(
            `2:${dstPath} (${cli}): fill_value is an object ${JSON.stringify(z.fill_value)}`,
          );
        if (origin.format === 2) {
          const o = await readDoc(roots[2].store, `${origin.path}/.zarray`);
          if (JSON.stringify(o.fill_value) !== JSON.stringify(z.fill_value))
            problems.push(
              `2:${dstPath} (${cli}): fill_value ${JSON.stringify(z.fill_value)}, the v2 source ${origin.path} has ${JSON.stringify(o.fill_value)}`,
            );
        }
      }
      return entry;
    } catch (e) {
      problems.push(`${cli}: ${(e as Error).message}`);
      return undefined;
    }
  };

  const v2Sources = rec.entries.filter(
    (e, i) =>
      e.format === 2 &&
      !e.lossy &&
      !e.cli &&
      // (json2 object arrays have no v3 layout, which copies plan through: `zarr copy`
      // refuses them with UnsupportedError)
      e.repr !== "json" &&
      (e.group === "fill" ||
        e.group === "object" ||
        (e.group === "shape" && i % 3 === 0) ||
        (e.group === "filter" && i % 2 === 0)),
  );
  const v2v2 = (e: Entry, i: number): string[] => {
    const opts = [
      ["--compressor", "gzip:1"],
      ["--compressor", "zstd:3"],
      ["--compressor", "blosc:lz4:5:shuffle"],
      ["--compressor", "none"],
      ["--compressor", "blosc:zstd:1:bitshuffle"],
      e.shape.length ? ["--chunks", halve(e.shape).join(",")] : ["--compressor", "gzip:9"],
      ["--order", "F"],
      ["--separator", "/"],
      // (crc32c has no v2 form: the copy notes it and keeps filters and compressor)
      ["--compressor", "gzip:2+crc32c"],
    ];
    return opts[i % opts.length];
  };
  const v2v3 = (e: Entry, i: number): string[] => {
    const opts = [
      numcodecsOnly(e) ? ["--compressor", "gzip:4"] : [],
      ["--compressor", "zstd:3"],
      ["--compressor", "blosc:lz4:5"],
      e.shape.length
        ? [
            "--chunks",
            halve(e.shape).join(","),
            "--shards",
            halve(e.shape)
              .map((n) => 2 * n)
              .join(","),
          ]
        : [],
      ["--compressor", "gzip:2+crc32c"],
    ];
    const o = opts[i % opts.length];
    return numcodecsOnly(e) && !o.includes("--compressor") ? [...o, "--compressor", "zstd:2"] : o;
  };
  for (const [i, e] of v2Sources.entries()) {
    const origin = { format: 2 as const, path: e.path };
    await copy(2, e.path, 2, `cli/v2v2/${e.path}`, v2v2(e, i), origin);
    if (!coreV3(e)) continue;
    const mid = await copy(
      2,
      e.path,
      3,
      `cli/v2v3/${e.path}`,
      ["--format", "3", ...v2v3(e, i)],
      origin,
    );
    if (mid)
      await copy(
        3,
        mid.path,
        2,
        `cli/v2v3v2/${e.path}`,
        ["--format", "2", ...(i % 2 ? ["--compressor", "zstd:1"] : [])],
        origin,
      );
  }

  const v3Sources = rec.entries.filter(
    (e, i) =>
      e.format === 3 &&
      !e.cli &&
      (e.group === "fill" ||
        (e.group === "shape" && i % 2 === 0) ||
        (e.group === "dtype×codecs" && i % 9 === 0)),
  );
  const v3v3 = (e: Entry, i: number): string[] => {
    const nd = e.shape.length;
    const opts = [
      nd ? ["--chunks", halve(e.shape).join(","), "--shards", "none"] : [],
      nd
        ? [
            "--chunks",
            halve(e.shape).join(","),
            "--shards",
            halve(e.shape)
              .map((n) => 2 * n)
              .join(","),
            "--index-location",
            "start",
          ]
        : [],
      ["--key-encoding", "v2", "--separator", "/"],
      ["--endian", "big", "--compressor", "gzip:3"],
      ["--shards", "none", "--compressor", "zstd:5+crc32c"],
      ["--order", "F", "--compressor", "blosc:blosclz:9:noshuffle"],
    ];
    return opts[i % opts.length];
  };
  for (const [i, e] of v3Sources.entries()) {
    const origin = { format: 3 as const, path: e.path };
    await copy(
      3,
      e.path,
      2,
      `cli/v3v2/${e.path}`,
      [
        "--format",
        "2",
        ...(i % 3 === 1
          ? ["--compressor", "blosc:zstd:3"]
          : i % 3 === 2
            ? ["--compressor", "gzip:4"]
            : []),
      ],
      origin,
    );
    await copy(3, e.path, 3, `cli/v3v3/${e.path}`, v3v3(e, i), origin);
  }
  return { problems, copies, creates };
}

import {
  type DataArray,
  type DataType,
  type HierarchyNode,
  type JsonValue,
  open,
  type Slice,
  type ZarrArray,
} from "@zarr/core";
import type { NormalizedSelection } from "@zarr/core/internal";
import { resolveStore } from "@zarr/core/store";
import { green, type Io, red, str, type Values } from "../command.js";
import { DEFAULT_MAX_REPORT } from "../commands/diff.js";
import { SLAB_BYTES } from "../commands/get.js";
import { scalarJson } from "../format.js";
import { Progress } from "../progress.js";
import { slabs } from "../slabs.js";
import { openStoreArg, type StoreFlags } from "../stores.js";
import { parseCount, UsageError } from "../usage.js";
import { shardInnerShape } from "./info.js";

/** One differing element: its index in the array and both values (as `zarr get --json` writes them). */
export interface ElementDiff {
  index: number[];
  a: JsonValue;
  b: JsonValue;
}

/** A metadata field that differs without making the nodes differ. */
export interface Note {
  field: string;
  a: JsonValue;
  b: JsonValue;
}

/** The comparison of one node (or a node present on one side only). */
export interface NodeDiff {
  /** Relative to the compared nodes (`""`: the nodes themselves). */
  path: string;
  verdict: "same" | "differ" | "only_in_a" | "only_in_b";
  kind_a: "array" | "group" | null;
  kind_b: "array" | "group" | null;
  /** What makes the nodes differ: kind, shape, data_type, attributes, values, presence. */
  differences: string[];
  /** Attribute names whose values differ or that one side lacks. */
  attribute_keys: string[];
  /** Metadata that differs but does not count (format, chunks, codecs, fill value, ...). */
  notes: Note[];
  /** Both sides arrays only. */
  shape_a?: number[];
  shape_b?: number[];
  data_type_a?: string;
  data_type_b?: string;
  /** Both sides arrays only; null when not compared (shape or data type differ). */
  values?: { compared: number; differing: number; first: ElementDiff[] } | null;
}

/** What `zarr diff --json` prints. */
export interface DiffReport {
  same: boolean;
  a: { store: string; path: string };
  b: { store: string; path: string };
  tolerance: number;
  nodes: NodeDiff[];
  summary: {
    nodes: number;
    differing_nodes: number;
    arrays_compared: number;
    elements_compared: number;
    elements_differing: number;
  };
}

/** Options of {@link diffNodes}. */
export interface DiffOptions {
  /** Absolute tolerance of numeric values (0: exact). */
  tolerance: number;
  /** Differing elements listed per array. */
  maxReport: number;
  signal?: AbortSignal;
  /** Draws the progress line (absent: none). */
  progress?: (line: string) => void;
}

/** Deep equality of JSON values; object keys in any order, NaN equal to NaN. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return Number.isNaN(a) && Number.isNaN(b);
  if (typeof a === "bigint" || typeof b === "bigint") {
    return (
      (typeof a === "bigint" || typeof a === "number") &&
      (typeof b === "bigint" || typeof b === "number") &&
      // biome-ignore lint/suspicious/noDoubleEquals: bigint and number compare by value
      a == b
    );
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((x, i) => jsonEqual(x, b[i]))
    );
  }
  if (a && b && typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return (
      ka.length === kb.length &&
      ka.every(
        (k) =>
          Object.hasOwn(b, k) &&
          jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
      )
    );
  }
  return false;
}

/** JSON with bigints as numbers (decimal strings beyond ±2^53). */
function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    typeof v === "bigint" ? (v >= -(2n ** 53n) && v <= 2n ** 53n ? Number(v) : v.toString()) : v,
  );
}

/** A JSON value with bigints made plain (see {@link toJson}). */
function plain(value: unknown): JsonValue {
  return value === undefined ? null : (JSON.parse(toJson(value)) as JsonValue);
}

/**
 * A comparison of `n` elements of two data arrays of `dataType`, calling
 * `differs(i)` for each differing element in order. Numbers compare as
 * numbers (NaN equals NaN whatever its payload, -0 equals 0), within
 * `tolerance` for numeric kinds; other types compare exactly.
 */
function elementComparer(
  dataType: DataType,
  tolerance: number,
): (a: DataArray, b: DataArray, n: number, differs: (i: number) => void) => void {
  const w = dataType.width;
  const numeric = ["int", "uint", "float", "complex"].includes(dataType.kind);
  const tol = numeric ? tolerance : 0;
  return (a, b, n, differs) => {
    if (a instanceof BigInt64Array || a instanceof BigUint64Array) {
      const x = a as BigInt64Array;
      const y = b as BigInt64Array;
      const t = BigInt(Math.floor(tol));
      for (let i = 0; i < n * w; i++) {
        if (x[i] === y[i]) continue;
        const d = x[i] > y[i] ? x[i] - y[i] : y[i] - x[i];
        if (tol > 0 && d <= t) continue;
        const e = Math.floor(i / w);
        differs(e);
        i = (e + 1) * w - 1; // on to the next element
      }
      return;
    }
    if (ArrayBuffer.isView(a)) {
      const x = a as Float64Array;
      const y = b as Float64Array;
      const float = a instanceof Float32Array || a instanceof Float64Array;
      for (let i = 0; i < n * w; i++) {
        const p = x[i];
        const q = y[i];
        if (p === q) continue;
        if (float && Number.isNaN(p) && Number.isNaN(q)) continue; // any NaN payloads
        if (tol > 0 && Math.abs(p - q) <= tol) continue;
        const e = Math.floor(i / w);
        differs(e);
        i = (e + 1) * w - 1;
      }
      return;
    }
    // Variable-size types: strings, byte strings, extension types.
    for (let i = 0; i < n; i++) {
      const p = a[i];
      const q = b[i];
      if (p === q) continue;
      if (p instanceof Uint8Array && q instanceof Uint8Array) {
        if (p.length === q.length && p.every((v, j) => v === q[j])) continue;
      } else if (
        typeof p !== "string" &&
        scalarJson(dataType, dataType.getScalar(a, i)) ===
          scalarJson(dataType, dataType.getScalar(b, i))
      ) {
        continue;
      }
      differs(i);
    }
  };
}

/** Per dimension, the first index and the length of a slab of a whole-array selection. */
function slabBox(selection: readonly unknown[]): { start: number[]; length: number[] } {
  const start: number[] = [];
  const length: number[] = [];
  for (const d of selection) {
    if (typeof d === "number") {
      start.push(d);
      length.push(1);
    } else {
      const s = d as Slice;
      start.push(s.start ?? 0);
      length.push((s.stop ?? 0) - (s.start ?? 0));
    }
  }
  return { start, length };
}

/** Elements at once per side: the slab budget of `zarr get`, shared by both arrays. */
const SIDE_BYTES = SLAB_BYTES / 2;

/** Compares the values of two arrays of the same shape and data type, slab by slab. */
async function compareValues(
  a: ZarrArray,
  b: ZarrArray,
  label: string,
  options: DiffOptions,
): Promise<{ compared: number; differing: number; first: ElementDiff[] }> {
  const dataType = a.dataType;
  const itemBytes = dataType.itemSize ?? 64; // variable-size: an estimate per element
  const budget = Math.max(1, Math.floor(SIDE_BYTES / itemBytes));
  const innerA = shardInnerShape(a) ?? a.chunkShape;
  const innerB = shardInnerShape(b) ?? b.chunkShape;
  // Slabs follow the larger chunk of each dimension (fewer chunks decoded twice).
  const chunkShape = innerA.map((c, i) => Math.max(c, innerB[i]));
  const concurrencyOf = (inner: readonly number[]) =>
    Math.max(
      1,
      Math.min(16, Math.floor(SIDE_BYTES / (inner.reduce((x, y) => x * y, 1) * itemBytes))),
    );
  const sel: NormalizedSelection = {
    dims: a.shape.map((count) => ({ kind: "slice" as const, start: 0, step: 1, count })),
    shape: [...a.shape],
  };
  const total = a.shape.reduce((x, y) => x * y, 1);
  const progress = new Progress(total, `diff ${label}`, options.progress);
  const compare = elementComparer(dataType, options.tolerance);
  const first: ElementDiff[] = [];
  let differing = 0;
  let compared = 0;
  // A fixed-size slab's memory serves every slab of its size.
  let reuseA: DataArray | undefined;
  let reuseB: DataArray | undefined;
  try {
    for (const slab of slabs(sel, chunkShape, budget)) {
      let outA: DataArray | undefined;
      let outB: DataArray | undefined;
      if (dataType.itemSize !== null) {
        if (reuseA === undefined || reuseA.length !== slab.elements * dataType.width) {
          reuseA = dataType.allocate(slab.elements);
          reuseB = dataType.allocate(slab.elements);
        }
        outA = reuseA;
        outB = reuseB;
      }
      const signal = options.signal;
      const [da, db] = await Promise.all([
        a.get(slab.selection, { signal, concurrency: concurrencyOf(innerA), out: outA }),
        b.get(slab.selection, { signal, concurrency: concurrencyOf(innerB), out: outB }),
      ]);
      const box = slabBox(slab.selection as readonly unknown[]);
      compare(da.data, db.data, slab.elements, (e) => {
        differing++;
        if (first.length >= options.maxReport) return;
        const index = new Array<number>(box.start.length);
        let rest = e;
        for (let d = box.start.length - 1; d >= 0; d--) {
          index[d] = box.start[d] + (rest % box.length[d]);
          rest = Math.floor(rest / box.length[d]);
        }
        first.push({
          index,
          a: JSON.parse(scalarJson(dataType, dataType.getScalar(da.data, e))),
          b: JSON.parse(scalarJson(dataType, dataType.getScalar(db.data, e))),
        });
      });
      compared += slab.elements;
      progress.tick(slab.elements, 2 * slab.elements * itemBytes);
    }
  } finally {
    progress.finish();
  }
  return { compared, differing, first };
}

function nameOf(node: HierarchyNode): string {
  return node.path.slice(node.path.lastIndexOf("/") + 1);
}

function joinPath(parent: string, name: string): string {
  return parent === "" ? name : name === "" ? parent : `${parent}/${name}`;
}

function attributeKeys(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys]
    .filter((k) => !(Object.hasOwn(a, k) && Object.hasOwn(b, k) && jsonEqual(a[k], b[k])))
    .sort();
}

/**
 * An array's attributes and dimension names as a conversion keeps them: a v2
 * array's `_ARRAY_DIMENSIONS` attribute (xarray's convention) is its dimension
 * names, which Zarr v3 holds in `dimension_names` (`zarr copy` moves it there).
 */
function withDimensionNames(array: ZarrArray): {
  attrs: Record<string, unknown>;
  dimensionNames: unknown;
} {
  const { _ARRAY_DIMENSIONS: named, ...rest } = array.attrs as Record<string, unknown>;
  if (array.zarrFormat === 2 && named !== undefined && array.dimensionNames === undefined) {
    return { attrs: rest, dimensionNames: named };
  }
  return { attrs: array.attrs, dimensionNames: array.dimensionNames ?? null };
}

function note(notes: Note[], field: string, a: unknown, b: unknown): void {
  if (!jsonEqual(a, b)) notes.push({ field, a: plain(a), b: plain(b) });
}

/** Compares two arrays: what counts (shape, data type, attributes, values) and notes. */
async function compareArrays(
  a: ZarrArray,
  b: ZarrArray,
  path: string,
  label: string,
  options: DiffOptions,
): Promise<NodeDiff> {
  const differences: string[] = [];
  const sameShape = jsonEqual(a.shape, b.shape);
  const sameType =
    a.dataType.name === b.dataType.name && jsonEqual(a.dataType.toJSON(), b.dataType.toJSON());
  if (!sameShape) differences.push("shape");
  if (!sameType) differences.push("data_type");
  const [left, right] = [withDimensionNames(a), withDimensionNames(b)];
  const keys = attributeKeys(left.attrs, right.attrs);
  if (keys.length > 0) differences.push("attributes");
  const notes: Note[] = [];
  note(notes, "zarr_format", a.zarrFormat, b.zarrFormat);
  const innerA = shardInnerShape(a);
  const innerB = shardInnerShape(b);
  note(notes, "chunk_shape", innerA ?? a.chunkShape, innerB ?? b.chunkShape);
  note(notes, "shard_shape", innerA ? a.chunkShape : null, innerB ? b.chunkShape : null);
  note(notes, "codecs", a.codecs.toJSON(), b.codecs.toJSON());
  note(
    notes,
    "fill_value",
    a.dataType.fillValueToJSON(a.fillValue),
    b.dataType.fillValueToJSON(b.fillValue),
  );
  note(notes, "chunk_key_encoding", a.metadata.chunk_key_encoding, b.metadata.chunk_key_encoding);
  note(notes, "dimension_names", left.dimensionNames, right.dimensionNames);
  const values = sameShape && sameType ? await compareValues(a, b, label, options) : null;
  if (values && values.differing > 0) differences.push("values");
  return {
    path,
    verdict: differences.length > 0 ? "differ" : "same",
    kind_a: "array",
    kind_b: "array",
    differences,
    attribute_keys: keys,
    notes,
    shape_a: [...a.shape],
    shape_b: [...b.shape],
    data_type_a: a.dataType.name,
    data_type_b: b.dataType.name,
    values,
  };
}

/**
 * Compares node `a` with node `b` (and, for groups, everything below them),
 * appending one {@link NodeDiff} per node to `out`, parents before children,
 * children in name order. `label(path)` names a node in the progress line.
 */
export async function diffNodes(
  a: HierarchyNode,
  b: HierarchyNode,
  options: DiffOptions,
  out: NodeDiff[] = [],
  path = "",
  label: (path: string) => string = (p) => `/${p}`,
): Promise<NodeDiff[]> {
  if (a.kind === "array" && b.kind === "array") {
    out.push(await compareArrays(a, b, path, label(path), options));
    return out;
  }
  const keys = attributeKeys(a.attrs, b.attrs);
  const notes: Note[] = [];
  note(notes, "zarr_format", formatOf(a), formatOf(b));
  const differences = a.kind !== b.kind ? ["kind"] : [];
  if (keys.length > 0) differences.push("attributes");
  out.push({
    path,
    verdict: differences.length > 0 ? "differ" : "same",
    kind_a: a.kind,
    kind_b: b.kind,
    differences,
    attribute_keys: keys,
    notes,
  });
  if (a.kind !== "group" || b.kind !== "group") return out;
  const childrenA = new Map(
    (await a.children({ signal: options.signal })).map((n) => [nameOf(n), n]),
  );
  const childrenB = new Map(
    (await b.children({ signal: options.signal })).map((n) => [nameOf(n), n]),
  );
  const names = [...new Set([...childrenA.keys(), ...childrenB.keys()])].sort();
  for (const name of names) {
    const ca = childrenA.get(name);
    const cb = childrenB.get(name);
    const child = joinPath(path, name);
    if (ca && cb) await diffNodes(ca, cb, options, out, child, label);
    else {
      out.push({
        path: child,
        verdict: ca ? "only_in_a" : "only_in_b",
        kind_a: ca?.kind ?? null,
        kind_b: cb?.kind ?? null,
        differences: ["presence"],
        attribute_keys: [],
        notes: [],
      });
    }
  }
  return out;
}

/** The Zarr format of a node's stored metadata. */
function formatOf(node: HierarchyNode): number | null {
  const f = (node as { zarrFormat?: unknown }).zarrFormat;
  if (typeof f === "number") return f;
  const meta = node.metadata as { zarr_format?: unknown };
  return typeof meta.zarr_format === "number" ? meta.zarr_format : null;
}

function trimPath(path: string | undefined): string {
  return (path ?? "").replace(/^\/+|\/+$/g, "");
}

function parseTolerance(text: string | undefined): number {
  if (text === undefined) return 0;
  const t = Number(text);
  if (text.trim() === "" || !Number.isFinite(t) || t < 0)
    throw new UsageError(`--tolerance must be a finite number >= 0, got "${text}"`);
  return t;
}

/** A value as printed in the text report. */
function valueText(v: JsonValue): string {
  if (typeof v === "string" && /^(NaN|-?Infinity|-?\d+)$/.test(v)) return v;
  if (Array.isArray(v) && v.every((x) => typeof x === "number")) return `[${v.join(", ")}]`;
  return toJson(v);
}

function printText(report: DiffReport, io: Io): void {
  const label = (p: string) => `/${joinPath(report.a.path, p)}`;
  io.out(`a: ${report.a.store}${report.a.path ? ` /${report.a.path}` : ""}`);
  io.out(`b: ${report.b.store}${report.b.path ? ` /${report.b.path}` : ""}`);
  for (const n of report.nodes) {
    const where = label(n.path);
    if (n.verdict === "only_in_a" || n.verdict === "only_in_b") {
      const word = n.verdict === "only_in_a" ? "only in a" : "only in b";
      io.out(`${red(io, word)}  ${where} (${n.kind_a ?? n.kind_b})`);
      continue;
    }
    const word = n.verdict === "same" ? green(io, "same") : red(io, "differ");
    const pad = " ".repeat(11 - (n.verdict === "same" ? 4 : 6));
    let what: string;
    const facts: string[] = [];
    if (n.kind_a !== n.kind_b) {
      what = `${n.kind_a} | ${n.kind_b}`;
      facts.push("kind differs");
    } else if (n.shape_a) {
      const shape = (s: number[] | undefined) => `[${s?.join(", ")}]`;
      what = n.differences.includes("shape")
        ? `${shape(n.shape_a)} | ${shape(n.shape_b)}`
        : shape(n.shape_a);
      what += n.differences.includes("data_type")
        ? ` ${n.data_type_a} | ${n.data_type_b}`
        : ` ${n.data_type_a}`;
      if (n.differences.includes("shape")) facts.push("shape differs");
      if (n.differences.includes("data_type")) facts.push("data type differs");
    } else what = "(group)";
    if (n.values === null) facts.push("values not compared");
    else if (n.values) {
      facts.push(
        n.values.differing === 0
          ? `same values (${n.values.compared} elements${report.tolerance > 0 ? `, tolerance ${report.tolerance}` : ""})`
          : `${n.values.differing} of ${n.values.compared} elements differ`,
      );
    }
    if (n.attribute_keys.length > 0)
      facts.push(`attributes differ: ${n.attribute_keys.join(", ")}`);
    io.out(`${word}${pad}${where} ${what}${facts.length > 0 ? `: ${facts.join("; ")}` : ""}`);
    for (const e of n.values?.first ?? [])
      io.out(`           [${e.index.join(", ")}]: ${valueText(e.a)} | ${valueText(e.b)}`);
    if (n.values && n.values.differing > n.values.first.length)
      io.out(`           ... ${n.values.differing - n.values.first.length} more`);
    if (n.notes.length > 0) {
      const shown = n.notes.map((x) =>
        x.field === "codecs" || x.field === "chunk_key_encoding"
          ? `${x.field} differ${x.field === "codecs" ? "" : "s"}`
          : `${x.field} ${valueText(x.a)} | ${valueText(x.b)}`,
      );
      io.out(`           (not counted: ${shown.join("; ")})`);
    }
  }
  const s = report.summary;
  io.out(
    report.same
      ? `${green(io, "same")}: ${s.nodes} node${s.nodes === 1 ? "" : "s"}, ${s.arrays_compared} array${s.arrays_compared === 1 ? "" : "s"}, ${s.elements_compared} elements compared`
      : `${red(io, "differ")}: ${s.differing_nodes} of ${s.nodes} nodes differ; ${s.elements_differing} of ${s.elements_compared} elements compared differ`,
  );
}

/** Runs `zarr diff` (its options are described by the command in `commands/diff.ts`). */
export async function run(
  [storeA, storeB]: string[],
  values: Values,
  io: Io,
): Promise<number | undefined> {
  const tolerance = parseTolerance(str(values, "tolerance"));
  const maxReport =
    str(values, "max-report") === undefined
      ? DEFAULT_MAX_REPORT
      : parseCount(str(values, "max-report")!, "--max-report");
  const pathA = trimPath(str(values, "path"));
  const pathB = str(values, "path-b") === undefined ? pathA : trimPath(str(values, "path-b"));
  const flags = values as StoreFlags;
  const a = await open(resolveStore(await openStoreArg(storeA, flags)), pathA, {
    signal: io.signal,
  });
  const b = await open(resolveStore(await openStoreArg(storeB, flags)), pathB, {
    signal: io.signal,
  });
  const nodes = await diffNodes(
    a,
    b,
    { tolerance, maxReport, signal: io.signal, progress: io.progress },
    [],
    "",
    (p) => `/${joinPath(pathA, p)}`,
  );
  const arrays = nodes.filter((n) => n.values);
  const report: DiffReport = {
    same: nodes.every((n) => n.verdict === "same"),
    a: { store: storeA, path: pathA },
    b: { store: storeB, path: pathB },
    tolerance,
    nodes,
    summary: {
      nodes: nodes.length,
      differing_nodes: nodes.filter((n) => n.verdict !== "same").length,
      arrays_compared: arrays.length,
      elements_compared: arrays.reduce((s, n) => s + (n.values?.compared ?? 0), 0),
      elements_differing: arrays.reduce((s, n) => s + (n.values?.differing ?? 0), 0),
    },
  };
  if (values.json === true) io.out(toJson(report));
  else printText(report, io);
  return report.same ? 0 : 1;
}

/**
 * Deterministic pseudo-random element values for every data type we write,
 * with the edge values each kind has (NaN and NaN payloads, ±Infinity, -0.0,
 * integer extremes beyond 2^53, NaT, empty and astral strings, NUL bytes).
 *
 * @module
 */
import type { DataArray, DataType, FillValue, JsonValue } from "@zarr/core";

/** A seeded generator of floats in [0, 1) (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0 || 0x9e3779b9;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A stable 32-bit hash of a case name, to seed its values. */
export function seedOf(name: string): number {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  return h >>> 0;
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

const INT_RANGE: Record<string, [bigint, bigint]> = {
  int8: [-(2n ** 7n), 2n ** 7n - 1n],
  int16: [-(2n ** 15n), 2n ** 15n - 1n],
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint8: [0n, 2n ** 8n - 1n],
  uint16: [0n, 2n ** 16n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
};

function randomBig(r: () => number, lo: bigint, hi: bigint): bigint {
  const span = hi - lo + 1n;
  let x = 0n;
  for (let i = 0; i < 3; i++) x = (x << 32n) | BigInt(Math.floor(r() * 2 ** 32));
  return lo + (x % span);
}

const STRINGS = [
  "",
  "a",
  "h\u00e9llo",
  "\u4e16\u754c",
  "\u{1F600}x",
  "tab\there",
  "nul\0mid",
  "\u00ff\u0100",
  "long string with spaces and \u00fc\u00df and more words",
];

const JSON_VALUES: JsonValue[] = [
  1,
  -2.5,
  "two",
  "",
  [3, null, "x"],
  { k: 2.5, s: "v" },
  true,
  false,
  null,
  "\u00e9\u{1F600}",
];

/** Float specials by data type name. */
function floatSpecials(name: string): number[] {
  const max =
    name === "float16" ? 65504 : name === "float32" ? 3.4028234663852886e38 : Number.MAX_VALUE;
  const tiny = name === "float16" ? 2 ** -24 : name === "float32" ? 2 ** -149 : Number.MIN_VALUE;
  return [
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    -0,
    0,
    max,
    -max,
    tiny,
    1,
    -1,
  ];
}

function randomFloat(r: () => number, name: string): number {
  if (r() < 0.25) return pick(r, floatSpecials(name));
  const scale = name === "float16" ? 100 : 1e6;
  return (r() - 0.5) * scale;
}

/** Options shaping the values of one case. */
export interface ValueOptions {
  /** Values for a lossy filter's domain: floats around `center` within `spread`, with specials. */
  floatRange?: { center: number; spread: number };
  /** Strings drawn only from these (categorize labels), plus the ones given in `extra`. */
  labels?: string[];
  /** JSON values (json2 object arrays) instead of the data type's scalars. */
  json?: boolean;
}

/** One random scalar of `dt`, as `dt.fromScalar` takes it. */
export function randomScalar(dt: DataType, r: () => number, opts: ValueOptions = {}): unknown {
  if (opts.json) return pick(r, JSON_VALUES);
  if (opts.labels) return pick(r, opts.labels);
  const range = INT_RANGE[dt.name];
  if (range) {
    const extremes = [range[0], range[1], 0n, range[0] === 0n ? 1n : -1n, range[1] - 1n];
    const v = r() < 0.3 ? pick(r, extremes) : randomBig(r, range[0], range[1]);
    return dt.name.endsWith("64") ? v : Number(v);
  }
  switch (dt.kind) {
    case "bool":
      return r() < 0.5;
    case "float":
      if (opts.floatRange) {
        if (r() < 0.15) return pick(r, floatSpecials(dt.name));
        return opts.floatRange.center + (r() - 0.5) * 2 * opts.floatRange.spread;
      }
      return randomFloat(r, dt.name);
    case "complex": {
      const part = dt.name === "complex64" ? "float32" : "float64";
      return [randomFloat(r, part), randomFloat(r, part)];
    }
    case "raw":
      return Uint8Array.from({ length: dt.itemSize ?? 1 }, () => Math.floor(r() * 256));
    case "string":
      return pick(r, STRINGS);
    case "bytes": {
      const n = Math.floor(r() * 6);
      return Uint8Array.from({ length: n }, (_, i) => (i === 1 ? 0 : Math.floor(r() * 256)));
    }
  }
  const name = dt.name;
  if (/^r\d+$/.test(name))
    return Uint8Array.from({ length: dt.itemSize ?? 1 }, () => Math.floor(r() * 256));
  if (name === "numpy.datetime64" || name === "numpy.timedelta64") {
    const specials = [-(2n ** 63n), 2n ** 63n - 1n, -(2n ** 63n) + 1n, 0n, -1n];
    if (r() < 0.25) return pick(r, specials);
    // Within ±2^40 of the epoch keeps every unit printable by numpy.
    return randomBig(r, -(2n ** 40n), 2n ** 40n);
  }
  if (name === "null_terminated_bytes") {
    const n = Math.floor(r() * ((dt.itemSize ?? 1) + 1));
    const b = Uint8Array.from({ length: n }, () => Math.floor(r() * 256));
    if (n > 1) b[0] = 0; // a NUL inside the value
    if (n > 0 && b[n - 1] === 0) b[n - 1] = 1; // numpy strips trailing NULs
    return b;
  }
  if (name === "fixed_length_utf32") {
    const len = (dt.itemSize ?? 4) / 4;
    const cps = ["a", "\u00e9", "\u4e16", "\u{1F600}", "\0", " ", "z"];
    let s = "";
    const n = Math.floor(r() * (len + 1));
    for (let i = 0; i < n; i++) s += pick(r, cps);
    return s.replace(/\0+$/, "");
  }
  if (name === "structured") {
    const fields = (
      dt as unknown as {
        fields: readonly { name: string; dataType: DataType; shape: readonly number[] }[];
      }
    ).fields;
    const out: Record<string, unknown> = {};
    for (const f of fields) {
      if (f.name === "") continue;
      const make = (shape: readonly number[]): unknown =>
        shape.length === 0
          ? randomScalar(f.dataType, r)
          : Array.from({ length: shape[0] }, () => make(shape.slice(1)));
      out[f.name] = make(f.shape);
    }
    return out;
  }
  throw new Error(`no value generator for data type ${name}`);
}

/**
 * NaN bit patterns with payloads (and a negative NaN) per float width in
 * bytes, signaling ones (quiet bit clear) included.
 */
const PAYLOAD_NANS: Record<number, bigint[]> = {
  4: [0x7fc00001n, 0xffc00000n, 0x7fc12345n, 0x7f800001n],
  8: [0x7ff8000000000001n, 0xfff8000000000000n, 0x7ff0000000000001n],
};

/**
 * `n` values of `dt` in C order: random scalars, NaNs with payloads written
 * bit for bit (float32/float64/complex), and the elements of `fillPositions`
 * set to `fill` (so those chunks equal the fill value).
 */
export function sampleData(
  dt: DataType,
  n: number,
  seed: number,
  opts: ValueOptions & {
    fill?: FillValue;
    fillPositions?: Iterable<number>;
    payloadNaNs?: boolean;
  } = {},
): DataArray {
  const r = rng(seed);
  const data = dt.allocate(n);
  for (let i = 0; i < n; i++) {
    const v = randomScalar(dt, r, opts);
    if (Array.isArray(data) && (dt.kind === "string" || dt.kind === "bytes" || opts.json)) {
      (data as unknown[])[i] = v;
      continue;
    }
    dt.fill(data, dt.fromScalar(v, `value ${i}`), i, i + 1);
  }
  if (opts.payloadNaNs !== false && (dt.kind === "float" || dt.kind === "complex")) {
    const arr = data as Float32Array | Float64Array;
    const width = arr.BYTES_PER_ELEMENT;
    const isF16 = dt.name === "float16";
    if (!isF16 && PAYLOAD_NANS[width]) {
      const bits =
        width === 4
          ? new Uint32Array(arr.buffer, arr.byteOffset, arr.length)
          : new BigUint64Array(arr.buffer, arr.byteOffset, arr.length);
      for (let i = 3; i < arr.length; i += 11) {
        const nan = PAYLOAD_NANS[width][i % PAYLOAD_NANS[width].length];
        if (width === 4) (bits as Uint32Array)[i] = Number(nan);
        else (bits as BigUint64Array)[i] = nan;
      }
    }
  }
  if (opts.fill && opts.fillPositions) {
    for (const i of opts.fillPositions) dt.fill(data, opts.fill, i, i + 1);
  }
  return data;
}

/** Flat C-order indices of the elements of chunk `coords` of an array. */
export function chunkPositions(
  shape: readonly number[],
  chunks: readonly number[],
  coords: readonly number[],
): number[] {
  const out: number[] = [];
  const nd = shape.length;
  if (nd === 0) return [0];
  const lo = coords.map((c, d) => c * chunks[d]);
  const hi = coords.map((c, d) => Math.min((c + 1) * chunks[d], shape[d]));
  if (lo.some((l, d) => l >= hi[d])) return out;
  const idx = [...lo];
  for (;;) {
    let flat = 0;
    for (let d = 0; d < nd; d++) flat = flat * shape[d] + idx[d];
    out.push(flat);
    let d = nd - 1;
    while (d >= 0) {
      idx[d]++;
      if (idx[d] < hi[d]) break;
      idx[d] = lo[d];
      d--;
    }
    if (d < 0) break;
  }
  return out;
}

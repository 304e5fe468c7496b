// Test helpers: element values in the JSON form the interop scripts and
// expected-*.json use (the form `zarr get --json` prints).
import type { DataType, NDArray } from "@zarr/core";
import { hasJsonValue, plainJson } from "../src/index.js";

/** One element as JSON (toJSONValue when the type has it, else the CLI's rules). */
export function jsonOf(dt: DataType, v: unknown): unknown {
  if (hasJsonValue(dt)) return dt.toJSONValue(v as never);
  if (dt.kind === "bool") return Boolean(v);
  if (dt.kind === "bytes" && v instanceof Uint8Array) return String.fromCharCode(...v);
  return plainJson(v, dt);
}

/** Every element of `a` in C order, as JSON. */
export function jsonValues(a: NDArray): unknown[] {
  const n = a.shape.reduce((x, y) => x * y, 1);
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) out.push(jsonOf(a.dataType, a.dataType.getScalar(a.data, i)));
  return out;
}

/** Builds the in-memory data of `values` (JSON form as above) for data type `dt`. */
export function fromJsonValues(dt: DataType, values: unknown[]): NDArray["data"] {
  const data = dt.allocate(values.length);
  values.forEach((v, i) => {
    let s: unknown = v;
    if (dt.kind === "float" && typeof v === "string") s = Number(v);
    else if (dt.kind === "complex")
      s = (v as unknown[]).map((x) => (typeof x === "string" ? Number(x) : x));
    else if ((dt.kind === "int" || dt.kind === "uint") && dt.slotBytes === 8)
      s = BigInt(v as number);
    else if (dt.name.startsWith("numpy.datetime") || dt.name.startsWith("numpy.timedelta"))
      s = BigInt(v as string);
    else if (dt.kind === "bytes") s = Uint8Array.from(v as string, (c) => c.charCodeAt(0));
    if (dt.kind === "string" || dt.kind === "bytes" || dt.name === "numpy.object") {
      (data as unknown[])[i] = s;
      return;
    }
    const fv = dt.fromScalar(s, `element ${i}`);
    dt.fill(data, fv, i, i + 1);
  });
  return data;
}

/** Element values as expected-v2.json holds them. */
export function plain(a: NDArray): unknown[] {
  const n = a.shape.reduce((x, y) => x * y, 1);
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const v = a.dataType.getScalar(a.data, i);
    if (hasJsonValue(a.dataType)) out.push(a.dataType.toJSONValue(v));
    else if (a.dataType.kind === "bool") out.push(Boolean(v));
    else if (typeof v === "bigint") out.push(Number(v));
    else out.push(v);
  }
  return out;
}

/**
 * zarrita fixture arrays whose compressor lives in a codec package this one
 * does not depend on (the codec packages test against this one, so a
 * dependency back would be a cycle): `@zarr/codec-lz4`'s tests read them.
 */
export const OTHER_PACKAGE_FIXTURES: ReadonlySet<string> = new Set(["1d.contiguous.lz4.i2"]);

/** `loadExpected` without {@link OTHER_PACKAGE_FIXTURES}. */
export function ownFixtures<T>(expected: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.entries(expected).filter(([key]) => !OTHER_PACKAGE_FIXTURES.has(key)),
  );
}

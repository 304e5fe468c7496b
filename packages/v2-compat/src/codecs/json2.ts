/**
 * numcodecs `json2` (object arrays as JSON): `[v..., "|O", shape]` with the
 * values nested per the chunk shape, compact separators, sorted keys and
 * non-ASCII escaped (numcodecs' defaults). Python writes NaN and Infinity as
 * bare tokens; they decode to numbers.
 *
 * @module
 */
import { CodecError, type NDArray } from "@zarr/core";
import type { ArrayToBytesCodec, ChunkSpec, CodecFactory } from "@zarr/core/codec";
import { cStrides } from "@zarr/core/internal";
import { cOrder, count } from "./common.js";

const MARK = "\u0000zarr-nonfinite:";

/** JSON.parse that also accepts Python's NaN, Infinity and -Infinity tokens. */
export function parsePythonJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Quote bare non-finite tokens outside strings, then map them back.
    const quoted = text.replace(/"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)/g, (m, tok) =>
      tok ? `"${MARK}${tok}"` : m,
    );
    return JSON.parse(quoted, (_k, v) =>
      typeof v === "string" && v.startsWith(MARK) ? Number(v.slice(MARK.length)) : v,
    );
  }
}

function pythonJson(value: unknown): string {
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "NaN";
    if (!Number.isFinite(value)) return value > 0 ? "Infinity" : "-Infinity";
    return JSON.stringify(value);
  }
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${pythonJson(obj[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value ?? null).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function nest(values: unknown[], shape: readonly number[], at: number): unknown[] {
  if (shape.length <= 1) return values.slice(at, at + (shape[0] ?? 1));
  const step = count(shape.slice(1));
  const out: unknown[] = [];
  for (let i = 0; i < shape[0]; i++) out.push(nest(values, shape.slice(1), at + i * step));
  return out;
}

/** Dimensions a stored shape may have (NumPy 2 allows 64). */
const MAX_STORED_DIMS = 64;

/**
 * Deepest nesting of arrays and objects inside one value, as for metadata
 * documents: deeper values fail with a `CodecError` instead of overflowing
 * the stack of whoever walks them (encoding, printing, comparing).
 */
export const MAX_VALUE_DEPTH = 1000;

/** Appends the values nested `depth` levels deep in `value` to `out`, in order (no recursion). */
function flatten(value: unknown, depth: number, out: unknown[], fail: () => Error): void {
  const stack: { items: unknown[]; next: number }[] = [];
  let current: unknown = value;
  let level = 0;
  while (true) {
    if (level === depth) out.push(current);
    else {
      if (!Array.isArray(current)) throw fail();
      stack.push({ items: current, next: 0 });
    }
    // Move to the next value to visit.
    let top = stack[stack.length - 1];
    while (top !== undefined && top.next >= top.items.length) {
      stack.pop();
      top = stack[stack.length - 1];
    }
    if (top === undefined) return;
    current = top.items[top.next++];
    level = stack.length;
  }
}

/** True when `value` nests arrays or objects more than `max` levels deep (no recursion). */
function deeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

function json2Factory(name: string): CodecFactory {
  return {
    kind: "array_to_bytes",
    fromConfig(_configuration, context): ArrayToBytesCodec {
      const path = context.path;
      const config = { ...(_configuration ?? {}) };
      return {
        kind: "array_to_bytes",
        name,
        toJSON: () => ({ name, configuration: config }),
        validate(spec: ChunkSpec) {
          if (spec.dataType.name !== "numpy.object" && spec.dataType.kind !== "string") {
            throw new CodecError(
              `${path}: json2 encodes object arrays, not ${spec.dataType.name}`,
              { path },
            );
          }
        },
        encode(chunk: NDArray) {
          const values = Array.from(cOrder(chunk) as unknown as unknown[]);
          if (values.some((v) => deeperThan(v, MAX_VALUE_DEPTH))) {
            throw new CodecError(
              `${path}: json2: a value nests arrays or objects more than ${MAX_VALUE_DEPTH} levels deep`,
              { path },
            );
          }
          const items = chunk.shape.length === 0 ? [values[0]] : nest(values, chunk.shape, 0);
          const text = `${pythonJson(items).slice(0, -1)}${items.length ? "," : ""}"|O",${JSON.stringify(chunk.shape)}]`;
          return new TextEncoder().encode(text);
        },
        decode(bytes: Uint8Array, spec: ChunkSpec): NDArray {
          const fail = (why: string) => new CodecError(`${path}: json2: ${why}`, { path });
          let items: unknown;
          try {
            items = parsePythonJson(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
          } catch (e) {
            throw new CodecError(`${path}: json2: not valid JSON (${(e as Error).message})`, {
              path,
              cause: e,
            });
          }
          if (!Array.isArray(items) || items.length < 2)
            throw fail("expected [values..., dtype, shape]");
          const shape = items[items.length - 1];
          const n = count(spec.shape);
          if (
            !Array.isArray(shape) ||
            shape.length > MAX_STORED_DIMS ||
            shape.some((s) => typeof s !== "number") ||
            count(shape as number[]) !== n
          ) {
            throw fail(
              `stored shape ${JSON.stringify(shape).slice(0, 200)} does not hold the ${n} elements of a chunk`,
            );
          }
          const flat: unknown[] = [];
          flatten(
            items.slice(0, -2),
            (shape as number[]).length === 0 ? 1 : (shape as number[]).length,
            flat,
            () => fail("values are not nested like the stored shape"),
          );
          if (flat.length !== n) throw fail(`${flat.length} values, expected ${n}`);
          if (flat.some((v) => deeperThan(v, MAX_VALUE_DEPTH)))
            throw fail(`a value nests arrays or objects more than ${MAX_VALUE_DEPTH} levels deep`);
          const data =
            spec.dataType.kind === "string"
              ? flat.map((v) => (typeof v === "string" ? v : JSON.stringify(v)))
              : flat;
          return {
            data: data as unknown as string[],
            shape: spec.shape,
            stride: cStrides(spec.shape),
            dataType: spec.dataType,
          };
        },
      };
    },
  };
}

/** `json2`. */
export const json2Codec = json2Factory("json2");
/** `numcodecs.json2`. */
export const numcodecsJson2Codec = json2Factory("numcodecs.json2");

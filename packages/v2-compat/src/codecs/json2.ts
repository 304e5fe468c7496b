/**
 * numcodecs `json2` (object arrays as JSON): `[v..., "|O", shape]` with the
 * values nested per the chunk shape, compact separators, sorted keys and
 * non-ASCII escaped (numcodecs' defaults). Python writes NaN and Infinity as
 * bare tokens; they decode to numbers.
 *
 * @module
 */
import {
  type ArrayToBytesCodec,
  type ChunkSpec,
  CodecError,
  type CodecFactory,
  cStrides,
  type NDArray,
} from "@zarr/core";
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

function flatten(value: unknown, depth: number, out: unknown[], fail: () => Error): void {
  if (depth === 0) {
    out.push(value);
    return;
  }
  if (!Array.isArray(value)) throw fail();
  for (const v of value) flatten(v, depth - 1, out, fail);
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
            shape.some((s) => typeof s !== "number") ||
            count(shape as number[]) !== n
          ) {
            throw fail(
              `stored shape ${JSON.stringify(shape)} does not hold the ${n} elements of a chunk`,
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

/**
 * Shared pieces of the numcodecs filters: configuration checks, dtype
 * arguments, and building array -> array codecs.
 *
 * @module
 */
import type { DataArray, DataType, JsonObject, JsonValue, NDArray } from "@zarr/core";
import {
  type ArrayToArrayCodec,
  type ChunkSpec,
  type CodecContext,
  type CodecFactory,
  ConfigReader,
} from "@zarr/core/codec";
import { cStrides } from "@zarr/core/internal";
import { parseV2DType } from "../dtypes/typestr.js";

/**
 * A configuration reader that names the codec and field on error. Keys a codec
 * does not read are ignored (metadata from newer numcodecs versions still
 * opens); what we write is decided by `numcodecsConfig`.
 */
export class Config extends ConfigReader {
  /** A numpy dtype field parsed to a numeric core data type. */
  dtype(field: string, fallback?: JsonValue): { dataType: DataType; json: JsonValue } {
    const v = this.json[field] ?? fallback;
    if (v === undefined) throw this.error(field, "is required");
    const parsed = parseV2DType(v, `${this.path}: ${this.codec}: ${field}`);
    return { dataType: parsed.dataType, json: parsed.json };
  }
}

/** True for data types whose elements are JS numbers or bigints in a typed array. */
export function isNumeric(dt: DataType): boolean {
  return dt.kind === "int" || dt.kind === "uint" || dt.kind === "float" || dt.kind === "bool";
}

/** Checks that the incoming data type matches the configured `dtype`. */
export function checkInput(config: Config, context: CodecContext, expected: DataType): void {
  const got = context.spec.dataType;
  if (got.name !== expected.name) {
    throw config.error(
      "dtype",
      `is ${expected.name} but the array's data type here is ${got.name}`,
    );
  }
}

/** The data of `chunk` in C order (copying when strides are not C order). */
export function cOrder(chunk: NDArray): DataArray {
  const c = cStrides(chunk.shape);
  if (chunk.stride.every((s, i) => s === c[i] || chunk.shape[i] <= 1)) return chunk.data;
  const n = chunk.shape.reduce((a, b) => a * b, 1);
  const w = chunk.dataType.width;
  const out = chunk.dataType.allocate(n) as unknown as { [i: number]: unknown };
  const src = chunk.data as unknown as { [i: number]: unknown };
  const idx = new Array<number>(chunk.shape.length).fill(0);
  for (let i = 0; i < n; i++) {
    let off = 0;
    for (let d = 0; d < idx.length; d++) off += idx[d] * chunk.stride[d];
    for (let k = 0; k < w; k++) out[i * w + k] = src[off * w + k];
    for (let d = idx.length - 1; d >= 0; d--) {
      if (++idx[d] < chunk.shape[d]) break;
      idx[d] = 0;
    }
  }
  return out as unknown as DataArray;
}

/** The parts of an elementwise (or flattening) array -> array codec. */
export interface FilterParts {
  name: string;
  json: JsonObject;
  encodedSpec(spec: ChunkSpec): ChunkSpec;
  encode(data: DataArray, spec: ChunkSpec): DataArray;
  decode(data: DataArray, spec: ChunkSpec, encoded: ChunkSpec): DataArray;
}

/** Builds an array -> array codec from {@link FilterParts}. */
export function filterCodec(parts: FilterParts): ArrayToArrayCodec {
  return {
    kind: "array_to_array",
    name: parts.name,
    toJSON: () => ({ name: parts.name, configuration: parts.json }),
    encodedSpec: parts.encodedSpec,
    encode(chunk: NDArray, decoded: ChunkSpec): NDArray {
      const enc = parts.encodedSpec(decoded);
      const data = parts.encode(cOrder(chunk), decoded);
      return { data, shape: enc.shape, stride: cStrides(enc.shape), dataType: enc.dataType };
    },
    decode(chunk: NDArray, decoded: ChunkSpec): NDArray {
      const enc = parts.encodedSpec(decoded);
      const data = parts.decode(cOrder(chunk), decoded, enc);
      return {
        data,
        shape: decoded.shape,
        stride: cStrides(decoded.shape),
        dataType: decoded.dataType,
      };
    },
  };
}

/** A factory registered under `<id>` and `numcodecs.<id>`, naming itself as it was called. */
export function filterFactory(
  build: (config: Config, context: CodecContext, name: string) => ArrayToArrayCodec,
  id: string,
  name = id,
): CodecFactory {
  return {
    kind: "array_to_array",
    fromConfig: (configuration, context) =>
      build(new Config(id, configuration ?? {}, context.path), context, name),
  };
}

/** Element count of a shape. */
export function count(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

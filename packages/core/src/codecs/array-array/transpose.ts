/**
 * `transpose` (array -> array): permutes the dimensions of the chunk.
 * Encoded dimension `i` is decoded dimension `order[i]`.
 *
 * @module
 */

import { showJson } from "../../dtypes/scalar-json.js";
import type { JsonObject, JsonValue } from "../../dtypes/types.js";
import { MetadataError } from "../../errors.js";
import { type Axis, copyStrided, cStrides } from "../../indexing/index.js";
import type { ArrayToArrayCodec, ChunkSpec, CodecFactory, NDArray } from "../types.js";

function parseOrder(value: unknown, ndim: number, path: string): number[] {
  // "C" and "F" were allowed by early v3 drafts and are still found in data.
  if (value === "C") return Array.from({ length: ndim }, (_, i) => i);
  if (value === "F") return Array.from({ length: ndim }, (_, i) => ndim - 1 - i);
  const bad = () =>
    new MetadataError(
      `${path}: transpose: order must be a permutation of 0..${ndim - 1}, got ${showJson(value as JsonValue)}`,
      { path },
    );
  if (!Array.isArray(value) || value.length !== ndim) throw bad();
  const seen = new Set<number>();
  for (const v of value) {
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v >= ndim || seen.has(v))
      throw bad();
    seen.add(v);
  }
  return value as number[];
}

function permute(
  chunk: NDArray,
  outShape: readonly number[],
  srcStrideFor: (outDim: number) => number,
): NDArray {
  const n = outShape.reduce((a, b) => a * b, 1);
  const dataType = chunk.dataType;
  const out = dataType.allocate(n);
  const axes: Axis[] = outShape.map((count) => ({ start: 0, step: 1, count }));
  const srcStrides = outShape.map((_, k) => srcStrideFor(k));
  copyStrided(chunk.data, 0, axes, srcStrides, out, 0, axes, cStrides(outShape), dataType.width);
  return { data: out, shape: outShape, stride: cStrides(outShape), dataType };
}

/** The `transpose` codec factory: `{order: [...]}`. */
export const transposeCodec: CodecFactory = {
  kind: "array_to_array",
  fromConfig(configuration: JsonObject | undefined, context): ArrayToArrayCodec {
    const path = context.path;
    const ndim = context.spec.shape.length;
    const order = parseOrder(configuration?.order, ndim, path);
    const inverse = new Array<number>(ndim);
    order.forEach((d, k) => {
      inverse[d] = k;
    });
    const identity = order.every((d, k) => d === k);
    return {
      kind: "array_to_array",
      name: "transpose",
      toJSON: () => ({ name: "transpose", configuration: { order: [...order] } }),
      encodedSpec: (spec: ChunkSpec): ChunkSpec => ({
        ...spec,
        shape: order.map((d) => spec.shape[d]),
      }),
      encode(chunk: NDArray): NDArray {
        if (identity) return chunk;
        return permute(
          chunk,
          order.map((d) => chunk.shape[d]),
          (k) => chunk.stride[order[k]],
        );
      },
      decode(chunk: NDArray, spec: ChunkSpec): NDArray {
        if (identity) return { ...chunk, shape: spec.shape };
        return permute(chunk, spec.shape, (d) => chunk.stride[inverse[d]]);
      },
    };
  },
};

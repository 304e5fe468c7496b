/**
 * `bytes` (array -> bytes): the elements in C order, each in the configured byte
 * order (`endian` is required for multi-byte data types).
 *
 * @module
 */

import { showJson } from "../../dtypes/scalar-json.js";
import type { JsonObject } from "../../dtypes/types.js";
import { CodecError, MetadataError } from "../../errors.js";
import { cStrides } from "../../indexing/index.js";
import type { ArrayToBytesCodec, ChunkSpec, CodecFactory, NDArray } from "../types.js";

function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const s of shape) n *= s;
  return n;
}

function assertFixedSize(spec: ChunkSpec, path: string): number {
  const size = spec.dataType.itemSize;
  if (size === null || !spec.dataType.toBytes || !spec.dataType.fromBytes) {
    throw new CodecError(
      `${path}: the bytes codec does not support the variable-size data type ${spec.dataType.name} (use vlen-utf8 or vlen-bytes)`,
      { path },
    );
  }
  return size;
}

/** The `bytes` codec factory: `{endian: "little" | "big"}`. */
export const bytesCodec: CodecFactory = {
  kind: "array_to_bytes",
  fromConfig(configuration: JsonObject | undefined, context): ArrayToBytesCodec {
    const path = context.path;
    const endian = configuration?.endian;
    const itemSize = assertFixedSize(context.spec, path);
    if (endian === undefined) {
      if (itemSize > 1 && context.spec.dataType.kind !== "raw") {
        throw new MetadataError(
          `${path}: bytes codec: configuration.endian is required for ${context.spec.dataType.name}`,
          { path },
        );
      }
    } else if (endian !== "little" && endian !== "big") {
      throw new MetadataError(
        `${path}: bytes codec: endian must be "little" or "big", got ${showJson(endian)}`,
        { path },
      );
    }
    for (const key of Object.keys(configuration ?? {})) {
      if (key !== "endian") {
        throw new MetadataError(`${path}: bytes codec: unknown configuration key "${key}"`, {
          path,
        });
      }
    }
    const little = endian !== "big";
    return {
      kind: "array_to_bytes",
      name: "bytes",
      toJSON: (): JsonObject =>
        endian === undefined ? { name: "bytes" } : { name: "bytes", configuration: { endian } },
      validate: (spec) => void assertFixedSize(spec, path),
      encodedSize: (spec) => elementCount(spec.shape) * assertFixedSize(spec, path),
      // Hosts are little-endian (asserted by the data types); one-byte slots have no order.
      storesMemory: (spec) =>
        spec.dataType.viewsLittleEndianBytes === true && (little || spec.dataType.slotBytes === 1),
      encode(chunk: NDArray, spec: ChunkSpec) {
        return spec.dataType.toBytes!(chunk.data, little);
      },
      decode(bytes: Uint8Array, spec: ChunkSpec): NDArray {
        const size = assertFixedSize(spec, path);
        const n = elementCount(spec.shape);
        if (bytes.length !== n * size) {
          throw new CodecError(
            `${path}: bytes codec: chunk has ${bytes.length} bytes, expected ${n * size} (${n} × ${size})`,
            { path },
          );
        }
        return {
          data: spec.dataType.fromBytes!(bytes, n, little),
          shape: spec.shape,
          stride: cStrides(spec.shape),
          dataType: spec.dataType,
        };
      },
    };
  },
};

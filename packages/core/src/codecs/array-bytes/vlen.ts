/**
 * `vlen-utf8` and `vlen-bytes` (array -> bytes, zarr-extensions): a u32le
 * element count, then for each element a u32le byte length and the bytes.
 * For the `string` and `bytes` data types.
 *
 * @module
 */

import { CodecError } from "../../errors.js";
import { cStrides } from "../../indexing/index.js";
import { type DecodeLimits, resolveDecodeLimits, variableChunkBound } from "../limits.js";
import type {
  ArrayToBytesCodec,
  ChunkSpec,
  CodecFactory,
  CodecOptions,
  NDArray,
} from "../types.js";

const encoder = new TextEncoder();
// ignoreBOM: a leading U+FEFF is part of the element, not a byte order mark to strip.
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function elementCount(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

function vlenCodec(name: "vlen-utf8" | "vlen-bytes", kind: "string" | "bytes"): CodecFactory {
  return {
    kind: "array_to_bytes",
    fromConfig(_configuration, context): ArrayToBytesCodec {
      const path = context.path;
      const validate = (spec: ChunkSpec) => {
        if (spec.dataType.kind !== kind) {
          throw new CodecError(
            `${path}: ${name} encodes the ${kind} data type, not ${spec.dataType.name}`,
            {
              path,
            },
          );
        }
      };
      validate(context.spec);
      return {
        kind: "array_to_bytes",
        name,
        toJSON: () => ({ name }),
        validate,
        encode(chunk: NDArray) {
          const items =
            kind === "string"
              ? (chunk.data as string[]).map((s) => encoder.encode(s))
              : (chunk.data as Uint8Array[]);
          let total = 4;
          for (const b of items) total += 4 + b.length;
          const out = new Uint8Array(total);
          const view = new DataView(out.buffer);
          view.setUint32(0, items.length, true);
          let pos = 4;
          for (const b of items) {
            view.setUint32(pos, b.length, true);
            out.set(b, pos + 4);
            pos += 4 + b.length;
          }
          return out;
        },
        maxEncodedSize(spec: ChunkSpec, limits: DecodeLimits): number {
          return variableChunkBound(elementCount(spec.shape), limits);
        },
        decode(bytes: Uint8Array, spec: ChunkSpec, options?: CodecOptions): NDArray {
          const n = elementCount(spec.shape);
          const fail = (why: string) => new CodecError(`${path}: ${name}: ${why}`, { path });
          const limits = resolveDecodeLimits(options?.decodeLimits);
          const bound = variableChunkBound(n, limits);
          if (bytes.length > bound) {
            throw fail(
              `chunk of ${bytes.length} bytes is larger than the decode limits allow for ${n} elements (${bound}: maxElementBytes ${limits.maxElementBytes}, maxChunkBytes ${limits.maxChunkBytes})`,
            );
          }
          if (bytes.length < 4)
            throw fail(`${bytes.length} bytes is too short for the element count`);
          const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
          const count = view.getUint32(0, true);
          if (count !== n) throw fail(`chunk holds ${count} elements, expected ${n}`);
          const out: (string | Uint8Array)[] = new Array(n);
          let pos = 4;
          for (let i = 0; i < n; i++) {
            if (pos + 4 > bytes.length) throw fail(`truncated at element ${i}`);
            const len = view.getUint32(pos, true);
            pos += 4;
            if (len > bytes.length - pos)
              throw fail(`element ${i} claims ${len} bytes, ${bytes.length - pos} remain`);
            if (len > limits.maxElementBytes) {
              throw fail(
                `element ${i} has ${len} bytes, more than the decode limit maxElementBytes (${limits.maxElementBytes})`,
              );
            }
            const item = bytes.subarray(pos, pos + len);
            if (kind === "string") {
              try {
                out[i] = decoder.decode(item);
              } catch {
                throw fail(`element ${i} is not valid UTF-8`);
              }
            } else {
              out[i] = item.slice();
            }
            pos += len;
          }
          if (pos !== bytes.length)
            throw fail(`${bytes.length - pos} trailing bytes after ${n} elements`);
          return {
            data: out as string[] | Uint8Array[],
            shape: spec.shape,
            stride: cStrides(spec.shape),
            dataType: spec.dataType,
          };
        },
      };
    },
  };
}

/** `vlen-utf8`: arrays of the `string` data type. */
export const vlenUtf8Codec: CodecFactory = vlenCodec("vlen-utf8", "string");
/** `vlen-bytes`: arrays of the `bytes` data type. */
export const vlenBytesCodec: CodecFactory = vlenCodec("vlen-bytes", "bytes");

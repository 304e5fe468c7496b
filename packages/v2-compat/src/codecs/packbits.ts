/**
 * numcodecs `packbits`: a boolean chunk as one byte holding the number of
 * padding bits, then the values packed 8 per byte, most significant bit first.
 *
 * @module
 */
import { CodecError, type DataArray } from "@zarr/core";
import type { ChunkSpec } from "@zarr/core/codec";
import { uint8 } from "@zarr/core/internal";
import { count, filterCodec, filterFactory } from "./common.js";

function packbitsFactory(name: string) {
  return filterFactory(
    (config, context) => {
      if (context.spec.dataType.kind !== "bool")
        throw config.error("dtype", `packbits encodes bool, not ${context.spec.dataType.name}`);
      const packedShape = (spec: ChunkSpec) => [1 + Math.ceil(count(spec.shape) / 8)];
      return filterCodec({
        name,
        json: {},
        encodedSpec: (spec) => ({
          shape: packedShape(spec),
          dataType: uint8,
          fillValue: uint8.defaultFillValue(),
        }),
        encode(data: DataArray, spec: ChunkSpec) {
          const n = count(spec.shape);
          const src = data as Uint8Array;
          const out = new Uint8Array(1 + Math.ceil(n / 8));
          out[0] = (8 - (n % 8)) % 8;
          for (let i = 0; i < n; i++) if (src[i]) out[1 + (i >> 3)] |= 0x80 >> (i & 7);
          return out;
        },
        decode(data: DataArray, spec: ChunkSpec) {
          const n = count(spec.shape);
          const src = data as Uint8Array;
          if (src.length !== 1 + Math.ceil(n / 8) || src[0] !== (8 - (n % 8)) % 8) {
            throw new CodecError(
              `${config.path}: packbits: ${src.length} bytes with padding ${src[0]} do not hold ${n} values`,
              {
                path: config.path,
              },
            );
          }
          const out = new Uint8Array(n);
          for (let i = 0; i < n; i++) out[i] = (src[1 + (i >> 3)] >> (7 - (i & 7))) & 1;
          return out;
        },
      });
    },
    "packbits",
    name,
  );
}

/** `packbits`. */
export const packbitsCodec = packbitsFactory("packbits");
/** `numcodecs.packbits`. */
export const numcodecsPackbitsCodec = packbitsFactory("numcodecs.packbits");

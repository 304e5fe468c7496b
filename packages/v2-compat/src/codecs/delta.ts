/**
 * numcodecs `delta`: stores the first element and the differences between
 * consecutive elements (in memory order), computed in `dtype` and cast to
 * `astype`. Decoding is a cumulative sum in `dtype` (integers wrap). Float
 * differences and sums keep numpy's NaN (the first NaN operand's bits, quieted),
 * so everything after a NaN decodes to that NaN bit for bit, as numcodecs does.
 *
 * @module
 */
import type { DataArray, JsonObject } from "@zarr/core";
import type { ChunkSpec } from "@zarr/core/codec";
import { checkInput, count, filterCodec, filterFactory, isNumeric } from "./common.js";
import { cast, castNaN, floatArith, isBig, type Num, store, toPrecision } from "./numeric.js";

/** Factory of `delta` / `numcodecs.delta` (`{dtype, astype?}`). */
export const deltaCodec = deltaFactory("delta");
/** zarr-python 3's name for the same codec. */
export const numcodecsDeltaCodec = deltaFactory("numcodecs.delta");

function deltaFactory(name: string) {
  return filterFactory(
    (config, context) => {
      const { dataType: dtype, json: dtypeJson } = config.dtype("dtype");
      const { dataType: astype, json: astypeJson } = config.dtype("astype", config.json.dtype);
      if (!isNumeric(dtype) || dtype.kind === "bool")
        throw config.error("dtype", `must be numeric, got ${dtype.name}`);
      if (!isNumeric(astype) || astype.kind === "bool")
        throw config.error("astype", `must be numeric, got ${astype.name}`);
      checkInput(config, context, dtype);
      const big = isBig(dtype);
      const json: JsonObject =
        config.json.astype === undefined
          ? { dtype: dtypeJson }
          : { dtype: dtypeJson, astype: astypeJson };
      return filterCodec({
        name,
        json,
        encodedSpec: (spec: ChunkSpec) => ({
          ...spec,
          dataType: astype,
          fillValue: astype.defaultFillValue(),
        }),
        encode(data: DataArray, spec: ChunkSpec) {
          const n = count(spec.shape);
          const src = data as unknown as ArrayLike<Num>;
          const diff = dtype.allocate(n);
          for (let i = 0; i < n; i++) {
            const v =
              i === 0
                ? src[0]
                : big
                  ? (src[i] as bigint) - (src[i - 1] as bigint)
                  : toPrecision(floatArith("-", src[i] as number, src[i - 1] as number), dtype);
            store(diff, dtype, i, v);
          }
          // The first element is copied: a NaN keeps its bits (a signaling one too).
          if (n > 0 && dtype.kind === "float" && Number.isNaN(src[0]))
            castNaN(data, dtype, 0, diff, dtype, 0);
          return cast(diff, dtype, astype, n);
        },
        decode(data: DataArray, spec: ChunkSpec) {
          const n = count(spec.shape);
          const enc = data as unknown as ArrayLike<Num>;
          const out = dtype.allocate(n);
          const o = out as unknown as ArrayLike<Num>;
          for (let i = 0; i < n; i++) {
            const e = enc[i];
            if (i === 0) {
              // Cast, not computed: a NaN keeps its bits as numpy's cast keeps them.
              if (astype.kind === "float" && dtype.kind === "float" && Number.isNaN(e))
                castNaN(data, astype, 0, out, dtype, 0);
              else store(out, dtype, 0, e, astype.kind === "float");
            } else if (big)
              store(
                out,
                dtype,
                i,
                (o[i - 1] as bigint) + (typeof e === "bigint" ? e : BigInt(Math.trunc(e))),
              );
            else
              store(
                out,
                dtype,
                i,
                toPrecision(floatArith("+", o[i - 1] as number, Number(e)), dtype),
              );
          }
          return out;
        },
      });
    },
    "delta",
    name,
  );
}

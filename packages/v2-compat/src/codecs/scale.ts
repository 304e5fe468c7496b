/**
 * numcodecs value filters: `fixedscaleoffset` (`round((x - offset) * scale)`
 * as `astype`), `quantize` (keep `digits` decimal digits), `bitround` (keep
 * `keepbits` mantissa bits, round half to even) and `astype` (a cast).
 *
 * @module
 */
import type { DataArray, DataType } from "@zarr/core";
import type { ChunkSpec } from "@zarr/core/codec";
import { type Config, checkInput, count, filterCodec, filterFactory, isNumeric } from "./common.js";
import {
  cast,
  F8,
  type Num,
  npArith,
  npCast,
  npType,
  resultType,
  roundHalfEven,
  scalarType,
} from "./numeric.js";

function retype(dt: DataType) {
  return (spec: ChunkSpec): ChunkSpec => ({
    ...spec,
    dataType: dt,
    fillValue: dt.defaultFillValue(),
  });
}

function requireNumeric(config: Config, field: string, dt: DataType): void {
  if (!isNumeric(dt) || dt.kind === "bool")
    throw config.error(field, `must be a numeric type, got ${dt.name}`);
}

function fixedScaleOffsetFactory(name: string) {
  return filterFactory(
    (config, context) => {
      const offset = config.number("offset");
      const scale = config.number("scale");
      const { dataType: dtype, json: dtypeJson } = config.dtype("dtype");
      const { dataType: astype, json: astypeJson } = config.dtype("astype", config.json.dtype);
      requireNumeric(config, "dtype", dtype);
      requireNumeric(config, "astype", astype);
      checkInput(config, context, dtype);
      // numpy 1.24: (x - offset) * scale with value-based promotion (integers wrap),
      // np.around, then astype; decoding enc / scale + offset, then astype.
      const tIn = npType(dtype);
      const tOut = npType(astype);
      const kind = (v: number) => (Number.isInteger(v) ? "int" : "float");
      const t1 = resultType(tIn, offset);
      const t2 = resultType(t1, scale);
      const off1 = npCast(offset, scalarType(kind(offset)), t1);
      const scale2 = npCast(scale, scalarType(kind(scale)), t2);
      const tq = resultType(tOut, scale);
      const t3 = tq.kind === "f" ? tq : F8; // true division of integers is float64
      const t4 = resultType(t3, offset);
      const scale3 = npCast(scale, scalarType(kind(scale)), t3);
      const off4 = npCast(offset, scalarType(kind(offset)), t4);
      return filterCodec({
        name,
        json: { offset, scale, dtype: dtypeJson, astype: astypeJson },
        encodedSpec: retype(astype),
        encode(data: DataArray, spec: ChunkSpec) {
          const n = count(spec.shape);
          const src = data as unknown as ArrayLike<Num>;
          const out = astype.allocate(n) as unknown as { [i: number]: Num };
          for (let i = 0; i < n; i++) {
            const d = npArith("-", npCast(src[i], tIn, t1), off1, t1);
            let m = npArith("*", npCast(d, t1, t2), scale2, t2);
            if (t2.kind === "f") m = roundHalfEven(m as number);
            out[i] = npCast(m, t2, tOut);
          }
          return out as unknown as DataArray;
        },
        decode(data: DataArray, spec: ChunkSpec) {
          const n = count(spec.shape);
          const src = data as unknown as ArrayLike<Num>;
          const out = dtype.allocate(n) as unknown as { [i: number]: Num };
          for (let i = 0; i < n; i++) {
            const q = npArith("/", npCast(src[i], tOut, t3), scale3, t3);
            out[i] = npCast(npArith("+", npCast(q, t3, t4), off4, t4), t4, tIn);
          }
          return out as unknown as DataArray;
        },
      });
    },
    "fixedscaleoffset",
    name,
  );
}

function quantizeFactory(name: string) {
  return filterFactory(
    (config, context) => {
      const digits = config.integer("digits", -300, 300);
      const { dataType: dtype, json: dtypeJson } = config.dtype("dtype");
      const { dataType: astype, json: astypeJson } = config.dtype("astype", config.json.dtype);
      if (dtype.kind !== "float")
        throw config.error("dtype", `must be a float type, got ${dtype.name}`);
      if (astype.kind !== "float")
        throw config.error("astype", `must be a float type, got ${astype.name}`);
      checkInput(config, context, dtype);
      const precision = 10 ** -digits;
      // Python's math.log(x, 10) is log(x) / log(10), not log10 (they differ on powers of 10).
      let exp = Math.log(precision) / Math.log(10);
      exp = exp < 0 ? Math.floor(exp) : Math.ceil(exp);
      const bits = Math.ceil(Math.log(10 ** -exp) / Math.log(2));
      const scale = 2 ** bits;
      return filterCodec({
        name,
        json: { digits, dtype: dtypeJson, astype: astypeJson },
        encodedSpec: retype(astype),
        encode(data: DataArray, spec: ChunkSpec) {
          // numpy 1.24: np.around(scale * x) / scale with a Python float scale, then astype.
          const n = count(spec.shape);
          const src = data as unknown as ArrayLike<number>;
          const out = astype.allocate(n) as unknown as { [i: number]: Num };
          const tIn = npType(dtype);
          const t1 = resultType(tIn, scale, "float");
          const t2 = resultType(t1, scale, "float");
          const tOut = npType(astype);
          for (let i = 0; i < n; i++) {
            const m = roundHalfEven(npArith("*", npCast(src[i], tIn, t1), scale, t1) as number);
            out[i] = npCast(npArith("/", npCast(m, t1, t2), scale, t2), t2, tOut);
          }
          return out as unknown as DataArray;
        },
        decode: (data: DataArray, spec: ChunkSpec) => cast(data, astype, dtype, count(spec.shape)),
      });
    },
    "quantize",
    name,
  );
}

function bitroundFactory(name: string) {
  return filterFactory(
    (config, context) => {
      const dt = context.spec.dataType;
      if (dt.kind !== "float" || (dt.itemSize !== 4 && dt.itemSize !== 8)) {
        throw config.error("dtype", `bitround supports float32 and float64, not ${dt.name}`);
      }
      const maxbits = dt.itemSize === 4 ? 23 : 52;
      const keepbits = config.integer("keepbits", 0, maxbits);
      const maskbits = maxbits - keepbits;
      return filterCodec({
        name,
        json: { keepbits },
        encodedSpec: (spec) => spec,
        encode(data: DataArray, spec: ChunkSpec) {
          const n = count(spec.shape);
          const out = (data as Float32Array | Float64Array).slice(0, n);
          if (maskbits === 0) return out;
          if (out instanceof Float32Array) {
            const b = new Int32Array(out.buffer, out.byteOffset, n);
            const mask = ((-1 >>> maskbits) << maskbits) | 0;
            const half = (1 << (maskbits - 1)) - 1;
            for (let i = 0; i < n; i++)
              b[i] = ((b[i] + ((b[i] >> maskbits) & 1) + half) | 0) & mask;
          } else {
            const b = new BigInt64Array(out.buffer, out.byteOffset, n);
            const m = BigInt(maskbits);
            const mask = BigInt.asIntN(64, ((2n ** 64n - 1n) >> m) << m);
            const half = (1n << (m - 1n)) - 1n;
            for (let i = 0; i < n; i++)
              b[i] = BigInt.asIntN(64, b[i] + ((b[i] >> m) & 1n) + half) & mask;
          }
          return out;
        },
        decode: (data: DataArray) => data,
      });
    },
    "bitround",
    name,
  );
}

function astypeFactory(name: string) {
  return filterFactory(
    (config, context) => {
      const { dataType: enc, json: encJson } = config.dtype("encode_dtype");
      const { dataType: dec, json: decJson } = config.dtype("decode_dtype");
      // numpy casts to and from bool too (nonzero is True).
      if (!isNumeric(enc))
        throw config.error("encode_dtype", `must be a numeric type, got ${enc.name}`);
      if (!isNumeric(dec))
        throw config.error("decode_dtype", `must be a numeric type, got ${dec.name}`);
      checkInput(config, context, dec);
      return filterCodec({
        name,
        json: { encode_dtype: encJson, decode_dtype: decJson },
        encodedSpec: retype(enc),
        encode: (data: DataArray, spec: ChunkSpec) => cast(data, dec, enc, count(spec.shape)),
        decode: (data: DataArray, spec: ChunkSpec) => cast(data, enc, dec, count(spec.shape)),
      });
    },
    "astype",
    name,
  );
}

/** `fixedscaleoffset` (`{offset, scale, dtype, astype?}`). */
export const fixedScaleOffsetCodec = fixedScaleOffsetFactory("fixedscaleoffset");
/** `numcodecs.fixedscaleoffset`. */
export const numcodecsFixedScaleOffsetCodec = fixedScaleOffsetFactory("numcodecs.fixedscaleoffset");
/** `quantize` (`{digits, dtype, astype?}`). */
export const quantizeCodec = quantizeFactory("quantize");
/** `numcodecs.quantize`. */
export const numcodecsQuantizeCodec = quantizeFactory("numcodecs.quantize");
/** `bitround` (`{keepbits}`). */
export const bitroundCodec = bitroundFactory("bitround");
/** `numcodecs.bitround`. */
export const numcodecsBitroundCodec = bitroundFactory("numcodecs.bitround");
/** `astype` (`{encode_dtype, decode_dtype}`). */
export const astypeCodec = astypeFactory("astype");
/** `numcodecs.astype`. */
export const numcodecsAstypeCodec = astypeFactory("numcodecs.astype");

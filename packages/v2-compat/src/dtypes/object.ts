/**
 * numpy object arrays (`|O`) encoded with `json2`: any JSON value per element,
 * held in a plain JS array. Variable size: the `bytes` codec cannot encode it.
 *
 * @module
 */
import type { DataArray, DataType, FillValue, JsonValue, Scalar } from "@zarr/core";
import { allocateValues } from "@zarr/core/internal";
import type { JsonValueDataType } from "./json-value.js";

/** An object array whose elements are JSON values. */
export class JsonObjectDataType implements DataType, JsonValueDataType {
  readonly kind = "other";
  readonly name = "numpy.object";
  readonly itemSize = null;
  readonly width = 1;
  readonly slotBytes = 0;

  toJSON(): JsonValue {
    return this.name;
  }

  allocate(n: number): DataArray {
    return allocateValues<JsonValue>(n, null, "object") as unknown as DataArray;
  }

  parseFillValue(json: JsonValue): FillValue {
    return { value: json as Scalar, bits: new Uint8Array(0) };
  }

  fromScalar(value: unknown): FillValue {
    return { value: value as Scalar, bits: new Uint8Array(0) };
  }

  fillValueToJSON(fill: FillValue): JsonValue {
    return fill.value as JsonValue;
  }

  defaultFillValue(): FillValue {
    return { value: null as unknown as Scalar, bits: new Uint8Array(0) };
  }

  fill(data: DataArray, fill: FillValue, start: number, end: number): void {
    (data as unknown as unknown[]).fill(fill.value, start, end);
  }

  isFill(data: DataArray, fill: FillValue, start: number, end: number): boolean {
    const d = data as unknown as unknown[];
    const f = JSON.stringify(fill.value);
    for (let i = start; i < end; i++)
      if (d[i] !== fill.value && JSON.stringify(d[i]) !== f) return false;
    return true;
  }

  getScalar(data: DataArray, i: number): Scalar {
    return (data as unknown as Scalar[])[i];
  }

  toJSONValue(scalar: Scalar): JsonValue {
    return scalar as unknown as JsonValue;
  }
}

/** The shared instance. */
export const jsonObject: JsonObjectDataType = /* @__PURE__ */ new JsonObjectDataType();

/**
 * numpy `U<n>`: fixed-length UTF-32 text of `n` code points, NUL padded. In
 * memory a `string[]` (one JS string per element, trailing NULs removed as numpy
 * does); stored as 4-byte code units in the `bytes` codec's byte order.
 *
 * @module
 */
import {
  CodecError,
  type DataArray,
  type DataType,
  type FillValue,
  type JsonValue,
  MetadataError,
  type Scalar,
  ValueError,
} from "@zarr/core";
import { allocateValues, showJson } from "@zarr/core/internal";
import type { JsonValueDataType } from "./json-value.js";

/** Largest `U` length accepted (code points). */
export const MAX_UNICODE_LENGTH = 1 << 18;

function codePointCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** numpy `U<n>` (zarr-python 3: `fixed_length_utf32`). */
export class FixedUnicodeDataType implements DataType, JsonValueDataType {
  readonly kind = "other";
  readonly name = "fixed_length_utf32";
  readonly itemSize: number;
  readonly width = 1;
  readonly slotBytes = 0;

  constructor(readonly length: number) {
    this.itemSize = 4 * length;
  }

  toJSON(): JsonValue {
    return { name: this.name, configuration: { length_bytes: this.itemSize } };
  }

  allocate(n: number): string[] {
    return allocateValues(n, "", `U${this.length}`);
  }

  #check(s: string, path: string, error: (m: string) => Error): FillValue {
    if (codePointCount(s) > this.length)
      throw error(`${path}: "${s}" has more than ${this.length} code points (U${this.length})`);
    return { value: s.replace(/\0+$/, ""), bits: new Uint8Array(0) };
  }

  parseFillValue(json: JsonValue, path: string): FillValue {
    if (typeof json !== "string") {
      throw new MetadataError(
        `${path}: fill value of U${this.length} must be a string, got ${showJson(json as JsonValue)}`,
        { path },
      );
    }
    return this.#check(json, path, (m) => new MetadataError(m, { path }));
  }

  fromScalar(value: unknown, path: string): FillValue {
    if (typeof value !== "string")
      throw new ValueError(`${path}: expected a string for U${this.length}`, { path });
    return this.#check(value, path, (m) => new ValueError(m, { path }));
  }

  fillValueToJSON(fill: FillValue): JsonValue {
    return fill.value as string;
  }

  defaultFillValue(): FillValue {
    return { value: "", bits: new Uint8Array(0) };
  }

  fill(data: DataArray, fill: FillValue, start: number, end: number): void {
    (data as string[]).fill(fill.value as string, start, end);
  }

  isFill(data: DataArray, fill: FillValue, start: number, end: number): boolean {
    const d = data as string[];
    for (let i = start; i < end; i++) if (d[i] !== fill.value) return false;
    return true;
  }

  getScalar(data: DataArray, i: number): string {
    return (data as string[])[i];
  }

  toJSONValue(scalar: Scalar): JsonValue {
    return scalar as string;
  }

  toBytes(data: DataArray, littleEndian: boolean): Uint8Array {
    const items = data as string[];
    const out = new Uint8Array(items.length * this.itemSize);
    const view = new DataView(out.buffer);
    for (let i = 0; i < items.length; i++) {
      let pos = i * this.itemSize;
      const end = pos + this.itemSize;
      for (const ch of items[i]) {
        if (pos >= end)
          throw new ValueError(
            `element ${i} has more than ${this.length} code points (U${this.length})`,
          );
        view.setUint32(pos, ch.codePointAt(0)!, littleEndian);
        pos += 4;
      }
    }
    return out;
  }

  fromBytes(bytes: Uint8Array, n: number, littleEndian: boolean): string[] {
    if (bytes.length !== n * this.itemSize) {
      throw new CodecError(
        `expected ${n * this.itemSize} bytes for ${n} elements of U${this.length}, got ${bytes.length}`,
      );
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const out = new Array<string>(n);
    const points: number[] = [];
    for (let i = 0; i < n; i++) {
      const base = i * this.itemSize;
      let len = this.length;
      while (len > 0 && view.getUint32(base + 4 * (len - 1), littleEndian) === 0) len--;
      points.length = 0;
      for (let j = 0; j < len; j++) {
        const cp = view.getUint32(base + 4 * j, littleEndian);
        if (cp > 0x10ffff)
          throw new CodecError(
            `element ${i} of U${this.length} holds an invalid code point 0x${cp.toString(16)}`,
          );
        points.push(cp);
      }
      let s = "";
      for (let j = 0; j < points.length; j += 4096)
        s += String.fromCodePoint(...points.slice(j, j + 4096));
      out[i] = s;
    }
    return out;
  }
}

/**
 * The shared machinery of fixed-size data types whose in-memory form is a typed
 * array: allocation, bit-exact fill and comparison, and the byte order
 * conversions of the `bytes` codec.
 *
 * @module
 */

import { CodecError, ValueError } from "../errors.js";
import { adviseHugePages } from "../memory/huge-pages.js";
import { aligned, byteSwapped, bytesOf, fillPattern, matchesPattern } from "./byte-utils.js";
import { assertLittleEndianHost } from "./host.js";
import type {
  DataArray,
  DataType,
  DataTypeKind,
  FillValue,
  JsonValue,
  Scalar,
  TypedArray,
} from "./types.js";

/** A typed array constructor. */
export interface TypedArrayConstructor<T extends TypedArray = TypedArray> {
  new (length: number): T;
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): T;
  readonly BYTES_PER_ELEMENT: number;
}

/** Base class of the built-in fixed-size data types. */
export abstract class FixedSizeDataType<T extends TypedArray = TypedArray> implements DataType {
  abstract readonly name: string;
  abstract readonly kind: DataTypeKind;
  /** Bytes per element in memory (`width * slotBytes`). */
  readonly elementBytes: number;
  readonly slotBytes: number;

  constructor(
    readonly itemSize: number,
    readonly width: number,
    protected readonly ctor: TypedArrayConstructor<T>,
  ) {
    this.slotBytes = ctor.BYTES_PER_ELEMENT;
    this.elementBytes = width * this.slotBytes;
  }

  /**
   * The in-memory elements are their little-endian stored bytes, unchanged
   * (see {@link DataType.viewsLittleEndianBytes}). True when the memory size
   * matches the stored size and `fromBytes` is this class's own (a subclass
   * that converts or normalizes in `fromBytes` is left out unless it says so).
   */
  get viewsLittleEndianBytes(): boolean {
    return (
      this.itemSize === this.elementBytes &&
      this.fromBytes === FixedSizeDataType.prototype.fromBytes
    );
  }

  abstract parseFillValue(json: JsonValue, path: string): FillValue;
  abstract fromScalar(value: unknown, path: string): FillValue;
  abstract fillValueToJSON(fill: FillValue): JsonValue;
  abstract getScalar(data: DataArray, i: number): Scalar;

  allocate(n: number): T {
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new ValueError(`cannot allocate ${n} elements of ${this.name}`);
    }
    let array: T;
    try {
      array = new this.ctor(n * this.width);
    } catch (cause) {
      // Past the engine's typed-array limit (a RangeError): say what was asked for.
      throw new ValueError(
        `cannot allocate ${n} elements of ${this.name}: larger than this JavaScript engine allows`,
        { cause },
      );
    }
    adviseHugePages(array.buffer); // large arrays only; fresh memory is untouched until written
    return array;
  }

  defaultFillValue(): FillValue {
    return { value: this.getScalar(this.allocate(1), 0), bits: new Uint8Array(this.elementBytes) };
  }

  /** The typed array of `data`, checked to be of this data type's representation. */
  protected typed(data: DataArray): T {
    if (!(data instanceof this.ctor)) {
      throw new ValueError(
        `data of type ${this.name} must be a ${this.ctor.name}, got ${data?.constructor?.name ?? typeof data}`,
      );
    }
    return data;
  }

  /** Bytes of elements [start, end) of `data` (a view, no copy). */
  protected region(data: DataArray, start: number, end: number): Uint8Array {
    const typed = this.typed(data);
    const eb = this.elementBytes;
    if (!(start >= 0 && end >= start && end * this.width <= typed.length)) {
      throw new ValueError(
        `element range [${start}, ${end}) is outside an array of ${typed.length / this.width} ${this.name} elements`,
      );
    }
    return new Uint8Array(typed.buffer, typed.byteOffset + start * eb, (end - start) * eb);
  }

  protected checkFill(fill: FillValue): Uint8Array {
    if (fill.bits.length !== this.elementBytes) {
      throw new ValueError(
        `fill value of ${this.name} must have ${this.elementBytes} bytes, got ${fill.bits.length}`,
      );
    }
    return fill.bits;
  }

  fill(data: DataArray, fill: FillValue, start: number, end: number): void {
    fillPattern(this.region(data, start, end), this.checkFill(fill));
  }

  isFill(data: DataArray, fill: FillValue, start: number, end: number): boolean {
    return matchesPattern(this.region(data, start, end), this.checkFill(fill));
  }

  toJSON(): JsonValue {
    return this.name;
  }

  /**
   * Encodes every element of `data`. Little-endian output is a view of `data`'s
   * memory (zero-copy): copy it before retaining it beyond `data`'s next mutation.
   */
  toBytes(data: DataArray, littleEndian: boolean): Uint8Array {
    assertLittleEndianHost();
    const bytes = bytesOf(this.typed(data));
    return littleEndian || this.slotBytes === 1 ? bytes : byteSwapped(bytes, this.slotBytes);
  }

  /**
   * Decodes `n` elements. Little-endian input is viewed in place when its offset is
   * aligned to the slot size (the result then shares memory with `bytes`), else copied.
   */
  fromBytes(bytes: Uint8Array, n: number, littleEndian: boolean): T {
    assertLittleEndianHost();
    this.checkByteLength(bytes, n);
    const buf =
      littleEndian || this.slotBytes === 1
        ? aligned(bytes, this.slotBytes)
        : byteSwapped(bytes, this.slotBytes);
    return new this.ctor(buf.buffer, buf.byteOffset, n * this.width);
  }

  protected checkByteLength(bytes: Uint8Array, n: number): void {
    if (!Number.isSafeInteger(n) || n < 0 || bytes.length !== n * this.itemSize) {
      throw new CodecError(
        `expected ${n * this.itemSize} bytes for ${n} elements of ${this.name}, got ${bytes.length}`,
      );
    }
  }

  /** A fill value from the in-memory bits of one element. */
  protected fillFromBits(bits: Uint8Array): FillValue {
    const one = new this.ctor(bits.buffer, bits.byteOffset, this.width);
    return { value: this.getScalar(one, 0), bits };
  }
}

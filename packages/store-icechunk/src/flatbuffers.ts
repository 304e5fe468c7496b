/**
 * A small, bounds-checked reader of FlatBuffers binary data (the wire format
 * of https://flatbuffers.dev/internals/): little-endian tables reached through
 * `uoffset` fields, each with a vtable of field offsets. Every read checks
 * that it stays inside the buffer, so a truncated or hostile file fails with
 * an {@link IcechunkFormatError} naming the file, never a `RangeError`, a
 * hang or an oversized allocation (vectors are views, never copies).
 *
 * @module
 */

import { IcechunkFormatError } from "./errors.js";

/** A FlatBuffers buffer and the file it came from (for error messages). */
export class FlatBuffer {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  readonly file: string;

  constructor(bytes: Uint8Array, file: string) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.file = file;
  }

  fail(what: string): never {
    throw new IcechunkFormatError(`icechunk file ${this.file}: ${what}`, { path: this.file });
  }

  check(pos: number, size: number, what: string): void {
    if (!(pos >= 0 && size >= 0 && pos + size <= this.bytes.length)) {
      this.fail(
        `${what} at byte ${pos} (${size} bytes) is outside the ${this.bytes.length}-byte flatbuffer`,
      );
    }
  }

  u8(pos: number): number {
    this.check(pos, 1, "a uint8");
    return this.bytes[pos];
  }
  u16(pos: number): number {
    this.check(pos, 2, "a uint16");
    return this.view.getUint16(pos, true);
  }
  i32(pos: number): number {
    this.check(pos, 4, "an int32");
    return this.view.getInt32(pos, true);
  }
  u32(pos: number): number {
    this.check(pos, 4, "a uint32");
    return this.view.getUint32(pos, true);
  }
  /** A uint64 as a number; values above 2^53 - 1 are a format error (no offset or length is that large). */
  u64(pos: number, what = "a uint64"): number {
    this.check(pos, 8, what);
    const value = this.view.getBigUint64(pos, true);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) this.fail(`${what} ${value} is above 2^53 - 1`);
    return Number(value);
  }

  /** The root table (`uoffset` at byte 0). */
  root(what: string): Table {
    if (this.bytes.length < 8)
      this.fail(`the flatbuffer has ${this.bytes.length} bytes, too few for a root table`);
    return this.table(this.u32(0), what);
  }

  /** The table at `pos`, with its vtable checked. */
  table(pos: number, what: string): Table {
    const vtable = pos - this.i32(pos);
    const vtableSize = this.u16(vtable);
    if (vtableSize < 4 || vtableSize % 2 !== 0) this.fail(`${what}: vtable of ${vtableSize} bytes`);
    this.check(vtable, vtableSize, `${what}'s vtable`);
    const tableSize = this.u16(vtable + 2);
    this.check(pos, Math.max(tableSize, 4), `${what}'s table`);
    return new Table(this, pos, vtable, vtableSize, tableSize, what);
  }

  /** Follows the `uoffset` stored at `pos`. */
  deref(pos: number): number {
    return pos + this.u32(pos);
  }
}

/** A view of one vector: `length` elements of `stride` bytes starting at `start`. */
export interface VectorView {
  start: number;
  length: number;
}

/** One table of a {@link FlatBuffer}; fields are addressed by their id (declaration order, a union counts twice). */
export class Table {
  constructor(
    readonly fb: FlatBuffer,
    readonly pos: number,
    private readonly vtable: number,
    private readonly vtableSize: number,
    private readonly tableSize: number,
    readonly what: string,
  ) {}

  /** The absolute position of field `id`, or 0 when it is absent. */
  field(id: number, size: number): number {
    const slot = 4 + 2 * id;
    if (slot + 2 > this.vtableSize) return 0;
    const offset = this.fb.u16(this.vtable + slot);
    if (offset === 0) return 0;
    if (offset + size > this.tableSize) {
      this.fb.fail(
        `${this.what}: field ${id} at offset ${offset} lies outside its ${this.tableSize}-byte table`,
      );
    }
    return this.pos + offset;
  }

  has(id: number): boolean {
    return this.field(id, 0) !== 0;
  }

  u8(id: number, fallback = 0): number {
    const p = this.field(id, 1);
    return p === 0 ? fallback : this.fb.u8(p);
  }
  u32(id: number, fallback = 0): number {
    const p = this.field(id, 4);
    return p === 0 ? fallback : this.fb.u32(p);
  }
  i32(id: number, fallback = 0): number {
    const p = this.field(id, 4);
    return p === 0 ? fallback : this.fb.i32(p);
  }
  u64(id: number, name: string, fallback = 0): number {
    const p = this.field(id, 8);
    return p === 0 ? fallback : this.fb.u64(p, `${this.what}.${name}`);
  }

  /** An inline struct of `size` bytes (e.g. an object id), as a view; `undefined` when absent. */
  struct(id: number, size: number): Uint8Array | undefined {
    const p = this.field(id, size);
    if (p === 0) return undefined;
    this.fb.check(p, size, `${this.what}: a ${size}-byte struct`);
    return this.fb.bytes.subarray(p, p + size);
  }

  requiredStruct(id: number, size: number, name: string): Uint8Array {
    return this.struct(id, size) ?? this.fb.fail(`${this.what} has no ${name} (a required field)`);
  }

  /** The position of the vector (or string) that field `id` points to, or 0 when absent. */
  private target(id: number): number {
    const p = this.field(id, 4);
    return p === 0 ? 0 : this.fb.deref(p);
  }

  /** A vector of `stride`-byte elements; `undefined` when absent. */
  vector(id: number, stride: number, name: string): VectorView | undefined {
    const t = this.target(id);
    if (t === 0) return undefined;
    const length = this.fb.u32(t);
    this.fb.check(t + 4, length * stride, `${this.what}.${name} (${length} elements)`);
    return { start: t + 4, length };
  }

  requiredVector(id: number, stride: number, name: string): VectorView {
    return (
      this.vector(id, stride, name) ??
      this.fb.fail(`${this.what} has no ${name} (a required field)`)
    );
  }

  /** A `[ubyte]` vector as a view of the buffer; `undefined` when absent. */
  bytes(id: number, name: string): Uint8Array | undefined {
    const v = this.vector(id, 1, name);
    return v === undefined ? undefined : this.fb.bytes.subarray(v.start, v.start + v.length);
  }

  /** A string field (UTF-8, malformed sequences are a format error); `undefined` when absent. */
  string(id: number, name: string): string | undefined {
    const b = this.bytes(id, name);
    return b === undefined ? undefined : utf8(this.fb, b, `${this.what}.${name}`);
  }

  requiredString(id: number, name: string): string {
    return this.string(id, name) ?? this.fb.fail(`${this.what} has no ${name} (a required field)`);
  }

  /** Element `i` of a vector of tables. */
  tableAt(vector: VectorView, i: number, what: string): Table {
    return this.fb.table(this.fb.deref(vector.start + 4 * i), what);
  }

  /** The table field `id` points to; `undefined` when absent. */
  child(id: number, what: string): Table | undefined {
    const t = this.target(id);
    return t === 0 ? undefined : this.fb.table(t, what);
  }
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Decodes UTF-8, a malformed sequence being a format error of `fb`'s file. */
export function utf8(fb: FlatBuffer, bytes: Uint8Array, what: string): string {
  try {
    return decoder.decode(bytes);
  } catch {
    return fb.fail(`${what} is not valid UTF-8`);
  }
}

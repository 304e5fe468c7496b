/**
 * zarrita 0.7.5 as a peer: reads an array we wrote and compares it element by
 * element (bit for bit for fixed-size types) with our own readback.
 *
 * @module
 */

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { DataType, NDArray } from "@zarr/core";
import type { AbsolutePath, AsyncReadable, RangeQuery } from "@zarrita/storage";
import * as zarr from "zarrita";

/**
 * A read-only directory store for zarrita. (@zarrita/storage's FileSystemStore
 * passes range lengths straight to fs.read: when zarrita reads a shard index
 * from the wrong end, the garbage length aborts the whole process in a native
 * assertion. Here a range outside the file is a RangeError zarrita reports.)
 */
class DirStore implements AsyncReadable {
  constructor(readonly root: string) {}

  async get(key: AbsolutePath): Promise<Uint8Array | undefined> {
    try {
      return new Uint8Array(await readFile(join(this.root, ...key.split("/").filter(Boolean))));
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return undefined;
      throw e;
    }
  }

  async getRange(key: AbsolutePath, range: RangeQuery): Promise<Uint8Array | undefined> {
    const all = await this.get(key);
    if (!all) return undefined;
    const [start, end] =
      "suffixLength" in range
        ? [all.length - range.suffixLength, all.length]
        : [range.offset, range.offset + range.length];
    if (
      !Number.isSafeInteger(start) ||
      !Number.isSafeInteger(end) ||
      start < 0 ||
      end > all.length ||
      end < start
    )
      throw new RangeError(
        `${key}: range [${start}, ${end}) outside the ${all.length} stored bytes`,
      );
    // (a copy, as a store returns: zarrita's vlen-utf8 decoder reads a view's buffer from 0)
    return all.slice(start, end);
  }
}

const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");

/** The key of our element `i` (C order): stored bytes for fixed-size types, else the value. */
function ourKey(dt: DataType, a: NDArray, i: number): string {
  if (dt.kind === "string") return JSON.stringify(dt.getScalar(a.data, i));
  if (dt.kind === "bytes") return hex(dt.getScalar(a.data, i) as Uint8Array);
  if (dt.itemSize === null) return JSON.stringify(dt.getScalar(a.data, i));
  if (dt.name === "null_terminated_bytes") {
    // zarrita's ByteStringArray gives strings: compare the bytes without trailing NULs.
    const b = dt.getScalar(a.data, i) as Uint8Array;
    return JSON.stringify(String.fromCharCode(...b).replace(/\0+$/, ""));
  }
  if (dt.name === "fixed_length_utf32") return JSON.stringify(dt.getScalar(a.data, i));
  return elementBytes(dt, a, i);
}

/** The little-endian stored bytes of element `i` of `a` (exact bits, taken from memory). */
function elementBytes(dt: DataType, a: NDArray, i: number): string {
  const data = a.data as unknown as {
    buffer: ArrayBufferLike;
    byteOffset: number;
    BYTES_PER_ELEMENT: number;
  };
  if (dt.name === "float16" || !("BYTES_PER_ELEMENT" in data)) {
    const one = dt.allocate(1) as unknown as { set(x: ArrayLike<unknown>): void };
    const src = a.data as unknown as { subarray(s: number, e: number): ArrayLike<unknown> };
    one.set(src.subarray(i * dt.width, (i + 1) * dt.width));
    return hex(dt.toBytes!(one as never, true));
  }
  const n = dt.width * data.BYTES_PER_ELEMENT;
  return hex(new Uint8Array(data.buffer, data.byteOffset + i * n, n));
}

/** The key of zarrita's element at storage offset `off`. */
function theirKey(data: unknown, off: number, dt: DataType): string {
  if (data instanceof zarr.BoolArray) return data.get(off) ? "01" : "00";
  if (data instanceof zarr.ByteStringArray || data instanceof zarr.UnicodeStringArray)
    return JSON.stringify(data.get(off));
  if (ArrayBuffer.isView(data)) {
    const t = data as unknown as {
      buffer: ArrayBufferLike;
      byteOffset: number;
      BYTES_PER_ELEMENT: number;
    };
    const n = t.BYTES_PER_ELEMENT;
    return hex(new Uint8Array(t.buffer, t.byteOffset + off * n, n));
  }
  const v = (data as unknown[])[off];
  if (dt.kind === "bytes") return v instanceof Uint8Array ? hex(v) : `not bytes: ${String(v)}`;
  return JSON.stringify(v);
}

/** Storage offset of C-order element `i` given zarrita's strides. */
function offsetOf(i: number, shape: readonly number[], stride: readonly number[]): number {
  let off = 0;
  for (let d = shape.length - 1; d >= 0; d--) {
    const n = shape[d];
    off += (i % n) * stride[d];
    i = Math.floor(i / n);
  }
  return off;
}

/** What zarrita made of one array. */
export type ZarritaResult =
  | { ok: true }
  | { ok: false; mismatch: string }
  | { ok: false; error: string };

const stores = new Map<string, DirStore>();

/** A 0-d read: zarrita returns the element itself. */
function sameScalar(dt: DataType, ours: NDArray, theirs: unknown): string | undefined {
  const mine = dt.getScalar(ours.data, 0);
  const norm = (v: unknown): string =>
    typeof v === "boolean"
      ? v
        ? "1"
        : "0"
      : typeof v === "number"
        ? Object.is(v, -0)
          ? "-0"
          : String(v)
        : typeof v === "bigint"
          ? String(v)
          : JSON.stringify(v);
  const m = dt.kind === "bool" ? norm(Boolean(mine)) : norm(mine);
  return m === norm(theirs) ? undefined : `0-d element: zarrita ${norm(theirs)}, ours ${m}`;
}

/** Reads `path` under `root` with zarrita (v2 or v3) and compares with `ours`. */
export async function zarritaCheck(
  root: string,
  path: string,
  format: 2 | 3,
  ours: NDArray,
): Promise<ZarritaResult> {
  let chunk: { data: unknown; shape: number[]; stride: number[] };
  try {
    let store = stores.get(root);
    if (!store) {
      store = new DirStore(root);
      stores.set(root, store);
    }
    const loc = zarr.root(store).resolve(path);
    const arr =
      format === 2
        ? await zarr.open.v2(loc, { kind: "array" })
        : await zarr.open.v3(loc, { kind: "array" });
    chunk = (await zarr.get(arr as never)) as never;
  } catch (e) {
    return { ok: false, error: `${(e as Error).name}: ${(e as Error).message}` };
  }
  const dt = ours.dataType;
  if (
    ours.shape.length === 0 &&
    (chunk === null || typeof chunk !== "object" || !("stride" in chunk))
  ) {
    const bad = sameScalar(dt, ours, chunk);
    return bad ? { ok: false, mismatch: bad } : { ok: true };
  }
  if (JSON.stringify(chunk.shape) !== JSON.stringify(ours.shape))
    return {
      ok: false,
      mismatch: `shape ${JSON.stringify(chunk.shape)} != ${JSON.stringify(ours.shape)}`,
    };
  const n = ours.shape.reduce((a, b) => a * b, 1);
  for (let i = 0; i < n; i++) {
    const mine = ourKey(dt, ours, i);
    const theirs = theirKey(chunk.data, offsetOf(i, chunk.shape, chunk.stride), dt);
    if (mine !== theirs)
      return { ok: false, mismatch: `element ${i}: zarrita ${theirs}, ours ${mine}` };
  }
  return { ok: true };
}

/**
 * Raw deflate (RFC 1951) through the platform's `DecompressionStream` /
 * `CompressionStream("deflate-raw")`: no dependency, available in Node >= 20
 * and every current browser, and measured as fast as or faster than pako
 * (see README). Output is bounded by the size the archive declares.
 *
 * @module
 */

import { ZipFormatError } from "./errors.js";

/**
 * Inflates raw deflate data whose decompressed size is known: resolves to
 * exactly `size` bytes or rejects (corrupt data, more or fewer bytes).
 */
export type InflateRaw = (data: Uint8Array, size: number) => Promise<Uint8Array>;

/** Compresses raw deflate data. */
export type DeflateRaw = (data: Uint8Array) => Promise<Uint8Array>;

function requireStream(kind: "DecompressionStream" | "CompressionStream"): void {
  if (typeof globalThis[kind] !== "function") {
    throw new ZipFormatError(
      `this runtime has no ${kind}("deflate-raw"); pass an inflateRaw/deflateRaw option (e.g. built on pako or fflate)`,
    );
  }
}

/**
 * The default {@link InflateRaw}: streams through `DecompressionStream` into a
 * buffer of `size` bytes, stopping as soon as the data would exceed it.
 */
export const inflateRaw: InflateRaw = async (data, size) => {
  requireStream("DecompressionStream");
  const out = new Uint8Array(size);
  const stream = new DecompressionStream("deflate-raw");
  const writer = stream.writable.getWriter();
  // Errors surface through the reader; don't leave the writer's promises unhandled.
  writer.write(data as Uint8Array<ArrayBuffer>).catch(() => {});
  writer.close().catch(() => {});
  const reader = stream.readable.getReader();
  let written = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (written + value.length > size) {
        throw new Error(`inflates to more than the declared ${size} bytes`);
      }
      out.set(value, written);
      written += value.length;
    }
  } catch (cause) {
    reader.cancel().catch(() => {});
    throw cause instanceof Error ? cause : new Error(String(cause));
  }
  if (written !== size) throw new Error(`inflates to ${written} bytes, ${size} declared`);
  return out;
};

/** The default {@link DeflateRaw}, through `CompressionStream`. */
export const deflateRaw: DeflateRaw = async (data) => {
  requireStream("CompressionStream");
  const stream = new CompressionStream("deflate-raw");
  const writer = stream.writable.getWriter();
  writer.write(data as Uint8Array<ArrayBuffer>).catch(() => {});
  writer.close().catch(() => {});
  const reader = stream.readable.getReader();
  const parts: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    length += value.length;
  }
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

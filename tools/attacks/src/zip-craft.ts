/**
 * Hostile zip archives for the attack suite: a builder that writes truthful
 * records by default and lets every field of a local header, a data
 * descriptor or a central directory header be overridden independently, so
 * the two views of an entry can disagree (another entry's local header,
 * other method/sizes/flags/CRC, lying descriptors, data running into the
 * central directory, huge declared sizes). Layouts: PKWARE APPNOTE.TXT 4.3.7
 * (local header), 4.3.9 (data descriptor), 4.3.12 (central header), 4.3.16
 * (end of central directory), 4.5.3 (zip64 extended information).
 *
 * Written for these tests (the store-zip package has its own builder for its
 * fuzz tests); Node only.
 *
 * @module
 */

import { constants, deflateRawSync } from "node:zlib";
import { crc32 } from "@zarr/store-zip";

const MAX32 = 0xffffffff;
const enc = new TextEncoder();

/** Fields of a local header or central directory header that an entry can override. */
export interface HeaderFields {
  /** The name (bytes written as UTF-8). */
  name?: string;
  method?: number;
  flags?: number;
  crc?: number;
  compressedSize?: number;
  /** Uncompressed size. */
  size?: number;
}

/** One entry of a crafted archive. */
export interface CraftEntry {
  name: string;
  /** The uncompressed value (its CRC-32 and length are the truthful fields). */
  data: Uint8Array;
  /** Deflate `data` (method 8); default: store it (method 0). */
  deflate?: boolean;
  /** The bytes written as the entry's data, instead of `data` (deflated). */
  body?: Uint8Array;
  /** Write a data descriptor after the data (flag bit 3; local CRC and sizes 0), with these values (default: truthful). */
  descriptor?: { crc?: number; compressedSize?: number; size?: number };
  /**
   * Local header fields that differ from the truth; `extra` is written as the
   * local extra field; `extraLength` overrides only the length field (the
   * bytes written stay `extra`).
   */
  local?: HeaderFields & { extra?: Uint8Array; extraLength?: number };
  /**
   * Central directory fields that differ from the truth. `offsetOf: i` points
   * the entry at entry `i`'s local header; `offset` sets the offset outright;
   * `omit` leaves the entry out of the central directory.
   */
  central?: HeaderFields & { offsetOf?: number; offset?: number; omit?: boolean };
}

/** A crafted archive and where its parts are. */
export interface Crafted {
  bytes: Uint8Array;
  /** Per entry: its local header, its data, and the end of its data. */
  entries: { localAt: number; dataAt: number; dataEnd: number }[];
  /** Where the central directory starts and ends. */
  cdStart: number;
  cdEnd: number;
}

function u64(v: DataView, at: number, n: number): void {
  v.setUint32(at, n % 0x100000000, true);
  v.setUint32(at + 4, Math.floor(n / 0x100000000), true);
}

/** Deflates `data` (raw deflate, RFC 1951). */
export function deflate(data: Uint8Array): Uint8Array {
  return new Uint8Array(deflateRawSync(data));
}

/**
 * A raw deflate stream of `count` repetitions of `unit` followed by `tail`,
 * built without deflating the whole: `unit` is deflated once with a full
 * flush (byte-aligned, no back-references across it) and repeated, then
 * `tail` ends the stream. `deflateRepeated(zeros(1 MiB), 1024, x)` is a 1 MiB
 * stream that inflates to 1 GiB followed by `x`.
 */
export function deflateRepeated(unit: Uint8Array, count: number, tail: Uint8Array): Uint8Array {
  const segment = deflateRawSync(unit, { finishFlush: constants.Z_FULL_FLUSH });
  const last = deflateRawSync(tail);
  const out = new Uint8Array(segment.length * count + last.length);
  for (let i = 0; i < count; i++) out.set(segment, i * segment.length);
  out.set(last, segment.length * count);
  return out;
}

/** The CRC-32 of `count` repetitions of `unit` followed by `tail`. */
export function crc32Repeated(unit: Uint8Array, count: number, tail: Uint8Array): number {
  let crc = 0;
  for (let i = 0; i < count; i++) crc = crc32(unit, crc);
  return crc32(tail, crc);
}

/** Writes `entries` as a zip archive. */
export function craftZip(entries: readonly CraftEntry[]): Crafted {
  const parts: Uint8Array[] = [];
  let length = 0;
  const push = (b: Uint8Array) => {
    const at = length;
    parts.push(b);
    length += b.length;
    return at;
  };
  const layout: Crafted["entries"] = [];
  const truth: Required<HeaderFields>[] = [];

  for (const e of entries) {
    const method = e.deflate ? 8 : 0;
    const body = e.body ?? (e.deflate ? deflate(e.data) : e.data);
    const t = {
      name: e.name,
      method,
      flags: (e.descriptor ? 0x8 : 0) | (/^[\x20-\x7e]*$/.test(e.name) ? 0 : 0x800),
      crc: crc32(e.data),
      compressedSize: body.length,
      size: e.data.length,
    };
    truth.push(t);
    const l = { ...t, ...(e.descriptor ? { crc: 0, compressedSize: 0, size: 0 } : {}), ...e.local };
    const name = enc.encode(l.name);
    const wide = l.compressedSize >= MAX32 || l.size >= MAX32;
    const extra = e.local?.extra ?? new Uint8Array(wide ? 20 : 0);
    const h = new Uint8Array(30 + name.length + extra.length);
    const v = new DataView(h.buffer);
    v.setUint32(0, 0x04034b50, true);
    v.setUint16(4, wide ? 45 : 20, true);
    v.setUint16(6, l.flags, true);
    v.setUint16(8, l.method, true);
    v.setUint32(14, l.crc >>> 0, true);
    v.setUint32(18, wide ? MAX32 : l.compressedSize, true);
    v.setUint32(22, wide ? MAX32 : l.size, true);
    v.setUint16(26, name.length, true);
    v.setUint16(28, e.local?.extraLength ?? extra.length, true);
    h.set(name, 30);
    h.set(extra, 30 + name.length);
    if (wide && !e.local?.extra) {
      const x = 30 + name.length;
      v.setUint16(x, 1, true);
      v.setUint16(x + 2, 16, true);
      u64(v, x + 4, l.size);
      u64(v, x + 12, l.compressedSize);
    }
    const localAt = push(h);
    const dataAt = push(body);
    layout.push({ localAt, dataAt, dataEnd: dataAt + body.length });
    if (e.descriptor) {
      const d = new Uint8Array(16);
      const dv = new DataView(d.buffer);
      dv.setUint32(0, 0x08074b50, true);
      dv.setUint32(4, (e.descriptor.crc ?? t.crc) >>> 0, true);
      dv.setUint32(8, e.descriptor.compressedSize ?? t.compressedSize, true);
      dv.setUint32(12, e.descriptor.size ?? t.size, true);
      push(d);
    }
  }

  const cdStart = length;
  let count = 0;
  entries.forEach((e, i) => {
    if (e.central?.omit) return;
    count++;
    const c = { ...truth[i], ...e.central };
    const offset = e.central?.offset ?? layout[e.central?.offsetOf ?? i].localAt;
    const name = enc.encode(c.name);
    const big = [c.size, c.compressedSize, offset].filter((n) => n >= MAX32);
    const extraLength = big.length ? 4 + 8 * big.length : 0;
    const h = new Uint8Array(46 + name.length + extraLength);
    const v = new DataView(h.buffer);
    v.setUint32(0, 0x02014b50, true);
    v.setUint16(4, 0x031e, true);
    v.setUint16(6, big.length ? 45 : 20, true);
    v.setUint16(8, c.flags, true);
    v.setUint16(10, c.method, true);
    v.setUint32(16, c.crc >>> 0, true);
    v.setUint32(20, Math.min(c.compressedSize, MAX32), true);
    v.setUint32(24, Math.min(c.size, MAX32), true);
    v.setUint16(28, name.length, true);
    v.setUint16(30, extraLength, true);
    v.setUint32(42, Math.min(offset, MAX32), true);
    h.set(name, 46);
    if (big.length) {
      let x = 46 + name.length;
      v.setUint16(x, 1, true);
      v.setUint16(x + 2, 8 * big.length, true);
      x += 4;
      for (const n of big) {
        u64(v, x, n);
        x += 8;
      }
    }
    push(h);
  });
  const cdEnd = length;
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, count, true);
  ev.setUint16(10, count, true);
  ev.setUint32(12, cdEnd - cdStart, true);
  ev.setUint32(16, cdStart, true);
  push(end);

  const bytes = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return { bytes, entries: layout, cdStart, cdEnd };
}
